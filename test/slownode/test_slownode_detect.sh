#!/bin/sh
# 8 ranks, 20 ms steps, one rank drawn by the test slowed by 30% (the
# library sleeps 0.3 x its time between collectives): flagged within 20
# collectives, the right rank, about 30% slower, the same events on every
# rank, and the log line on rank 0.  Loom's components are kept out (even
# where a package installed them in Open MPI's own directory): the library
# detects and reports on Open MPI's own collectives.
. "$(dirname "$0")/common.sh"

judged detect 8 "$lib" 40 20 "--flag $slow --within 20 --pct 30" -x LOOM_SLOWNODE_INJECT="$slow:1.3" --mca coll ^loom,loomfilter
grep -q "^loom-slownode: rank $slow on .* is [0-9]*% slower (over 20 collectives" "$dir/detect.err" ||
    { cat "$dir/detect.err" >&2; fail "no log line naming rank $slow"; }
grep -q '"loom_rank_order": false' "$dir/detect.0.json" ||
    fail "found Loom's rank order without Loom's component"

# A stall instead of a factor: 8 ms before each collective on the same rank.
judged stall 8 "$lib" 40 20 "--flag $slow --within 20 --pct 40" -x LOOM_SLOWNODE_INJECT="$slow:stall:8"
echo "== rank $slow slowed by 30%, then stalled 8 ms: detected"
