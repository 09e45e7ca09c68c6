#!/bin/sh
# Stacked with libloom-pmpi in LD_PRELOAD, in both orders: the slowed rank
# is still flagged with the same agreement, and libloom-pmpi still writes
# its profile, counting every allreduce step_prog made (STEPS + 1 per rank:
# the steps and the final check; the library's own exchanges run on PMPI_
# and are not the program's).
. "$(dirname "$0")/common.sh"
[ -e "$pmpi" ] || fail "$pmpi is not built"

steps=30
for order in "$lib:$pmpi" "$pmpi:$lib"; do
    judged stack 8 "$order" $steps 20 "--flag $slow --within 20 --pct 30" -x LOOM_SLOWNODE_INJECT="$slow:1.3" \
        -x LOOM_PMPI_OUT="$dir/pmpi"
    [ -s "$dir/pmpi.json" ] || fail "$order: libloom-pmpi wrote no profile"
    python3 - "$dir/pmpi.json" $((8 * (steps + 1))) <<'PY' || fail "$order: libloom-pmpi's counts"
import json, sys
prof = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
def calls(node):
    if isinstance(node, dict):
        if node.get("function") == "MPI_Allreduce" and "calls" in node:
            yield node["calls"]
        for v in node.values():
            yield from calls(v)
    elif isinstance(node, list):
        for v in node:
            yield from calls(v)
got = sum(calls(prof))
if got != want:
    sys.exit("libloom-pmpi counted %d MPI_Allreduce calls, expected %d" % (got, want))
PY
    rm -f "$dir"/pmpi*
    echo "== LD_PRELOAD=$order: rank $slow flagged, libloom-pmpi counted every allreduce"
done
