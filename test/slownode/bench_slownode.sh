#!/bin/sh
# make bench-slownode: what placing the slow rank last buys (not in make
# check; docs/slownode.md, "What the rank order buys").  8 ranks, rank 5
# slowed (LOOM_SLOWNODE_INJECT: by 30% at 20 ms steps; at 2 ms steps 30%
# is 0.6 ms, under the detector's floor, so a 4 ms stall), Loom running
# the allreduce as its own schedules; each configuration runs with the
# order never written (LOOM_SLOWNODE_REORDER=0) and always kept once the
# rank is flagged (=2), alternating, ROUNDS times.  Each run prints the
# median step of the second half of its STEPS steps, long after the order
# took effect, and the collective after which it was written.
#
#   test/slownode/bench_slownode.sh BUILDDIR [ROUNDS] [STEPS]
set -u
top=${1:?usage: bench_slownode.sh BUILDDIR [ROUNDS] [STEPS]}
rounds=${2:-3}
steps=${3:-400}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs

json=$(mktemp "${TMPDIR:-/tmp}/bench-slownode.XXXXXX") || exit 1
trap 'rm -f "$json"' EXIT

# one STEP_MS COUNT INJECT REORDER: the median step in ms, then the collective
# after which the order was written ("-": never).
one() {
    step=$(timeout 300 mpirun -np 8 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        --mca coll_loom_priority 100 --mca coll_loom_allreduce_handoff 0 --mca coll_loom_shm 0 \
        -x LD_PRELOAD="$top/.libs/libloom-slownode.so" -x LOOM_SLOWNODE_INJECT="$3" \
        -x LOOM_SLOWNODE_REORDER="$4" -x LOOM_SLOWNODE_JSON="$json" \
        "$top/test/slownode/step_prog" "$steps" "$1" "$2" 2>/dev/null </dev/null |
        sed -n 's/.*median step of the second half \([0-9.]*\) ms/\1/p')
    at=$(python3 -c 'import json,sys
e=[e["collective"] for e in json.load(open(sys.argv[1]))["events"] if e["event"] == "reorder"]
print(e[0] if e else "-")' "$json" 2>/dev/null)
    echo "${step:-fail} ${at:-fail}"
}

echo "step_ms count bytes inject round identity_ms (order at) slow_last_ms (order at)"
for cfg in "20 16 5:1.3" "2 16 5:stall:4" "2 131072 5:stall:4"; do
    set -- $cfg
    r=1
    while [ $r -le "$rounds" ]; do
        a=$(one "$1" "$2" "$3" 0)
        b=$(one "$1" "$2" "$3" 2)
        echo "$1 $2 $(( $2 * 8 )) $3 $r $a $b"
        r=$((r + 1))
    done
done
