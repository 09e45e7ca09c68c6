#!/usr/bin/env python3
"""Checks a libloom-pmpi profile of test/pmpi/pmpi_prog against what the
program did (test_pmpi_*.sh run it).

    check_profile.py --prefix P --stdout OUT --np N --iters I [--late R] [--alg yes|no] [--churn]
    check_profile.py --prefix P --np N [--expect FN[@PER_CALL]:CALLS:BYTES ...] [--called FN ...]

The second form is for other programs (the examples, hpcc): P.json must
validate, have N ranks and P.traffic be its two matrices added; --expect:
FN's calls and bytes summed over its sites and ranks (with @PER_CALL, over
its sites whose every call moved PER_CALL bytes) are exactly these;
--called: FN was called and took time.

P.json must validate against pmpi/profile.schema.json; the calls and bytes
per function must equal both the program's own tally (its stdout) and the
formulas below, written from pmpi_prog.c's parameters independently of it;
the point-to-point matrix must be the program's ring; P.traffic must be the
JSON's point-to-point plus collective matrices.  --late R: rank R is first
in late_ranks and the last arrival of the slowed allreduce site, in the JSON
and in P.txt.  --alg yes/no: every allreduce site of more than one rank names
Loom's algorithm, or no site names one.
"""
import argparse
import json
import os
import sys

import jsonschema

N_BIG, N_SMALL, N_BCAST, N_A2A, N_IALL, N_IBCAST, RING_UNIT = 1024, 16, 256, 8, 64, 128, 100
CHURN_COMMS = 600
N_NB = 4


def expected(p, i, churn):
    """Calls and bytes per function, summed over ranks (docs/pmpi.md's rules)."""
    return {
        "MPI_Allreduce": (4 * i * p, 2 * i * p * (N_BIG * 8 + N_SMALL * 4)),
        "MPI_Bcast": (i * p, i * p * N_BCAST * 4),
        "MPI_Alltoall": (i * p, i * p * N_A2A * 4 * p),
        "MPI_Allgatherv": (i * p, i * sum(4 * (r + 1) for r in range(p))),
        "MPI_Iallreduce": (i * p, i * p * N_IALL * 8),
        "MPI_Ibcast": ((i + 1) * p, i * p * N_IBCAST + 4 * p),     # + prog_order's
        "MPI_Barrier": ((i + 1 + (CHURN_COMMS if churn else 0)) * p, 0),
        "MPI_Reduce": (p, 8 * p),
        # completed through Waitall/Testall, Waitany, Testsome, Testany: a
        # nonblocking call counts when its completion is seen
        "MPI_Iallgather": (i * p, i * p * N_NB * 4),
        "MPI_Ialltoall": (i * p, i * p * 4 * p),
        "MPI_Ireduce": (i * p, i * p * N_NB * 8),
        "MPI_Ibarrier": (i * p, 0),
        "MPI_Iscan": (i * p, i * p * N_NB * 4),
        "MPI_Ireduce_scatter_block": (i * p, i * p * N_NB * 4 * p),
        "MPI_Isend": (i * p, i * sum(RING_UNIT * (r + 1) for r in range(p))),
        "MPI_Recv": (i * p, i * sum(RING_UNIT * ((r - 1) % p + 1) for r in range(p))),
    }


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check_counts(prof, out_lines, p, i, churn):
    want = expected(p, i, churn)
    tally = {}
    for line in out_lines:
        w = line.split()
        if w and w[0] == "tally":
            tally[w[1]] = (int(w[3]), int(w[5]))
    got = {}
    for s in prof["sites"]:
        c, b = got.get(s["function"], (0, 0))
        got[s["function"]] = (c + s["calls"], b + s["bytes"])
        if sum(r["calls"] for r in s["ranks"]) != s["calls"]:
            fail("%s: per-rank calls do not add up" % s["function"])
        t = s["time"]
        if s["calls"] and not t["min_s"] <= t["median_s"] <= t["max_s"] <= t["total_s"] + 1e-9:
            fail("%s: min, median, max, total out of order: %s" % (s["function"], t))
        if sum(b["count"] for b in t["histogram"]["bins"]) != s["calls"]:
            fail("%s: the time histogram does not hold every call" % s["function"])
    for fn, (calls, nbytes) in tally.items():
        if want.get(fn) != (calls, nbytes):
            fail("the program's tally of %s %s disagrees with the formula %s" % (fn, (calls, nbytes), want.get(fn)))
    for fn, v in want.items():
        if got.get(fn) != v:
            fail("%s: profile says calls, bytes = %s, the program did %s" % (fn, got.get(fn), v))
    print("counts and bytes of %d functions match" % len(want))


def check_traffic(prof, prefix, p, i):
    p2p = prof["traffic"]["p2p"]
    for r in range(p):
        for c in range(p):
            want = i * RING_UNIT * (r + 1) if c == (r + 1) % p else 0
            if p2p[r][c] != want:
                fail("p2p[%d][%d] = %d, the ring sent %d" % (r, c, p2p[r][c], want))
    check_traffic_file(prof, prefix, p)
    coll = prof["traffic"]["collectives"]
    if p > 1 and sum(map(sum, coll)) == 0:
        fail("the collectives moved no bytes in the traffic matrix")
    want = expected_collective_traffic(prof, p, i)
    if coll != want:
        fail("collective traffic %s, docs/pmpi.md's table gives %s" % (coll, want))
    print("traffic: collectives spread as docs/pmpi.md says for %s" %
          (sorted(set(s["algorithm"] for s in prof["sites"] if s["algorithm"])) or "no algorithm"))
    print("traffic: the ring's p2p bytes exactly, the file = p2p + collectives")


def check_traffic_file(prof, prefix, p):
    """P.traffic holds the JSON's point-to-point plus collective matrices."""
    p2p = prof["traffic"]["p2p"]
    rows = []
    with open(prefix + ".traffic") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rows.append([int(x) for x in line.split()])
    coll = prof["traffic"]["collectives"]
    total = [[p2p[r][c] + coll[r][c] for c in range(p)] for r in range(p)]
    if rows != total:
        fail("%s.traffic is not p2p + collectives: %s vs %s" % (prefix, rows, total))


def world_alg(prof, function, per_call):
    """The algorithm Loom named for pmpi_prog's site of function with
    per_call bytes on MPI_COMM_WORLD, or None."""
    for s in prof["sites"]:
        if (s["function"] == function and s["communicator"]["name"] == "MPI_COMM_WORLD"
                and s["calls"] and s["bytes"] // s["calls"] == per_call):
            return s["algorithm"]
    return None


def high_bit(v):
    return 1 << (v.bit_length() - 1) if v else 0


def expected_collective_traffic(prof, p, i):
    """What pmpi_prog's collectives send between ranks: docs/pmpi.md's
    traffic table for the algorithm Loom named at each site (ring and
    recursive doubling allreduce, binomial bcast and reduce), its even
    spreads otherwise, rounded per site and peer as a double to the
    nearest byte, the way the library adds them.  On two ranks (the halves
    here) every allreduce pattern sends n to the other."""
    m = [[0] * p for _ in range(p)]

    def to(r, peer, nbytes):
        if 0 <= peer < p and peer != r and nbytes > 0:
            m[r][peer] += int(nbytes + 0.5)

    def others(members, r, total):
        for peer in members:
            to(r, peer, total / (len(members) - 1))

    def allreduce(r, n, alg):
        if alg == "ring":
            to(r, (r + 1) % p, 2.0 * n * (p - 1) / p)
        elif alg == "recursive_doubling":
            k = 1
            while k < p:
                to(r, r ^ k, float(n))
                k <<= 1
        else:
            others(world, r, 2.0 * n * (p - 1) / p)

    world = list(range(p))
    halves = [[r for r in world if r % 2 == c] for c in (0, 1)]
    algs = {n: world_alg(prof, "MPI_Allreduce", n // i) for n in (i * N_BIG * 8, i * N_SMALL * 4)}
    bcast = world_alg(prof, "MPI_Bcast", N_BCAST * 4)
    reduce = world_alg(prof, "MPI_Reduce", 8)
    for r in world:
        if p > 1:
            for n, alg in algs.items():                 # allreduce A, B
                allreduce(r, n, alg)
            allreduce(r, i * N_IALL * 8, None)          # nonblocking: no algorithm known
            n = i * N_BCAST * 4                         # bcast, rooted at the first root, 0
            if bcast == "binomial":
                k = 1 if r == 0 else high_bit(r) << 1
                while r + k < p:
                    to(r, r + k, float(n))
                    k <<= 1
            elif r == 0:
                others(world, r, float(n) * (p - 1))
            if r == 0:                                  # ibcast, and prog_order's
                others(world, r, float(i * N_IBCAST) * (p - 1))
                others(world, r, 4.0 * (p - 1))
            n = i * N_A2A * 4 * p                       # alltoall
            others(world, r, n * (p - 1) / p)
            others(world, r, float(i * 4 * (r + 1)) * (p - 1))    # allgatherv
            if r != 0:                                  # the checksum's reduce to 0
                to(r, r - high_bit(r) if reduce == "binomial" else 0, 8.0)
            # prog_completions: nonblocking, so even spreads
            others(world, r, float(i * N_NB * 4) * (p - 1))                 # iallgather
            n = i * 4 * p                                                   # ialltoall
            others(world, r, n * (p - 1) / p)
            if r != 0:                                                      # ireduce to 0
                to(r, 0, float(i * N_NB * 8))
            to(r, r + 1, float(i * N_NB * 4))                               # iscan
            n = i * N_NB * 4 * p                                            # ireduce_scatter_block
            others(world, r, n * (p - 1) / p)
        half = halves[r % 2]
        if len(half) > 1:
            for n in (i * N_BIG * 8, i * N_SMALL * 4):  # allreduce C, D
                others(half, r, 2.0 * n * (len(half) - 1) / len(half))
    return m


def slowed_site(prof):
    """The allreduce of 1024 doubles on MPI_COMM_WORLD (pmpi_prog's site A)."""
    for s in prof["sites"]:
        if (s["function"] == "MPI_Allreduce" and s["communicator"]["name"] == "MPI_COMM_WORLD"
                and s["calls"] and s["bytes"] // s["calls"] == N_BIG * 8):
            return s
    fail("no allreduce site of %d bytes on MPI_COMM_WORLD" % (N_BIG * 8))


def check_late(prof, prefix, rank):
    if prof["late_ranks"][0]["rank"] != rank:
        fail("late_ranks starts with rank %d, not %d" % (prof["late_ranks"][0]["rank"], rank))
    site = slowed_site(prof)
    if site["last_arrival"] is None or site["last_arrival"]["rank"] != rank:
        fail("the slowed site's last arrival is %s, not rank %d" % (site["last_arrival"], rank))
    where = site["site"]["location"] or site["site"]["symbol"]
    with open(prefix + ".txt") as f:
        lines = [l for l in f if "MPI_Allreduce" in l and "MPI_COMM_WORLD" in l and where in l]
    if not any(("rank %d (" % rank) in l for l in lines):
        fail("the summary's line for %s does not name rank %d last:\n%s" % (where, rank, "".join(lines)))
    print("rank %d is first among late ranks and last at %s" % (rank, where))


def check_alg(prof, want):
    # A communicator of one rank never reaches Loom (coll/self takes it).
    sites = [s for s in prof["sites"]
             if s["function"] == "MPI_Allreduce" and s["communicator"]["size"] > 1]
    named = [s["algorithm"] for s in sites if s["algorithm"] is not None]
    if want == "yes" and len(named) != len(sites):
        fail("allreduce sites without Loom's algorithm: %s" % [s["algorithm"] for s in sites])
    if want == "no" and any(s["algorithm"] is not None for s in prof["sites"]):
        fail("an algorithm is named without Loom")
    print("Loom's algorithm: %s" % (sorted(set(named)) or "none, as expected"))


def totals(prof):
    """Calls, bytes and time per function, summed over sites."""
    got = {}
    for s in prof["sites"]:
        c, b, t = got.get(s["function"], (0, 0, 0.0))
        got[s["function"]] = (c + s["calls"], b + s["bytes"], t + s["time"]["total_s"])
    return got


def sized(prof, fn, per_call):
    """Calls and bytes of FN's sites whose calls all moved per_call bytes."""
    calls = nbytes = 0
    for s in prof["sites"]:
        if s["function"] == fn and s["calls"] and s["bytes"] == s["calls"] * per_call:
            calls += s["calls"]
            nbytes += s["bytes"]
    return (calls, nbytes)


def check_other(prof, prefix, p, expect, called):
    """A program other than pmpi_prog: exact totals where the caller knows
    them, a call and some time where it only knows the function is used."""
    got = totals(prof)
    for spec in expect:
        try:
            fn, calls, nbytes = spec.split(":")
            want = (int(calls), int(nbytes))
            fn, _, per_call = fn.partition("@")
            per_call = int(per_call) if per_call else None
        except ValueError:
            fail("--expect %r: want FN[@BYTES_PER_CALL]:CALLS:BYTES, e.g. MPI_Bcast:4:32" % spec)
        have = got.get(fn, (0, 0, 0.0))[:2] if per_call is None else sized(prof, fn, per_call)
        if have != want:
            fail("%s: profile says calls, bytes = %s, the program did %s" % (fn, have, want))
        print("%s: %d calls, %d bytes, as the program did" % (fn, want[0], want[1]))
    for fn in called:
        c, _, t = got.get(fn, (0, 0, 0.0))
        if c == 0 or t <= 0:
            fail("%s: %d calls taking %g s in the profile; the program calls it" % (fn, c, t))
        print("%s: %d calls, %.6f s" % (fn, c, t))
    check_traffic_file(prof, prefix, p)
    print("%s.traffic = p2p + collectives" % prefix)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--stdout", help="pmpi_prog's output (its tally)")
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--iters", type=int, help="pmpi_prog's iterations")
    ap.add_argument("--expect", action="append", default=[], metavar="FN[@PER_CALL]:CALLS:BYTES",
                    help="another program: FN's exact totals")
    ap.add_argument("--called", action="append", default=[], metavar="FN",
                    help="another program: FN was called and took time")
    ap.add_argument("--late", type=int)
    ap.add_argument("--alg", choices=["yes", "no"])
    ap.add_argument("--churn", action="store_true", help="pmpi_prog ran with churn")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "pmpi", "profile.schema.json")) as f:
        schema = json.load(f)
    with open(a.prefix + ".json") as f:
        prof = json.load(f)
    jsonschema.validate(prof, schema)
    print("%s.json validates against pmpi/profile.schema.json" % a.prefix)
    if prof["ranks"] != a.np:
        fail("the profile has %d ranks, the run %d" % (prof["ranks"], a.np))
    if a.expect or a.called:
        check_other(prof, a.prefix, a.np, a.expect, a.called)
        return
    if a.stdout is None or a.iters is None:
        ap.error("pmpi_prog's profile needs --stdout and --iters (or give --expect/--called)")
    with open(a.stdout) as f:
        out_lines = f.readlines()
    check_counts(prof, out_lines, a.np, a.iters, a.churn)
    if a.churn:
        barriers = [s for s in prof["sites"] if s["function"] == "MPI_Barrier"]
        if len(barriers) != CHURN_COMMS + 3:
            fail("%d barrier sites, not one per duplicate plus the program's three on MPI_COMM_WORLD" % len(barriers))
        if any(r["sites_dropped"] for r in prof["rank_info"]):
            fail("sites were dropped")
        print("%d communicators created and freed, each profiled" % CHURN_COMMS)
    check_traffic(prof, a.prefix, a.np, a.iters)
    if a.late is not None:
        check_late(prof, a.prefix, a.late)
    if a.alg:
        check_alg(prof, a.alg)


if __name__ == "__main__":
    main()
