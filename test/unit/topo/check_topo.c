/* The topology layer: host lists, topology.conf and JSON files (good and
 * malformed, with the exact messages), dump and load back, traffic
 * matrices and placement, hwloc's view of the calling thread. */
#include "topo/hostlist.h"
#include "topo/topo.h"
#include "topo/traffic.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LOOM_TEST_TOPO_DIR
#error "LOOM_TEST_TOPO_DIR names the fixtures' directory (test/topo)"
#endif

static loom_topo_t *load_fixture(const char *file)
{
    char path[1024];
    loom_topo_t *topo = NULL;
    loom_topo_error_t err = { 0 };

    snprintf(path, sizeof(path), "%s/%s", LOOM_TEST_TOPO_DIR, file);
    loom_status_t st = loom_topo_load(path, &topo, &err);
    ck_assert_msg(st == LOOM_OK, "%s: %s", file, err.msg);
    return topo;
}

static size_t node(const loom_topo_t *topo, const char *name)
{
    size_t n = loom_topo_node_find(topo, name);
    ck_assert_msg(n != LOOM_TOPO_NONE, "node %s missing", name);
    return n;
}

static const char *rack_of(const loom_topo_t *topo, const char *name)
{
    size_t sw = topo->nodes[node(topo, name)].sw;
    return sw == LOOM_TOPO_NONE ? "(none)" : topo->switches[sw].name;
}

static const char *parent_of(const loom_topo_t *topo, const char *name)
{
    size_t s = loom_topo_switch_find(topo, name);
    ck_assert(s != LOOM_TOPO_NONE);
    size_t p = topo->switches[s].parent;
    return p == LOOM_TOPO_NONE ? "(none)" : topo->switches[p].name;
}

/* ------------------------------------------------------------ host lists */

static void expect_hosts(const char *expr, const char *joined)
{
    char **names, why[300], buf[1024] = "";
    size_t count;

    ck_assert_msg(loom_hostlist_expand(expr, &names, &count, why, sizeof(why)) == LOOM_OK,
                  "%s: %s", expr, why);
    for (size_t i = 0; i < count; i++) {
        strcat(buf, i ? " " : "");
        strcat(buf, names[i]);
    }
    loom_hostlist_free(names, count);
    ck_assert_str_eq(buf, joined);
}

START_TEST(test_hostlist_expand)
{
    expect_hosts("node[0-3,7],gpu[01-02],login",
                 "node0 node1 node2 node3 node7 gpu01 gpu02 login");
    expect_hosts("n[8-10]x", "n8x n9x n10x");
    expect_hosts("a", "a");
    expect_hosts("r[098-101]", "r098 r099 r100 r101");
    expect_hosts("s[1]", "s1");
}
END_TEST

static const struct {
    const char *expr, *why;
} bad_hostlists[] = {
    { "node[0-3", "expected ']' to close the '[' at column 5 of 'node[0-3'" },
    { "node[3-1]", "range 3-1 in 'node[3-1]' goes down; expected LOW-HIGH with LOW <= HIGH" },
    { "node[a]", "expected a number or a range such as 0-3 inside [] at column 6 of "
                 "'node[a]', found 'a'" },
    { "a,,b", "expected a host name at column 3 of 'a,,b', found ','" },
    { "a,", "expected a host name at column 3 of 'a,', found the end" },
    { "n[0-1][2]", "only one [ranges] group per host name is accepted, found a second '[' "
                   "at column 7 of 'n[0-1][2]'" },
    { "n[0-999999]", "'n[0-999999]' names more than 100000 hosts; expected a smaller range" },
    { "n$", "unexpected character '$' at column 2 of 'n$'; host names use letters, "
            "digits, '.', '-' and '_', with one [ranges] group such as node[0-3,7]" },
    { "n[]", "expected a number or a range such as 0-3 inside the [] at column 2 of 'n[]'" },
    { "n[1,]", "expected a number after ',' at column 5 of 'n[1,]'" },
    { "n[1-]", "expected a number after '-' at column 5 of 'n[1-]'" },
    { "n[1-2x]", "expected ',' or ']' at column 6 of 'n[1-2x]', found 'x'" },
};

START_TEST(test_hostlist_errors)
{
    char **names = NULL, why[300];
    size_t count = 0;

    for (size_t i = 0; i < sizeof(bad_hostlists) / sizeof(bad_hostlists[0]); i++) {
        why[0] = '\0';
        ck_assert_int_eq(loom_hostlist_expand(bad_hostlists[i].expr, &names, &count, why,
                                              sizeof(why)), LOOM_ERR_INVALID_PARAM);
        ck_assert_str_eq(why, bad_hostlists[i].why);
    }
}
END_TEST

/* ------------------------------------------------------ topology.conf */

START_TEST(test_slurm_two_racks)
{
    loom_topo_t *topo = load_fixture("two_racks.conf");

    ck_assert_uint_eq(topo->nswitches, 3);
    ck_assert_uint_eq(topo->nnodes, 4);
    ck_assert_uint_eq(topo->nranks, 0);
    ck_assert_str_eq(topo->nodes[0].name, "node0");
    ck_assert_str_eq(topo->nodes[3].name, "node3");
    ck_assert_str_eq(rack_of(topo, "node1"), "rack0");
    ck_assert_str_eq(rack_of(topo, "node2"), "rack1");
    ck_assert_str_eq(parent_of(topo, "rack0"), "spine");
    ck_assert_str_eq(parent_of(topo, "spine"), "(none)");
    ck_assert_int_eq(loom_topo_node_level(topo, 0, 0), LOOM_TOPO_LEVEL_NODE);
    ck_assert_int_eq(loom_topo_node_level(topo, 0, 1), LOOM_TOPO_LEVEL_RACK);
    ck_assert_int_eq(loom_topo_node_level(topo, 1, 2), LOOM_TOPO_LEVEL_SPINE);
    ck_assert_uint_eq(loom_topo_rack_count(topo), 2);
    loom_topo_destroy(topo);
}
END_TEST

START_TEST(test_slurm_three_levels_uneven)
{
    loom_topo_t *topo = load_fixture("three_levels.conf");

    ck_assert_uint_eq(topo->nswitches, 7);
    ck_assert_uint_eq(topo->nnodes, 8);
    /* Nodes in line order: leaf00's three, leaf01's one, then the rest. */
    ck_assert_str_eq(topo->nodes[0].name, "gpu001");
    ck_assert_str_eq(topo->nodes[2].name, "gpu003");
    ck_assert_str_eq(topo->nodes[3].name, "gpu004");
    ck_assert_str_eq(topo->nodes[7].name, "x2");
    ck_assert_str_eq(rack_of(topo, "gpu003"), "leaf00");
    ck_assert_str_eq(rack_of(topo, "cpu9"), "leaf02");
    ck_assert_str_eq(parent_of(topo, "leaf01"), "pod0");
    ck_assert_str_eq(parent_of(topo, "leaf03"), "pod1");
    ck_assert_str_eq(parent_of(topo, "pod1"), "top");
    ck_assert_int_eq(loom_topo_node_level(topo, node(topo, "gpu001"), node(topo, "gpu003")),
                     LOOM_TOPO_LEVEL_RACK);
    ck_assert_int_eq(loom_topo_node_level(topo, node(topo, "gpu001"), node(topo, "gpu004")),
                     LOOM_TOPO_LEVEL_SPINE);
    ck_assert_int_eq(loom_topo_node_level(topo, node(topo, "x1"), node(topo, "x2")),
                     LOOM_TOPO_LEVEL_RACK);
    ck_assert_uint_eq(loom_topo_rack_count(topo), 4);
    loom_topo_destroy(topo);
}
END_TEST

static const struct {
    const char *text, *msg;
    unsigned line;
} bad_slurm[] = {
    { "SwitchName=a Nodes=n0\nFoo=1\n",
      "t.conf:2: unknown key 'Foo'; expected SwitchName=, Nodes=, Switches= or LinkSpeed=", 2 },
    { "SwitchName=a Nodes\n",
      "t.conf:1: expected KEY=VALUE (SwitchName=, Nodes=, Switches= or LinkSpeed=), "
      "found 'Nodes'", 1 },
    { "# first\n\nNodes=n0\n",
      "t.conf:3: expected SwitchName= on every line that is not blank or a comment", 3 },
    { "SwitchName=a Nodes=\n", "t.conf:1: expected a value after 'Nodes='", 1 },
    { "SwitchName=a Nodes=n0 nodes=n1\n",
      "t.conf:1: 'nodes=' is given twice; expected it once per line", 1 },
    { "SwitchName=a Nodes=n0 Switches=b\n",
      "t.conf:1: switch 'a' has both Nodes= and Switches=; expected one of them", 1 },
    { "SwitchName=a Nodes=n0\nSwitchName=a Nodes=n1\n",
      "t.conf:2: switch 'a' is declared twice; expected each switch name once", 2 },
    { "SwitchName=a Nodes=n[0-1]\nSwitchName=b Nodes=n1\n",
      "t.conf:2: node 'n1' is already under switch 'a'; expected each node under one "
      "switch", 2 },
    { "SwitchName=top Switches=x\n",
      "t.conf:1: switch 'x' is not declared; expected the name of a switch the file "
      "declares", 1 },
    { "SwitchName=a Switches=b\nSwitchName=b Switches=a\n",
      "t.conf:2: switch 'a' would be above itself; expected switches to form a tree", 2 },
    { "SwitchName=l Nodes=n0\nSwitchName=p Switches=l\nSwitchName=q Switches=l\n",
      "t.conf:3: switch 'l' is already under switch 'p'; expected each switch under one "
      "parent", 3 },
    { "# nothing\n\n",
      "t.conf: no switches; expected lines such as 'SwitchName=s0 Nodes=node[0-3]'", 0 },
    { "SwitchName=a Nodes=n[1-0]\n",
      "t.conf:1: range 1-0 in 'n[1-0]' goes down; expected LOW-HIGH with LOW <= HIGH", 1 },
    { "SwitchName=a/b Nodes=n0\n",
      "t.conf:1: switch name 'a/b' has the character '/'; expected letters, digits, '.', "
      "'-' and '_'", 1 },
};

START_TEST(test_slurm_errors)
{
    for (size_t i = 0; i < sizeof(bad_slurm) / sizeof(bad_slurm[0]); i++) {
        loom_topo_t *topo = (loom_topo_t *)&topo;   /* must stay untouched */
        loom_topo_error_t err = { 0 };
        ck_assert_int_eq(loom_topo_parse(bad_slurm[i].text, "t.conf", &topo, &err),
                         LOOM_ERR_INVALID_PARAM);
        ck_assert_ptr_eq(topo, (loom_topo_t *)&topo);
        ck_assert_str_eq(err.msg, bad_slurm[i].msg);
        ck_assert_uint_eq(err.line, bad_slurm[i].line);
    }
}
END_TEST

/* -------------------------------------------------------------- JSON */

START_TEST(test_json_uneven)
{
    loom_topo_t *topo = load_fixture("uneven.json");

    ck_assert_uint_eq(topo->nswitches, 3);
    ck_assert_uint_eq(topo->nnodes, 4);
    ck_assert_uint_eq(topo->nranks, 7);
    ck_assert_uint_eq(topo->nodes[2].slots, 2);
    ck_assert_uint_eq(topo->nodes[3].slots, 1);
    ck_assert_str_eq(rack_of(topo, "node3"), "rack1");
    ck_assert_str_eq(parent_of(topo, "rack1"), "spine");
    ck_assert_double_eq(topo->links[LOOM_TOPO_LEVEL_NODE].bandwidth_gbps, 22.4);
    ck_assert_double_eq(topo->links[LOOM_TOPO_LEVEL_RACK].latency_us, 20);
    ck_assert_double_eq(topo->links[LOOM_TOPO_LEVEL_SPINE].bandwidth_gbps, 0.3);
    ck_assert_double_eq(topo->links[LOOM_TOPO_LEVEL_SPINE].latency_us, 0);
    ck_assert_uint_eq(topo->ranks[1].node, 0);
    ck_assert_int_eq(topo->ranks[1].numa, 1);
    ck_assert_int_eq(topo->ranks[1].socket, 1);
    ck_assert_int_eq(topo->ranks[2].numa, -1);
    ck_assert_uint_eq(topo->ranks[6].node, 3);
    ck_assert_int_eq(topo->ranks[6].socket, 0);
    ck_assert_int_eq(loom_topo_rank_level(topo, 0, 1), LOOM_TOPO_LEVEL_NODE);
    ck_assert_int_eq(loom_topo_rank_level(topo, 1, 3), LOOM_TOPO_LEVEL_RACK);
    ck_assert_int_eq(loom_topo_rank_level(topo, 3, 6), LOOM_TOPO_LEVEL_SPINE);
    loom_topo_destroy(topo);
}
END_TEST

START_TEST(test_json_flat)
{
    loom_topo_t *topo = NULL;
    loom_topo_error_t err = { 0 };

    /* Nodes under no switch share one implicit rack. */
    ck_assert_int_eq(loom_topo_parse("  {\"loom_topology\": 1, \"nodes\": "
                                     "[{\"name\": \"h[1-3]\"}]}", "f.json", &topo, &err),
                     LOOM_OK);
    ck_assert_uint_eq(topo->nnodes, 3);
    ck_assert_uint_eq(topo->nodes[0].slots, 0);
    ck_assert_int_eq(loom_topo_node_level(topo, 0, 2), LOOM_TOPO_LEVEL_RACK);
    ck_assert_uint_eq(loom_topo_rack_count(topo), 1);
    loom_topo_destroy(topo);
    /* A latency of 0 is a value (no added delay), not an error. */
    ck_assert_int_eq(loom_topo_parse_json("{\"loom_topology\": 1, \"nodes\": [{\"name\": "
                                          "\"h\"}], \"links\": {\"node\": {\"latency_us\": 0}}}",
                                          "f.json", &topo, &err), LOOM_OK);
    ck_assert_double_eq(topo->links[LOOM_TOPO_LEVEL_NODE].latency_us, 0);
    loom_topo_destroy(topo);
}
END_TEST

#define J(body) "{\"loom_topology\": 1, " body "}"

static const struct {
    const char *text, *msg;
    unsigned line;
} bad_json[] = {
    { "{\n  \"loom_topology\": 1,\n}\n",
      "t.json:3: column 1: invalid JSON: string or '}' expected near '}'", 3 },
    { "{\"loom_topology\": 1, \"loom_topology\": 1}",
      "t.json:1: column 36: invalid JSON: duplicate object key near '\"loom_topology\"'", 1 },
    { "[]", "t.json: expected a JSON object at the top, found an array", 0 },
    { "{}", "t.json: \"loom_topology\": expected the format version 1, found nothing", 0 },
    { "{\"loom_topology\": 2}",
      "t.json: \"loom_topology\": expected the format version 1, found another version", 0 },
    { "{\"loom_topology\": \"1\"}",
      "t.json: \"loom_topology\": expected the format version 1, found a string", 0 },
    { J("\"racks\": []"),
      "t.json: unknown key \"racks\"; expected \"loom_topology\", \"links\", \"nodes\", "
      "\"switches\" or \"ranks\"", 0 },
    { J("\"links\": {\"core\": {}}"),
      "t.json: links: unknown key \"core\"; expected \"node\", \"rack\" or \"spine\"", 0 },
    { J("\"links\": {\"rack\": {\"bandwidth_gbps\": -1}}"),
      "t.json: links.rack: \"bandwidth_gbps\": expected a number > 0, found a value out "
      "of range", 0 },
    { J("\"links\": {\"node\": {\"bandwidth_gbps\": 0}}"),
      "t.json: links.node: \"bandwidth_gbps\": expected a number > 0, found a value out "
      "of range", 0 },
    { J("\"links\": {\"rack\": {\"latency_us\": \"20\"}}"),
      "t.json: links.rack: \"latency_us\": expected a number >= 0, found a string", 0 },
    { J("\"links\": {\"spine\": {\"bw\": 1}}"),
      "t.json: links.spine: unknown key \"bw\"; expected \"bandwidth_gbps\" or "
      "\"latency_us\"", 0 },
    { J("\"links\": []"),
      "t.json: links: expected an object with \"node\", \"rack\" and/or \"spine\", found "
      "an array", 0 },
    { J("\"switches\": [{\"name\": \"s\", \"nodes\": 5}]"),
      "t.json: switches[0].nodes: expected a host list string such as \"node[0-3]\" or an "
      "array of them, found an integer", 0 },
    { J("\"switches\": [{\"name\": \"s\", \"nodes\": [\"a\", 1]}]"),
      "t.json: switches[0].nodes: element 1: expected a string, found an integer", 0 },
    { J("\"switches\": [{\"nodes\": \"a\"}]"),
      "t.json: switches[0]: \"name\": expected a switch name, found nothing", 0 },
    { J("\"switches\": [{\"name\": \"s\", \"nodes\": \"a\", \"switches\": \"t\"}]"),
      "t.json: switches[0]: switch 's' has both \"nodes\" and \"switches\"; expected one of "
      "them", 0 },
    { J("\"switches\": [{\"name\": \"s\", \"nodes\": \"a\"}, {\"name\": \"p\", "
        "\"switches\": \"q\"}]"),
      "t.json: switches[1].switches: switch 'q' is not declared; expected the name of a "
      "switch the file declares", 0 },
    { J("\"switches\": [{\"name\": \"s\", \"nodes\": \"a[0-2\"}]"),
      "t.json: switches[0].nodes: expected ']' to close the '[' at column 2 of 'a[0-2'", 0 },
    { J("\"nodes\": [{\"name\": \"a\", \"slots\": 0}]"),
      "t.json: nodes[0]: \"slots\": expected an integer from 1 to 1000000", 0 },
    { J("\"nodes\": [{\"name\": \"a[0-1]\"}, {\"name\": \"a1\"}]"),
      "t.json: nodes[1]: node 'a1' is listed twice; expected each node once", 0 },
    { J("\"nodes\": [{\"name\": \"a\"}], \"ranks\": [{\"node\": \"a\"}, {\"node\": \"zz\"}]"),
      "t.json: ranks[1]: node 'zz' is not declared; expected a node of \"nodes\" or of a "
      "switch", 0 },
    { J("\"nodes\": [{\"name\": \"a\"}], \"ranks\": [{\"node\": \"a\", \"numa\": -1}]"),
      "t.json: ranks[0]: \"numa\": expected an integer from 0 to 65535", 0 },
    { J("\"nodes\": [{\"name\": \"a\"}], \"ranks\": {}"),
      "t.json: ranks: expected an array of {\"node\", \"numa\", \"socket\"} objects, one "
      "per rank, found an object", 0 },
    { "{\"loom_topology\": 1}",
      "t.json: no nodes; expected \"switches\" with \"nodes\", or \"nodes\"", 0 },
};

START_TEST(test_json_errors)
{
    for (size_t i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++) {
        loom_topo_t *topo = (loom_topo_t *)&topo;
        loom_topo_error_t err = { 0 };
        ck_assert_int_eq(loom_topo_parse_json(bad_json[i].text, "t.json", &topo, &err),
                         LOOM_ERR_INVALID_PARAM);
        ck_assert_ptr_eq(topo, (loom_topo_t *)&topo);
        ck_assert_str_eq(err.msg, bad_json[i].msg);
        ck_assert_uint_eq(err.line, bad_json[i].line);
    }
}
END_TEST

/* ------------------------------------------------- dump and load back */

static char *dump(const loom_topo_t *topo)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(loom_topo_dump_json(topo, mem), LOOM_OK);
    fclose(mem);
    return text;
}

START_TEST(test_round_trip)
{
    static const char *const files[] = { "two_racks.conf", "three_levels.conf",
                                         "uneven.json" };
    const char *file = files[_i];
    loom_topo_t *topo = load_fixture(file), *back = NULL;
    loom_topo_error_t err = { 0 };
    char *text = dump(topo);

    ck_assert_msg(loom_topo_parse(text, "dump", &back, &err) == LOOM_OK, "%s: %s\n%s",
                  file, err.msg, text);
    ck_assert_msg(loom_topo_equal(topo, back), "%s: loaded back different:\n%s", file, text);
    char *again = dump(back);
    ck_assert_str_eq(again, text);
    free(again);
    free(text);
    loom_topo_destroy(back);
    loom_topo_destroy(topo);
}
END_TEST

START_TEST(test_equal_sees_differences)
{
    loom_topo_t *a = load_fixture("uneven.json"), *b = load_fixture("uneven.json");

    ck_assert(loom_topo_equal(a, b));
    b->ranks[4].socket = 1;
    ck_assert(!loom_topo_equal(a, b));
    b->ranks[4].socket = -1;
    b->links[LOOM_TOPO_LEVEL_SPINE].latency_us = 1;
    ck_assert(!loom_topo_equal(a, b));
    loom_topo_destroy(a);
    loom_topo_destroy(b);
}
END_TEST

/* ------------------------------------------------------ loading files */

START_TEST(test_load_errors)
{
    loom_topo_t *topo = NULL;
    loom_topo_error_t err = { 0 };
    char path[1024];

    ck_assert_int_eq(loom_topo_load("/nonexistent/topo.conf", &topo, &err),
                     LOOM_ERR_NOT_FOUND);
    ck_assert_str_eq(err.msg, "/nonexistent/topo.conf: cannot open: No such file or "
                     "directory; expected a readable topology.conf or Loom topology file "
                     "(JSON)");
    snprintf(path, sizeof(path), "%s/bad_range.conf", LOOM_TEST_TOPO_DIR);
    ck_assert_int_eq(loom_topo_load(path, &topo, &err), LOOM_ERR_INVALID_PARAM);
    ck_assert_ptr_null(topo);
    ck_assert_uint_eq(err.line, 3);
    ck_assert_ptr_nonnull(strstr(err.msg, "/bad_range.conf:3: range 5-2 in 'node[5-2]' "
                                 "goes down; expected LOW-HIGH with LOW <= HIGH"));
}
END_TEST

/* Every prefix of a good file either parses or gets a message: never a
 * crash (run under the sanitizer build too). */
START_TEST(test_truncated_never_crash)
{
    static const char *const files[] = { "uneven.json", "three_levels.conf" };
    char path[1024], text[8192];

    snprintf(path, sizeof(path), "%s/%s", LOOM_TEST_TOPO_DIR, files[_i]);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    for (size_t cut = 0; cut <= len; cut++) {
        char saved = text[cut];
        loom_topo_t *topo = NULL;
        loom_topo_error_t err = { 0 };
        text[cut] = '\0';
        loom_status_t st = loom_topo_parse(text, files[_i], &topo, &err);
        text[cut] = saved;
        if (st == LOOM_OK) {
            loom_topo_destroy(topo);
        } else {
            ck_assert_int_eq(st, LOOM_ERR_INVALID_PARAM);
            ck_assert_msg(strncmp(err.msg, files[_i], strlen(files[_i])) == 0,
                          "cut %zu: '%s'", cut, err.msg);
        }
    }
}
END_TEST

/* ------------------------------------------------- traffic, placement */

START_TEST(test_traffic_parse)
{
    loom_traffic_t *t = NULL;
    loom_topo_error_t err = { 0 };

    ck_assert_int_eq(loom_traffic_parse("# bytes\n0, 5\n7 0  # two ranks\n\n", "m", &t, &err),
                     LOOM_OK);
    ck_assert_uint_eq(t->n, 2);
    ck_assert_double_eq(t->bytes[1], 5);
    ck_assert_double_eq(t->bytes[2], 7);
    loom_traffic_destroy(t);

    static const struct { const char *text, *msg; } bad[] = {
        { "0 1\n1 x\n", "m:2: column 2: expected a number of bytes, found 'x'" },
        { "0 -1\n1 0\n", "m:1: column 2: expected a finite number of bytes >= 0, found '-1'" },
        { "0 1\n1 0 3\n", "m:2: row 2 has 3 numbers; expected 2, one per rank as in the "
                          "first row" },
        { "0 1\n1 0\n1 1\n", "m:3: row 3; expected 2 rows, one per rank (the first row has "
                             "2 numbers)" },
        { "0 1 2\n1 0 2\n", "m:3: 2 rows; expected 3, one per rank (the first row has 3 "
                            "numbers)" },
        { "# empty\n", "m: no rows; expected one row of bytes per rank" },
        { "1 inf\n0 0\n", "m:1: column 2: expected a finite number of bytes >= 0, found "
                          "'inf'" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        t = NULL;
        ck_assert_int_eq(loom_traffic_parse(bad[i].text, "m", &t, &err),
                         LOOM_ERR_INVALID_PARAM);
        ck_assert_ptr_null(t);
        ck_assert_str_eq(err.msg, bad[i].msg);
    }
}
END_TEST

START_TEST(test_placement_ring8)
{
    loom_topo_t *topo = load_fixture("two_racks.conf");
    loom_traffic_t *t = NULL;
    loom_topo_error_t err = { 0 };
    char path[1024];
    size_t before[8], after[8], per_node[4] = { 0 };
    double b[LOOM_TOPO_LEVEL_COUNT], a[LOOM_TOPO_LEVEL_COUNT];

    snprintf(path, sizeof(path), "%s/ring8.traffic", LOOM_TEST_TOPO_DIR);
    ck_assert_msg(loom_traffic_load(path, &t, &err) == LOOM_OK, "%s", err.msg);
    ck_assert_int_eq(loom_topo_place_block(topo, 8, 1, before), LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_topo_place_block(topo, 8, 2, before), LOOM_OK);
    ck_assert_uint_eq(before[0], 0);
    ck_assert_uint_eq(before[7], 3);
    loom_traffic_level_bytes(topo, t, before, b);
    /* Block placement: every 1000-byte pair (i, i+4) crosses the racks. */
    ck_assert_double_eq(b[LOOM_TOPO_LEVEL_NODE], 8);
    ck_assert_double_eq(b[LOOM_TOPO_LEVEL_RACK], 4);
    ck_assert_double_eq(b[LOOM_TOPO_LEVEL_SPINE], 8002);
    ck_assert_int_eq(loom_topo_place_greedy(topo, t, 2, after), LOOM_OK);
    for (size_t r = 0; r < 8; r++) {
        per_node[after[r]]++;
    }
    for (size_t m = 0; m < 4; m++) {
        ck_assert_uint_eq(per_node[m], 2);
    }
    for (size_t r = 0; r < 4; r++) {
        ck_assert_uint_eq(after[r], after[r + 4]);
    }
    loom_traffic_level_bytes(topo, t, after, a);
    ck_assert_double_eq(a[LOOM_TOPO_LEVEL_NODE], 8000);
    ck_assert_double_le(a[LOOM_TOPO_LEVEL_SPINE], 8);
    ck_assert_double_eq(a[0] + a[1] + a[2], 8014);
    ck_assert(loom_traffic_better(a, b));
    ck_assert(!loom_traffic_better(b, a));
    ck_assert(!loom_traffic_better(a, a));
    loom_traffic_destroy(t);
    loom_topo_destroy(topo);
}
END_TEST

START_TEST(test_placement_uneven_slots)
{
    /* uneven.json: slots 2, 2, 2, 1; 7 ranks fill it, 8 do not fit. */
    loom_topo_t *topo = load_fixture("uneven.json");
    loom_traffic_t *t = NULL;
    loom_topo_error_t err = { 0 };
    size_t where[8], count[4] = { 0 };

    ck_assert_int_eq(loom_traffic_parse("0 0 0 0 0 0 9\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n"
                                        "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n"
                                        "9 0 0 0 0 0 0\n", "m", &t, &err), LOOM_OK);
    ck_assert_int_eq(loom_topo_place_greedy(topo, t, 0, where), LOOM_OK);
    for (size_t r = 0; r < 7; r++) {
        count[where[r]]++;
    }
    ck_assert_uint_eq(count[0], 2);
    ck_assert_uint_eq(count[3], 1);
    ck_assert_uint_eq(where[0], where[6]);
    loom_traffic_destroy(t);
    ck_assert_int_eq(loom_traffic_parse("0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0\n"
                                        "0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0\n"
                                        "0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0\n"
                                        "0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0\n", "m", &t, &err),
                     LOOM_OK);
    ck_assert_int_eq(loom_topo_place_greedy(topo, t, 0, where), LOOM_ERR_INVALID_PARAM);
    loom_traffic_destroy(t);
    loom_topo_destroy(topo);
}
END_TEST

/* ---------------------------------------------------------------- hwloc */

START_TEST(test_local_place)
{
    int numa = -2, socket = -2;

    ck_assert_int_eq(loom_topo_local_place(&numa, &socket), LOOM_OK);
    /* Every machine hwloc sees has a NUMA node and a package. */
    ck_assert_int_ge(numa, 0);
    ck_assert_int_ge(socket, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topo");
    TCase *tc = tcase_create("topo");

    tcase_add_test(tc, test_hostlist_expand);
    tcase_add_test(tc, test_hostlist_errors);
    tcase_add_test(tc, test_slurm_two_racks);
    tcase_add_test(tc, test_slurm_three_levels_uneven);
    tcase_add_test(tc, test_slurm_errors);
    tcase_add_test(tc, test_json_uneven);
    tcase_add_test(tc, test_json_flat);
    tcase_add_test(tc, test_json_errors);
    tcase_add_loop_test(tc, test_round_trip, 0, 3);
    tcase_add_test(tc, test_equal_sees_differences);
    tcase_add_test(tc, test_load_errors);
    tcase_add_loop_test(tc, test_truncated_never_crash, 0, 2);
    tcase_add_test(tc, test_traffic_parse);
    tcase_add_test(tc, test_placement_ring8);
    tcase_add_test(tc, test_placement_uneven_slots);
    tcase_add_test(tc, test_local_place);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
