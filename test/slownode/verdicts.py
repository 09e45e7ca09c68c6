#!/usr/bin/env python3
"""Checks the JSON records of one libloom-slownode run (one file per rank).

Every rank's events must be the same (the verdict is agreed); then, as
asked: exactly one rank flagged, the expected one, within a number of
collectives and about as slow as injected; or no event at all over a
known number of windows; or a rank order written and accepted by Loom.
"""
import argparse
import json
import sys


def fail(msg):
    print("verdicts: " + msg, file=sys.stderr)
    sys.exit(1)


def load(prefix, np):
    recs = []
    for r in range(np):
        path = "%s.%d.json" % (prefix, r)
        try:
            with open(path) as f:
                recs.append(json.load(f))
        except (OSError, ValueError) as e:
            fail("%s: %s" % (path, e))
        if recs[-1]["rank"] != r or recs[-1]["ranks"] != np:
            fail("%s: rank %s of %s" % (path, recs[-1]["rank"], recs[-1]["ranks"]))
    return recs


def check_flag(events, rank, within, pct, tol):
    flags = [e for e in events if e["event"] == "flag"]
    if not flags:
        fail("no rank was flagged (expected rank %d)" % rank)
    if any(e["rank"] != rank for e in flags):
        fail("flagged ranks %s, expected only %d" % ([e["rank"] for e in flags], rank))
    first = flags[0]
    if first["collective"] > within:
        fail("rank %d flagged at collective %d, expected by %d" % (rank, first["collective"], within))
    if abs(first["slower_pct"] - pct) > tol:
        fail("rank %d measured %.1f%% slower, injected %.0f%% (+- %.0f)" %
             (rank, first["slower_pct"], pct, tol))
    print("verdicts: rank %d flagged at collective %d, %.1f%% slower, %.2f ms late, same on "
          "every rank" % (rank, first["collective"], first["slower_pct"], first["late_ms"]))


def check_none(recs, exchanges):
    for rec in recs:
        if rec["events"]:
            fail("rank %d: events %s, expected none" % (rec["rank"], rec["events"]))
        if rec["exchanges"] != exchanges:
            fail("rank %d: %d windows exchanged, expected %d" %
                 (rec["rank"], rec["exchanges"], exchanges))
    worst = max(rec["max_late_ms"] for rec in recs)
    print("verdicts: no event in %d windows on any rank; the latest rank was %.3f ms behind the "
          "median at worst (floor %g ms)" % (exchanges, worst, recs[0]["floor_ms"]))


def check_order(recs, rank):
    events = recs[0]["events"]
    orders = [e for e in events if e["event"] == "reorder"]
    if not orders or orders[0]["rank"] != rank:
        fail("no rank order placing rank %d last: %s" % (rank, events))
    judged = [e for e in events if e["event"] in ("keep", "revert")]
    if not judged:
        fail("the rank order was never judged: %s" % events)
    want = 2 if judged[0]["event"] == "revert" else 1
    for rec in recs:
        if not rec["loom_rank_order"]:
            fail("rank %d did not find Loom's rank order variable" % rec["rank"])
        if rec["rank_order_accepted"] < want:
            fail("rank %d: Loom accepted %d rank orders, expected %d" %
                 (rec["rank"], rec["rank_order_accepted"], want))
    print("verdicts: rank %d placed last at collective %d, then %s (step %.3f -> %.3f ms); Loom "
          "accepted %d orders on every rank" % (rank, orders[0]["collective"], judged[0]["event"],
                                                judged[0]["step_before_ms"],
                                                judged[0]["step_after_ms"], want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--flag", type=int, help="the rank that must be flagged")
    ap.add_argument("--within", type=int, default=20)
    ap.add_argument("--pct", type=float, default=30.0)
    ap.add_argument("--tol", type=float, default=12.0)
    ap.add_argument("--none", type=int, metavar="WINDOWS", help="no event over WINDOWS windows")
    ap.add_argument("--order", action="store_true", help="a rank order was written and accepted")
    a = ap.parse_args()
    recs = load(a.prefix, a.np)
    for rec in recs[1:]:
        if rec["events"] != recs[0]["events"]:
            fail("rank %d's events differ from rank 0's:\n%s\n%s" %
                 (rec["rank"], rec["events"], recs[0]["events"]))
    if a.flag is not None:
        check_flag(recs[0]["events"], a.flag, a.within, a.pct, a.tol)
    if a.none is not None:
        check_none(recs, a.none)
    if a.order:
        check_order(recs, a.flag)


main()
