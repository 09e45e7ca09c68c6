/*
 * The simulator against answers known in closed form: the ring and
 * Rabenseifner allreduce formulas on one link class, and a rack uplink
 * that flows from every node of a rack share (the flow network alone:
 * check_sim_flow.c).
 * And its shortcuts against the long way: a program rebuilt in place
 * against a fresh one, sends and receives paired when built against
 * ones that meet by tag at run time.
 */
#include "coll/sim/exec.h"
#include "coll/sim/fit.h"
#include "coll/sim/model.h"
#include "coll/sim/prog.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/engine/sched.h"
#include "coll/core/engine/team.h"
#include "tools/loom-sim/coll.h"
#include "tools/loom-sim/options.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test/unit/support/check_main.h"

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

/* One algorithm of another collective through loom-sim's table (its
 * element count as the sweep gives it: tools/loom-sim/coll.h). */
static double sim_coll_time(const loom_sim_model_t *m, int p, const char *coll_name,
                            const char *alg_name, size_t bytes, size_t seg)
{
    const loom_sim_coll_t *coll = loom_sim_coll_find(coll_name);
    loom_sim_layout_t *lay;
    loom_sim_prog_t *prog;
    loom_sim_result_t res;
    int alg;

    ck_assert_ptr_nonnull(coll);
    alg = loom_sim_coll_alg(coll, alg_name);
    ck_assert_int_gt(alg, 0);
    ck_assert_int_eq(loom_sim_layout_create(m, p, &lay), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_build(&(loom_sim_build_params_t){
                         .layout = lay, .plan = coll->engine->algorithms[alg].plan, .bytes = bytes,
                         .total = coll->total, .seg_bytes = seg,
                         .in_place = 1 }, &prog), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_run(prog, m, &res), LOOM_OK);
    loom_sim_prog_destroy(prog);
    loom_sim_layout_destroy(lay);
    return res.time_s;
}

/* coll's algorithm alg on n bytes in segments of seg (0: the default)
 * takes want seconds. */
static void expect_coll(const loom_sim_model_t *m, int p, const char *coll, const char *alg,
                        double n, double seg, double want)
{
    double got = sim_coll_time(m, p, coll, alg, (size_t)n, (size_t)seg);

    ck_assert_msg(fabs(got - want) <= 1e-7 * want, "%s %s on %d ranks: simulated %.9g s, "
                  "formula %.9g s", coll, alg, p, got, want);
}

/* The other collectives' textbook costs on one link class.  A ring
 * allgather or reduce_scatter of n bytes in all moves n/p per round for
 * p-1 rounds (the reduce_scatter reduces each block before passing it
 * on).  A chain bcast or reduce in s segments: the first segment takes
 * p-1 hops (alpha, its bytes, and for the reduce its reduction), and the
 * other s-1 follow at the link's rate, each one's bytes moving while the
 * one before completes.  A binomial tree on 2 ranks is one message; on
 * more, the root sends to its children at once and they share its NIC,
 * which the textbook log2(p) rounds leave out. */
START_TEST(test_sim_collectives_closed_form)
{
    const double a = 4e-6, b = 1 / 20e9, g = 1 / 50e9;
    static const int ps[] = { 2, 3, 5, 8, 16, 64 };
    int i, p;
    double n;

    for (i = 0; i < (int)(sizeof(ps) / sizeof(ps[0])); ++i) {
        loom_sim_model_t m = one_class(a, b, g);

        p = ps[i];
        n = 4.0 * p * 2048;
        expect_coll(&m, p, "allgather", "ring", n, 0, (p - 1) * (a + n / p * b));
        expect_coll(&m, p, "reduce_scatter", "ring", n, 0,
                    (p - 1) * (a + n / p * b + n / p * g));
        expect_coll(&m, p, "bcast", "chain", n, n / 4, (p - 1) * (a + n / 4 * b) + 3 * n / 4 * b);
        expect_coll(&m, p, "reduce", "chain", n, n / 4,
                    (p - 1) * (a + n / 4 * (b + g)) + 3 * n / 4 * b);
        if (p == 2) {
            expect_coll(&m, p, "bcast", "binomial", n, 0, a + n * b);
            expect_coll(&m, p, "reduce", "binomial", n, 0, a + n * b + n * g);
        }
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

/* Ping-pong lines as test/cluster/pingpong.c prints them, for known
 * alpha and beta per class: B MB/s = bytes / (alpha + bytes beta). */
START_TEST(test_sim_calibrate_recovers)
{
    static const char *const labels[] = { "same-node", "same-rack", "cross-rack" };
    const double alpha[] = { 4e-6, 60e-6, 95e-6 }, beta[] = { 1 / 2e9, 1 / 110e6, 1 / 36e6 };
    static const double sizes[] = { 65536, 1 << 20, 4 << 20 };
    loom_sim_pingpong_fit_t fit;
    loom_sim_model_t m;
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int c, i;

    ck_assert_ptr_nonnull(f);
    fprintf(f, "some mpirun noise\n");
    for (i = 0; i < 3; ++i) {
        for (c = 0; c < 3; ++c) {
            fprintf(f, "%s rank 0 (node0) <-> rank %d (node%d): %.0f bytes, %.9g MB/s\n",
                    labels[c], 1 << c, c, sizes[i],
                    sizes[i] / (alpha[c] + sizes[i] * beta[c]) * 1e-6);
        }
    }
    fclose(f);
    f = fmemopen(text, len, "r");
    loom_sim_model_default(&m);
    ck_assert_int_eq(loom_sim_fit_pingpong(f, "synthetic", &m, &fit, err, sizeof(err)),
                     LOOM_OK);
    fclose(f);
    for (c = 0; c < 3; ++c) {
        ck_assert_int_eq(fit.points[c], 3);
        ck_assert_int_eq(fit.sizes[c], 3);
        ck_assert_msg(fabs(m.alpha_us[c] - alpha[c] * 1e6) < 1e-4 * alpha[c] * 1e6,
                      "%s alpha %g us, want %g", labels[c], m.alpha_us[c], alpha[c] * 1e6);
        ck_assert_msg(fabs(m.gbs[c] - 1e-9 / beta[c]) < 1e-6 * 1e-9 / beta[c],
                      "%s %g GB/s, want %g", labels[c], m.gbs[c], 1e-9 / beta[c]);
    }
    /* A label that names no class is an error that names it. */
    f = fmemopen("fast-path rank 0 (a) <-> rank 1 (b): 100 bytes, 5 MB/s\n", 56, "r");
    ck_assert_int_eq(loom_sim_fit_pingpong(f, "bad", &m, &fit, err, sizeof(err)),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(err, "fast-path"));
    fclose(f);
    free(text);
}
END_TEST

/* Each bad command line fails with a message naming the option. */
START_TEST(test_sim_options_rejected)
{
    static const struct { const char *argv[6]; const char *names; } bad[] = {
        { { "loom-sim", "-p", "1" }, "-p" },
        { { "loom-sim", "-p", "64:8" }, "-p" },
        { { "loom-sim", "-a", "fastest" }, "fastest" },
        { { "loom-sim", "-c", "alltoall" }, "reduce_scatter" },
        { { "loom-sim", "-a", "chain" }, "rabenseifner" },
        { { "loom-sim", "-c", "bcast", "-a", "ring" }, "scatter_allgather" },
        { { "loom-sim", "-b", "0" }, "-b" },
        { { "loom-sim", "-e", "12Q" }, "-e" },
        { { "loom-sim", "-f", "1" }, "-f" },
        { { "loom-sim", "-j", "0" }, "-j" },
        { { "loom-sim", "--map-by", "rack" }, "--map-by" },
        { { "loom-sim", "--oversubscription", "0.5" }, "oversubscription" },
        { { "loom-sim", "--set", "nic_gbs=-1" }, "nic_gbs" },
        { { "loom-sim", "--set", "warp_gbs=1" }, "warp_gbs" },
        { { "loom-sim", "--set", "overhead_us=-0.1" }, "overhead_us" },
        { { "loom-sim", "--model", "/nonexistent/model" }, "--model" },
        { { "loom-sim", "--bogus" }, "--bogus" },
        { { "loom-sim", "calibrate" }, "--pingpong" },
        { { "loom-sim", "--order", "0,2,0", "-p", "3" }, "appears twice" },
        { { "loom-sim", "--order", "0,2", "-p", "2" }, "rank 1 is missing" },
        { { "loom-sim", "--order", "random:x" }, "random:SEED" },
        { { "loom-sim", "--order", "backwards" }, "reverse, random:SEED" },
        { { "loom-sim", "--order", "3,1,0,2" }, "needs -p 4" },
        { { "loom-sim", "--order", "3,1,0,2", "-p", "8" }, "needs -p 4" },
    };
    loom_sim_options_t o;
    char *msg = NULL;
    size_t len = 0, i;
    int argc;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        FILE *err = open_memstream(&msg, &len);

        for (argc = 0; argc < 6 && bad[i].argv[argc] != NULL; ++argc) {
        }
        ck_assert_int_eq(loom_sim_options_parse(argc, (char **)bad[i].argv, err, &o),
                         LOOM_SIM_PARSE_ERROR);
        fclose(err);
        ck_assert_msg(strstr(msg, bad[i].names) != NULL, "case %zu: '%s' does not name %s",
                      i, msg, bad[i].names);
        free(msg);
        msg = NULL;
    }
    {
        const char *good[] = { "loom-sim", "-p", "8:64", "--map-by", "node", "-a", "all" };

        ck_assert_int_eq(loom_sim_options_parse(7, (char **)good, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(o.nranks, 4);
        ck_assert_int_eq(o.nalgs, 5);
        ck_assert_int_eq(o.model.map, LOOM_SIM_MAP_NODE);
    }
    {
        /* -a after or before -c, names of that collective; its default set. */
        const char *bcast[] = { "loom-sim", "-a", "chain,auto", "-c", "bcast" };
        const char *allgather[] = { "loom-sim", "-c", "allgather" };
        const char *all_auto[] = { "loom-sim", "-c", "reduce_scatter", "-a", "all,auto,ring" };

        ck_assert_int_eq(loom_sim_options_parse(5, (char **)bcast, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_str_eq(o.coll->engine->name, "bcast");
        ck_assert_int_eq(o.nalgs, 2);
        ck_assert_str_eq(o.coll->engine->alg_names[o.algs[0]], "chain");
        ck_assert_int_eq(o.algs[1], 0);
        ck_assert_int_eq(loom_sim_options_parse(3, (char **)allgather, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(o.nalgs, 3);
        ck_assert_str_eq(o.coll->engine->alg_names[o.algs[2]], "hierarchical");
        /* all: every one but reproducible, each once, then auto. */
        ck_assert_int_eq(loom_sim_options_parse(5, (char **)all_auto, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(o.nalgs, 4);
        ck_assert_str_eq(o.coll->engine->alg_names[o.algs[0]], "recursive_halving");
        ck_assert_str_eq(o.coll->engine->alg_names[o.algs[2]], "hierarchical");
        ck_assert_int_eq(o.algs[3], 0);
    }
    {
        /* --order: none by default; reverse and random for any rank
         * count, a list for its own. */
        const char *rev[] = { "loom-sim", "--order", "reverse" };
        const char *rnd[] = { "loom-sim", "--order", "random:7", "-p", "6" };
        const char *list[] = { "loom-sim", "-p", "4", "--order", "3,1,0,2" };
        int order[6], again[6], seen = 0, k;

        ck_assert_int_eq(loom_sim_options_parse(1, (char **)list, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(loom_sim_order_fill(&o, 4, order), 0);
        ck_assert_int_eq(loom_sim_options_parse(3, (char **)rev, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(loom_sim_order_fill(&o, 5, order), 1);
        ck_assert_int_eq(order[0], 4);
        ck_assert_int_eq(order[4], 0);
        ck_assert_int_eq(loom_sim_options_parse(5, (char **)list, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(loom_sim_order_fill(&o, 4, order), 1);
        ck_assert_int_eq(order[0], 3);
        ck_assert_int_eq(order[1], 1);
        ck_assert_int_eq(order[2], 0);
        ck_assert_int_eq(order[3], 2);
        ck_assert_int_eq(loom_sim_options_parse(5, (char **)rnd, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(loom_sim_order_fill(&o, 6, order), 1);
        ck_assert_int_eq(loom_sim_order_fill(&o, 6, again), 1);
        for (k = 0; k < 6; ++k) {
            ck_assert_int_eq(order[k], again[k]);     /* the seed decides */
            seen |= 1 << order[k];
        }
        ck_assert_int_eq(seen, 0x3F);                 /* a permutation */
    }
    {
        /* -j: the cores online unless told, at most 4; told, as told. */
        const char *plain[] = { "loom-sim" }, *told[] = { "loom-sim", "-j", "7" };
        long cores = sysconf(_SC_NPROCESSORS_ONLN);

        ck_assert_int_eq(loom_sim_options_parse(1, (char **)plain, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(o.jobs, cores < 1 ? 1 : cores > 4 ? 4 : (int)cores);
        ck_assert_int_eq(loom_sim_options_parse(3, (char **)told, stderr, &o),
                         LOOM_SIM_PARSE_OK);
        ck_assert_int_eq(o.jobs, 7);
    }
}
END_TEST

/* Rank 0 sends a one-byte message to every other rank (fan_out) or
 * receives one from each, all posted at once. */
static loom_status_t fan_plan(const loom_coll_args_t *args, loom_team_t *team,
                              loom_sched_t **sched_p, int fan_out)
{
    int p = team->size, r = team->rank, q;
    char *buf = args->recvbuf;
    loom_sched_t *sched;
    loom_status_t status = loom_sched_create(team, args, 0, &sched);

    if (status != LOOM_OK) {
        return status;
    }
    for (q = 1; q < p; ++q) {
        if (r == 0 && fan_out) {
            loom_sched_send(sched, q, 0, buf, 1, LOOM_NO_DEPS);
        } else if (r == 0) {
            loom_sched_recv(sched, q, 0, buf + q, 1, LOOM_NO_DEPS);
        }
    }
    if (r != 0 && fan_out) {
        loom_sched_recv(sched, 0, 0, buf, 1, LOOM_NO_DEPS);
    } else if (r != 0) {
        loom_sched_send(sched, 0, 0, buf, 1, LOOM_NO_DEPS);
    }
    return loom_sched_plan_done(sched, sched_p);
}

static loom_status_t fan_out_plan(const loom_coll_args_t *args, loom_team_t *team,
                                  loom_sched_t **sched_p)
{
    return fan_plan(args, team, sched_p, 1);
}

static loom_status_t fan_in_plan(const loom_coll_args_t *args, loom_team_t *team,
                                 loom_sched_t **sched_p)
{
    return fan_plan(args, team, sched_p, 0);
}

/* The per-message CPU time is paid one message after another on the
 * rank that posts them, the latency once: p - 1 messages from or to one
 * rank end at (p - 1) o + a, all at once at a without it (the byte of
 * each takes 1e-18 s). */
START_TEST(test_sim_message_overhead)
{
    const double a = 3e-6, o = 0.5e-6;
    loom_sim_model_t m = one_class(a, 1e-18, 1e-9);
    int p;

    for (p = 2; p <= 9; p += 7) {
        m.overhead_us = 0;
        assert_close(sim_time(&m, p, fan_out_plan, 64, 0), a);
        assert_close(sim_time(&m, p, fan_in_plan, 64, 0), a);
        m.overhead_us = o * 1e6;
        assert_close(sim_time(&m, p, fan_out_plan, 64, 0), (p - 1) * o + a);
        assert_close(sim_time(&m, p, fan_in_plan, 64, 0), (p - 1) * o + a);
    }
}
END_TEST

static loom_sim_result_t sim_run_fresh(const loom_sim_model_t *m,
                                       const loom_sim_build_params_t *params)
{
    loom_sim_prog_t *prog;
    loom_sim_result_t res;

    ck_assert_int_eq(loom_sim_prog_build(params, &prog), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_run(prog, m, &res), LOOM_OK);
    loom_sim_prog_destroy(prog);
    return res;
}

static void assert_same_result(const loom_sim_result_t *a, const loom_sim_result_t *b)
{
    ck_assert_msg(a->time_s == b->time_s, "%.17g s against %.17g s", a->time_s, b->time_s);
    ck_assert_int_eq(a->steps, b->steps);
    ck_assert_int_eq(a->messages, b->messages);
    ck_assert(a->bytes_sent == b->bytes_sent);
}

/* One program rebuilt for algorithm after algorithm and size after size
 * (larger, then smaller: its arrays hold stale steps past the new end),
 * and run twice, gives what a fresh program gives, to the last bit. */
/* The layout's rank order reaches the simulated team: a chain bcast
 * over two nodes of four ranks crosses between them once in rank order,
 * at every hop when the order alternates the nodes, four flows sharing
 * each node's link, and takes longer. */
START_TEST(test_sim_rank_order)
{
    const int alternate[8] = { 0, 4, 1, 5, 2, 6, 3, 7 }, twice[8] = { 0, 1, 2, 3, 4, 5, 6, 6 };
    loom_sim_result_t res[2];
    loom_sim_layout_t *lay;
    loom_sim_prog_t *prog;
    loom_sim_model_t m;
    int k;

    loom_sim_model_default(&m);
    m.ranks_per_node = 4;
    m.nics_per_node = 1;            /* a node's ranks share its link */
    m.map = LOOM_SIM_MAP_CORE;
    ck_assert_int_eq(loom_sim_layout_create(&m, 8, &lay), LOOM_OK);
    ck_assert_int_eq(loom_sim_layout_set_order(lay, twice), LOOM_ERR_INVALID_PARAM);
    ck_assert_ptr_null(lay->order);
    for (k = 0; k < 2; ++k) {
        ck_assert_int_eq(loom_sim_layout_set_order(lay, k ? alternate : NULL), LOOM_OK);
        ck_assert_int_eq(loom_sim_prog_build(&(loom_sim_build_params_t){
                             .layout = lay, .plan = loom_bcast_chain_plan,
                             .bytes = 16 << 20, .seg_bytes = 256 << 10, .fold = 1 },
                             &prog), LOOM_OK);
        ck_assert_int_eq(loom_sim_prog_run(prog, &m, &res[k]), LOOM_OK);
        loom_sim_prog_destroy(prog);
    }
    ck_assert_msg(res[1].time_s > res[0].time_s * 1.2, "alternating nodes %.6g s, rank "
                  "order %.6g s", res[1].time_s, res[0].time_s);
    loom_sim_layout_destroy(lay);
}
END_TEST

START_TEST(test_sim_prog_reused)
{
    static const loom_allreduce_alg_t algs[] = { LOOM_ALLREDUCE_RING, LOOM_ALLREDUCE_HIER,
                                                 LOOM_ALLREDUCE_RABENSEIFNER,
                                                 LOOM_ALLREDUCE_DBTREE, LOOM_ALLREDUCE_RD };
    static const size_t sizes[] = { 4 << 20, 1000, 3 << 20 | 12, 64 << 10 };
    loom_sim_result_t fresh, reused;
    loom_sim_layout_t *lay;
    loom_sim_prog_t *prog;
    loom_sim_model_t m;
    size_t a, s;

    loom_sim_model_default(&m);
    m.map = LOOM_SIM_MAP_NODE;   /* every node link shared */
    m.ranks_per_node = 4;
    m.nodes_per_rack = 2;
    ck_assert_int_eq(loom_sim_layout_create(&m, 24, &lay), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_create(lay, &prog), LOOM_OK);
    for (a = 0; a < sizeof(algs) / sizeof(algs[0]); ++a) {
        for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
            loom_sim_build_params_t params = {
                .layout = lay, .plan = loom_allreduce_algorithms[algs[a]].plan,
                .bytes = sizes[s], .seg_bytes = 256 << 10, .in_place = (int)(s & 1),
            };

            fresh = sim_run_fresh(&m, &params);
            ck_assert_int_eq(loom_sim_prog_plan(prog, &params), LOOM_OK);
            ck_assert_int_eq(loom_sim_prog_run(prog, &m, &reused), LOOM_OK);
            assert_same_result(&fresh, &reused);
            ck_assert_int_eq(loom_sim_prog_run(prog, &m, &reused), LOOM_OK);
            assert_same_result(&fresh, &reused);
        }
    }
    loom_sim_prog_destroy(prog);
    loom_sim_layout_destroy(lay);
}
END_TEST

/* Each rank sends n then 2n bytes to its right and receives two messages
 * from its left, the second receive posted once the first is done; with
 * two tags, or (same_tag) one tag for both. */
static loom_status_t twice_plan(const loom_coll_args_t *args, loom_team_t *team,
                                loom_sched_t **sched_p, int same_tag)
{
    int p = team->size, r = team->rank, recv;
    size_t n = args->count * args->elem_size;
    loom_sched_t *sched;
    loom_status_t status = loom_sched_create(team, args, 0, &sched);

    if (status != LOOM_OK) {
        return status;
    }
    loom_sched_send(sched, (r + 1) % p, 1, args->recvbuf, n, LOOM_NO_DEPS);
    loom_sched_send(sched, (r + 1) % p, same_tag ? 1 : 2, args->recvbuf, 2 * n, LOOM_NO_DEPS);
    recv = loom_sched_recv(sched, (r + p - 1) % p, 1, args->recvbuf, n, LOOM_NO_DEPS);
    loom_sched_recv(sched, (r + p - 1) % p, same_tag ? 1 : 2, args->recvbuf, 2 * n,
                    LOOM_DEPS(recv));
    return loom_sched_plan_done(sched, sched_p);
}

static loom_status_t twice_two_tags_plan(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p)
{
    return twice_plan(args, team, sched_p, 0);
}

static loom_status_t twice_one_tag_plan(const loom_coll_args_t *args, loom_team_t *team,
                                        loom_sched_t **sched_p)
{
    return twice_plan(args, team, sched_p, 1);
}

/* Messages with two steps on a key paired when built; those sharing a
 * key left to meet by tag, first posted first matched; the same times. */
static long count_paired(const loom_sim_prog_t *prog)
{
    long s, n = 0;

    for (s = 0; s < prog->nsteps; ++s) {
        n += (prog->steps[s].flags & LOOM_SIM_STEP_PAIRED) != 0;
    }
    return n;
}

START_TEST(test_sim_pairing_matches_tags)
{
    loom_sim_prog_t *two, *one;
    loom_sim_result_t r2, r1;
    loom_sim_layout_t *lay;
    loom_sim_model_t m;
    const int p = 6;

    loom_sim_model_default(&m);
    m.ranks_per_node = 2;
    ck_assert_int_eq(loom_sim_layout_create(&m, p, &lay), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_build(&(loom_sim_build_params_t){
                         .layout = lay, .plan = twice_two_tags_plan, .bytes = 1 << 20 },
                         &two), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_build(&(loom_sim_build_params_t){
                         .layout = lay, .plan = twice_one_tag_plan, .bytes = 1 << 20 },
                         &one), LOOM_OK);
    ck_assert_int_eq(count_paired(two), 4 * p);
    ck_assert_int_eq(count_paired(one), 0);
    ck_assert_int_eq(loom_sim_prog_run(two, &m, &r2), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_run(one, &m, &r1), LOOM_OK);
    assert_same_result(&r2, &r1);
    ck_assert_int_eq(r2.messages, 2 * p);
    loom_sim_prog_destroy(two);
    loom_sim_prog_destroy(one);
    loom_sim_layout_destroy(lay);
}
END_TEST

/* Rank 0 sends two messages of n bytes to rank 1, which posts both
 * receives at once and then reduces 2n bytes once the first arrived. */
static loom_status_t two_in_a_row_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    size_t n = args->count * args->elem_size;
    loom_sched_t *sched;
    loom_status_t status = loom_sched_create(team, args, 0, &sched);
    int first;

    if (status != LOOM_OK) {
        return status;
    }
    if (team->rank == 0) {
        loom_sched_send(sched, 1, 1, args->recvbuf, n, LOOM_NO_DEPS);
        loom_sched_send(sched, 1, 2, args->recvbuf, n, LOOM_NO_DEPS);
    } else {
        first = loom_sched_recv(sched, 0, 1, args->recvbuf, n, LOOM_NO_DEPS);
        loom_sched_recv(sched, 0, 2, args->recvbuf, n, LOOM_NO_DEPS);
        loom_sched_reduce(sched, args->recvbuf, args->recvbuf, 2 * n, LOOM_DEPS(first));
    }
    return loom_sched_plan_done(sched, sched_p);
}

/* Messages on one connection move one after another, as on one TCP
 * stream: the first arrives after n b, not after 2 n b as it would if the
 * two shared the link, so the reduction waiting for it ends at
 * n b + a + 2 n g rather than 2 n b + a + 2 n g. */
START_TEST(test_sim_connection_in_order)
{
    const double a = 5e-6, b = 1 / 1e9, g = 1 / 1e9, n = 1 << 20;
    loom_sim_model_t m = one_class(a, b, g);

    assert_close(sim_time(&m, 2, two_in_a_row_plan, (size_t)n, 0), n * b + a + 2 * n * g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("sim");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sim_ring_closed_form);
    tcase_add_test(tc, test_sim_rabenseifner_pow2);
    tcase_add_test(tc, test_sim_collectives_closed_form);
    tcase_add_test(tc, test_sim_uplink_contention);
    tcase_add_test(tc, test_sim_calibrate_recovers);
    tcase_add_test(tc, test_sim_options_rejected);
    tcase_add_test(tc, test_sim_prog_reused);
    tcase_add_test(tc, test_sim_rank_order);
    tcase_add_test(tc, test_sim_message_overhead);
    tcase_add_test(tc, test_sim_connection_in_order);
    tcase_add_test(tc, test_sim_pairing_matches_tags);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
