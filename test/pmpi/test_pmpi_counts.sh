#!/bin/sh
# libloom-pmpi on 1, 3 and 4 ranks: the program prints the same with and
# without the library; the JSON validates against its schema and counts
# exactly the calls and bytes the program made; the traffic matrix holds the
# ring's point-to-point bytes and loom-topo reads it (docs/pmpi.md).
. "$(dirname "$0")/common.sh"

for np in 1 3 4; do
    profiled $np
    "$top/loom-topo" rankfile --traffic "$dir/pmpi$np.traffic" --slots 2 -o "$dir/rf$np" \
        "$here/../topo/two_racks.conf" >"$dir/topo$np.out" 2>&1 ||
        { cat "$dir/topo$np.out" >&2; fail "loom-topo cannot read pmpi$np.traffic"; }
    [ "$(grep -c '^rank ' "$dir/rf$np")" -eq "$np" ] || fail "loom-topo placed not $np ranks"
    echo "== $np ranks: passed"
done

# Communicators created and freed by the hundred (pmpi_prog churn): every
# one is profiled, though the table holds 512 at once, and its window is
# flushed at its free.
prog_args=churn
run plainchurn 2 ""
run churn 2 "$lib"
same plainchurn churn
check churn 2 --churn
echo "== churn: passed"
