#!/bin/sh
# make bench-slownode: what placing the slow rank last buys (not in make
# check; docs/slownode.md, "What the rank order buys").  8 ranks, one
# slowed by 30% (LOOM_SLOWNODE_INJECT), Loom running the allreduce as its
# own schedules; each configuration runs with the order never written
# (LOOM_SLOWNODE_REORDER=0) and always kept (=2), alternating, ROUNDS
# times; step_prog prints the median step of the second half of its run,
# long after the order took effect (collective 20).
#
#   test/slownode/bench_slownode.sh BUILDDIR [ROUNDS] [STEPS]
set -u
top=${1:?usage: bench_slownode.sh BUILDDIR [ROUNDS] [STEPS]}
rounds=${2:-3}
steps=${3:-200}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs

one() {  # one STEP_MS COUNT REORDER: the median step in ms
    timeout 300 mpirun -np 8 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        --mca coll_loom_priority 100 --mca coll_loom_allreduce_handoff 0 --mca coll_loom_shm 0 \
        -x LD_PRELOAD="$top/.libs/libloom-slownode.so" -x LOOM_SLOWNODE_INJECT=5:1.3 \
        -x LOOM_SLOWNODE_REORDER="$3" "$top/test/slownode/step_prog" "$steps" "$1" "$2" \
        2>/dev/null </dev/null | sed -n 's/.*median step of the second half \([0-9.]*\) ms/\1/p'
}

echo "step_ms count bytes round identity_ms slow_last_ms"
for cfg in "20 16" "2 16" "2 131072"; do
    set -- $cfg
    r=1
    while [ $r -le "$rounds" ]; do
        a=$(one "$1" "$2" 0)
        b=$(one "$1" "$2" 2)
        echo "$1 $2 $(( $2 * 8 )) $r ${a:-fail} ${b:-fail}"
        r=$((r + 1))
    done
done
