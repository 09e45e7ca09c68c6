/*
 * The simulator's flow network (coll/sim/flow.h) alone: max-min sharing
 * of one link, its heaps against a plain scan of every link and flow,
 * through flows coming and going, and a capped flow's finish time kept
 * to the bit while the flows beside it re-fill.
 */
#include "coll/sim/flow.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include "test/unit/support/check_main.h"

/* k flows into one link of capacity C: C/k each; a flow held lower by
 * its own cap leaves the rest to the others (max-min). */
START_TEST(test_sim_star_shares_nic)
{
    const double C = 1e9;
    double caps[1] = { C };
    loom_sim_net_t *net;
    int link = 0, k;
    long user;

    ck_assert_int_eq(loom_sim_net_create(1, caps, &net), LOOM_OK);
    for (k = 0; k < 4; ++k) {
        ck_assert_int_eq(loom_sim_net_add(net, 0, 1e6, 10 * C, &link, 1, k), LOOM_OK);
    }
    loom_sim_net_settle(net, 0);
    for (k = 0; k < 4; ++k) {
        ck_assert(fabs(loom_sim_net_rate_of(net, k) - C / 4) < 1e-6 * C);
    }
    /* All four end together, at 4 MB / C. */
    ck_assert(fabs(loom_sim_net_next(net) - 4e6 / C) < 1e-12);
    for (k = 0; k < 4; ++k) {
        ck_assert_int_eq(loom_sim_net_pop(net, 4e6 / C, &user), 1);
    }
    ck_assert_int_eq(loom_sim_net_active(net), 0);
    /* A flow capped at C/8 and three free ones: C/8 and 7C/24 each. */
    ck_assert_int_eq(loom_sim_net_add(net, 1, 1e6, C / 8, &link, 1, 10), LOOM_OK);
    for (k = 11; k < 14; ++k) {
        ck_assert_int_eq(loom_sim_net_add(net, 1, 1e6, 10 * C, &link, 1, k), LOOM_OK);
    }
    loom_sim_net_settle(net, 1);
    ck_assert(fabs(loom_sim_net_rate_of(net, 10) - C / 8) < 1e-6 * C);
    ck_assert(fabs(loom_sim_net_rate_of(net, 12) - 7 * C / 24) < 1e-6 * C);
    loom_sim_net_destroy(net);
}
END_TEST

/* Max-min fair rates the plain way: every round scans every link and
 * flow for the lowest share (or cap), and every flow on a link within
 * 1e-12 of it freezes there; the network's heaps must give these rates
 * to the last bit. */
#define FILL_LINKS 24
#define FILL_FLOWS 160

static void fill_reference(const double *cap, int nflows, const int (*links)[4],
                           const int *nlinks, const double *fcap, double *rate)
{
    double rem[FILL_LINKS], level, thr;
    int cnt[FILL_LINKS] = { 0 }, frozen[FILL_FLOWS] = { 0 }, left = nflows, f, k, l, bott;

    for (l = 0; l < FILL_LINKS; ++l) {
        rem[l] = cap[l] > 0 ? cap[l] : HUGE_VAL;
    }
    for (f = 0; f < nflows; ++f) {
        for (k = 0; k < nlinks[f]; ++k) {
            cnt[links[f][k]]++;
        }
    }
    while (left > 0) {
        level = HUGE_VAL;
        for (l = 0; l < FILL_LINKS; ++l) {
            if (cnt[l] > 0 && rem[l] / cnt[l] < level) {
                level = rem[l] / cnt[l];
            }
        }
        for (f = 0; f < nflows; ++f) {
            if (!frozen[f] && fcap[f] < level) {
                level = fcap[f];
            }
        }
        thr = level * (1 + 1e-12);
        for (f = 0; f < nflows; ++f) {
            if (frozen[f]) {
                continue;
            }
            bott = fcap[f] <= thr;
            for (k = 0; k < nlinks[f] && !bott; ++k) {
                bott = rem[links[f][k]] / cnt[links[f][k]] <= thr;
            }
            if (bott) {
                frozen[f] = 1;
                rate[f] = level;
                --left;
            }
        }
        for (f = 0; f < nflows; ++f) {
            if (frozen[f] == 1) {
                frozen[f] = 2;
                for (k = 0; k < nlinks[f]; ++k) {
                    rem[links[f][k]] -= level;
                    cnt[links[f][k]] -= 1;
                }
            }
        }
    }
}

/* Random networks with many equal capacities (ties between links and
 * caps, several levels per part, unlimited links and flows). */
START_TEST(test_sim_fill_matches_reference)
{
    static const double link_caps[] = { 10e9, 20e9, 40e9, 0 }, flow_caps[] = { 5e9, 15e9, 0 };
    double cap[FILL_LINKS], fcap[FILL_FLOWS], rate[FILL_FLOWS];
    int links[FILL_FLOWS][4], nlinks[FILL_FLOWS], seed, f, k, j, l, nflows;
    unsigned x = 12345;
    loom_sim_net_t *net;

    for (seed = 0; seed < 50; ++seed) {
        for (l = 0; l < FILL_LINKS; ++l) {
            x = x * 1103515245u + 12345u;
            cap[l] = link_caps[(x >> 16) % 4];
        }
        nflows = 20 + seed * 2;
        ck_assert_int_eq(loom_sim_net_create(FILL_LINKS, cap, &net), LOOM_OK);
        for (f = 0; f < nflows; ++f) {
            x = x * 1103515245u + 12345u;
            nlinks[f] = 1 + (int)((x >> 16) % 4);
            fcap[f] = flow_caps[(x >> 8) % 3];
            for (k = 0; k < nlinks[f]; ++k) {
                do {   /* distinct links */
                    x = x * 1103515245u + 12345u;
                    l = (int)((x >> 16) % FILL_LINKS);
                    for (j = 0; j < k && links[f][j] != l; ++j) {
                    }
                } while (j < k);
                links[f][k] = l;
            }
            ck_assert_int_eq(loom_sim_net_add(net, 0, 1e6, fcap[f], links[f], nlinks[f], f),
                             LOOM_OK);
            fcap[f] = fcap[f] > 0 ? fcap[f] : HUGE_VAL;
        }
        loom_sim_net_settle(net, 0);
        fill_reference(cap, nflows, (const int (*)[4])links, nlinks, fcap, rate);
        for (f = 0; f < nflows; ++f) {
            ck_assert_msg(loom_sim_net_rate_of(net, f) == rate[f],
                          "seed %d flow %d: %.17g, the plain filling %.17g", seed, f,
                          loom_sim_net_rate_of(net, f), rate[f]);
        }
        loom_sim_net_destroy(net);
    }
}
END_TEST

/* A random network through 60 batches of flows ending and starting,
 * half the newcomers on the very path (and cap) of a flow that just
 * ended: after every settle each flow's rate is the plain filling's of
 * the flows then running, to the last bit.  This is what the two
 * shortcuts of the incremental filling must keep: links that cannot
 * fill leave the parts, and a newcomer on an ended flow's path takes
 * its rate without a re-fill.  Link capacities are set so that many
 * links go slack and tight again as flows come and go. */
#define DYN_USERS 4096

START_TEST(test_sim_fill_follows_changes)
{
    static const double link_caps[] = { 20e9, 30e9, 45e9, 0 }, flow_caps[] = { 5e9, 15e9, 0 };
    static int links[DYN_USERS][4], nlinks[DYN_USERS], alive[DYN_USERS];
    static double fcap[DYN_USERS];
    double cap[FILL_LINKS], rate[FILL_FLOWS], afcap[FILL_FLOWS], t = 0;
    int alinks[FILL_FLOWS][4], anl[FILL_FLOWS], ids[FILL_FLOWS], ended[FILL_FLOWS];
    int next = 0, round, n, nended, f, k, j, l, same = 0;
    unsigned x = 777;
    long user;
    loom_sim_net_t *net;

#define DYN_RAND() (x = x * 1103515245u + 12345u, (int)(x >> 16))
    for (l = 0; l < FILL_LINKS; ++l) {
        cap[l] = link_caps[DYN_RAND() % 4];
    }
    ck_assert_int_eq(loom_sim_net_create(FILL_LINKS, cap, &net), LOOM_OK);
    for (round = 0; round < 300; ++round) {
        nended = 0;
        if (round > 0) {
            t = loom_sim_net_next(net);
            while (loom_sim_net_pop(net, t, &user)) {
                alive[user] = 0;
                ended[nended++] = (int)user;
            }
            ck_assert_int_gt(nended, 0);
        }
        /* Newcomers: the ended ones' paths again, or new random ones. */
        for (n = 0; n < (round == 0 ? 40 : nended + (loom_sim_net_active(net) < 40)); ++n) {
            ck_assert_int_lt(next, DYN_USERS);
            f = next++;
            if (n < nended && DYN_RAND() % 2 == 0) {
                memcpy(links[f], links[ended[n]], sizeof(links[f]));
                nlinks[f] = nlinks[ended[n]];
                fcap[f] = fcap[ended[n]];
                same++;
            } else {
                nlinks[f] = 1 + DYN_RAND() % 4;
                fcap[f] = flow_caps[DYN_RAND() % 3];
                for (k = 0; k < nlinks[f]; ++k) {
                    do {   /* distinct links */
                        l = DYN_RAND() % FILL_LINKS;
                        for (j = 0; j < k && links[f][j] != l; ++j) {
                        }
                    } while (j < k);
                    links[f][k] = l;
                }
            }
            ck_assert_int_eq(loom_sim_net_add(net, t, 1e6 * (1 + DYN_RAND() % 7), fcap[f],
                                              links[f], nlinks[f], f), LOOM_OK);
            alive[f] = 1;
        }
        loom_sim_net_settle(net, t);
        for (n = 0, f = 0; f < next; ++f) {
            if (alive[f]) {
                ck_assert_int_lt(n, FILL_FLOWS);
                memcpy(alinks[n], links[f], sizeof(alinks[n]));
                anl[n] = nlinks[f];
                afcap[n] = fcap[f] > 0 ? fcap[f] : HUGE_VAL;
                ids[n++] = f;
            }
        }
        ck_assert_int_eq(n, loom_sim_net_active(net));
        fill_reference(cap, n, (const int (*)[4])alinks, anl, afcap, rate);
        for (f = 0; f < n; ++f) {
            ck_assert_msg(loom_sim_net_rate_of(net, ids[f]) == rate[f],
                          "round %d flow %d: %.17g, the plain filling %.17g", round, ids[f],
                          loom_sim_net_rate_of(net, ids[f]), rate[f]);
        }
    }
#undef DYN_RAND
    ck_assert_int_gt(same, 100);   /* newcomers on an ended flow's path, many */
    loom_sim_net_destroy(net);
}
END_TEST

/* A flow held at its own cap keeps the very finish time it got, however
 * often the flows beside it make its part re-fill: worked out again at
 * each re-fill it would drift by rounding errors, and results would
 * depend on which flows happen to be re-filled together. */
START_TEST(test_sim_finish_stays)
{
    double caps[1] = { 10e9 }, t = 0, finish;
    loom_sim_net_t *net;
    int link = 0, k;
    long user;

    ck_assert_int_eq(loom_sim_net_create(1, caps, &net), LOOM_OK);
    ck_assert_int_eq(loom_sim_net_add(net, 0, 1e6 / 3, 4e9 / 3, &link, 1, 0), LOOM_OK);
    loom_sim_net_settle(net, 0);
    finish = loom_sim_net_next(net);
    ck_assert(fabs(finish - 2.5e-4) < 1e-15);
    /* Each newcomer (9 GB/s alone) fills the link with it, so the part
     * re-fills when it comes and when it goes; the first flow stays at
     * its cap throughout. */
    for (k = 1; k <= 50; ++k) {
        ck_assert_int_eq(loom_sim_net_add(net, t, 1e3 + k / 7.0, 9e9, &link, 1, k), LOOM_OK);
        loom_sim_net_settle(net, t);
        ck_assert(loom_sim_net_rate_of(net, 0) == 4e9 / 3);
        ck_assert(loom_sim_net_rate_of(net, k) == 10e9 - 4e9 / 3);
        t = loom_sim_net_next(net);
        ck_assert_int_eq(loom_sim_net_pop(net, t, &user), 1);
        ck_assert_int_eq(user, k);
        loom_sim_net_settle(net, t);
        ck_assert_msg(loom_sim_net_next(net) == finish, "after %d re-fills: %.17g, was %.17g",
                      k, loom_sim_net_next(net), finish);
    }
    loom_sim_net_destroy(net);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_flow");
    TCase *tc = tcase_create("sim_flow");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sim_star_shares_nic);
    tcase_add_test(tc, test_sim_fill_matches_reference);
    tcase_add_test(tc, test_sim_fill_follows_changes);
    tcase_add_test(tc, test_sim_finish_stays);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
