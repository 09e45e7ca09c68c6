/*
 * The simulator against answers known in closed form: the ring and
 * Rabenseifner allreduce formulas on one link class, max-min sharing of
 * one NIC, and a rack uplink that flows from every node of a rack share.
 */
#include "coll/sim/exec.h"
#include "coll/sim/flow.h"
#include "coll/sim/model.h"

#include <check.h>
#include <math.h>
#include "check_main.h"

/* One link class everywhere: every rank a node of its own, all in one
 * rack, NICs as fast as a stream, nothing else shared. */
static loom_sim_model_t one_class(double a, double b, double g)
{
    loom_sim_model_t m;
    int c;

    loom_sim_model_default(&m);
    m.ranks_per_node = 1;
    m.nics_per_node = 1;
    m.nodes_per_rack = 1 << 20;
    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        m.alpha_us[c] = a * 1e6;
        m.gbs[c] = 1 / b * 1e-9;
    }
    m.reduce_gbs = 1 / g * 1e-9;
    m.copy_gbs = 1e9;  /* copies free: the formulas count none */
    return m;
}

static double sim_time(const loom_sim_model_t *m, int p, loom_plan_fn_t plan, size_t bytes,
                       size_t seg)
{
    loom_sim_layout_t *lay;
    loom_sim_prog_t *prog;
    loom_sim_result_t res;

    ck_assert_int_eq(loom_sim_layout_create(m, p, &lay), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_build(&(loom_sim_build_params_t){
                         .layout = lay, .plan = plan, .bytes = bytes, .seg_bytes = seg,
                         .in_place = 1 }, &prog), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_run(prog, m, &res), LOOM_OK);
    loom_sim_prog_destroy(prog);
    loom_sim_layout_destroy(lay);
    return res.time_s;
}

static void assert_close(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-7 * want, "simulated %.9g s, formula %.9g s",
                  got, want);
}

START_TEST(test_sim_ring_closed_form)
{
    const double a = 3e-6, b = 1 / 10e9, g = 1 / 40e9;
    static const int ps[] = { 2, 3, 4, 8, 16, 64 };
    int i, p;
    double n;

    for (i = 0; i < (int)(sizeof(ps) / sizeof(ps[0])); ++i) {
        loom_sim_model_t m = one_class(a, b, g);

        p = ps[i];
        n = 4.0 * p * 1024;   /* blocks of equal size */
        assert_close(sim_time(&m, p, loom_allreduce_ring_plan, (size_t)n, 0),
                     2 * (p - 1) * a + 2.0 * (p - 1) / p * n * b + (double)(p - 1) / p * n * g);
    }
}
END_TEST

START_TEST(test_sim_rabenseifner_pow2)
{
    const double a = 5e-6, b = 1 / 12.5e9, g = 1 / 30e9;
    int p, k;
    double n = 1 << 22;

    for (p = 2, k = 1; p <= 256; p *= 2, ++k) {
        loom_sim_model_t m = one_class(a, b, g);

        assert_close(sim_time(&m, p, loom_allreduce_rabenseifner_plan, (size_t)n, 0),
                     2 * k * a + 2.0 * (p - 1) / p * n * b + (double)(p - 1) / p * n * g);
    }
}
END_TEST

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

/* 8 ranks, one per node, 4 nodes per rack, rack uplinks of half a NIC.
 * Recursive doubling's last round pairs r with r^4: the 4 flows of each
 * rack share its uplink, U/4 = 1/(8b) each, 8 times slower than the two
 * rounds inside the rack. */
START_TEST(test_sim_uplink_contention)
{
    const double a = 2e-6, b = 1 / 10e9, g = 1 / 50e9, n = 1 << 20;
    loom_sim_model_t m = one_class(a, b, g);

    m.nodes_per_rack = 4;
    m.uplink_gbs = 0.5 / b * 1e-9;
    assert_close(sim_time(&m, 8, loom_allreduce_rd_plan, (size_t)n, 0),
                 3 * a + 2 * n * b + 8 * n * b + 3 * n * g);
    /* With an uplink as fast as four NICs, no contention: log2(8) equal rounds. */
    m.uplink_gbs = 4 / b * 1e-9;
    assert_close(sim_time(&m, 8, loom_allreduce_rd_plan, (size_t)n, 0),
                 3 * (a + n * b + n * g));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("sim");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sim_ring_closed_form);
    tcase_add_test(tc, test_sim_rabenseifner_pow2);
    tcase_add_test(tc, test_sim_star_shares_nic);
    tcase_add_test(tc, test_sim_uplink_contention);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
