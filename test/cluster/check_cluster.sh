#!/bin/sh
# make check-cluster: Loom's MPI correctness tests (test/mpi/, each case
# through test/mpi/run.sh, which selects Loom and checks its messages)
# across the emulated cluster, in two layouts:
#   4 nodes x 2 ranks in 2 racks (8 ranks);
#   an uneven 7-rank layout: 3, 1, 2 and 1 ranks on 4 nodes in 2 racks
#   (nodes with one rank, racks of 4 and 3 ranks).
# UCX picks its transports as in a real job: shared memory inside a node,
# TCP over the capped links between nodes.
#
#   test/cluster/check_cluster.sh test/mpi/PROGRAM...
#
# Needs root and a kernel with network namespaces, veth, bridges and tbf:
# without them it fails, or skips (exit 77, saying what) when
# LOOM_ALLOW_SKIP_CLUSTER=1.  Run from the top build directory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
top=${abs_top_builddir:-$PWD}
[ $# -gt 0 ] || { echo "usage: $0 test/mpi/PROGRAM..." >&2; exit 2; }
progs=
for p in "$@"; do
    progs="$progs $(basename "$p")"
done
t0=$(date +%s)

run_layout() {
    name=$1; shift
    np=$1; shift
    echo "check-cluster: $name"
    abs_top_builddir=$top "$here/cluster.sh" "$@" -- sh -c '
        np=$0 run=$1 progs=$2 failed=
        [ "$LOOM_CLUSTER_NP" -eq "$np" ] || { echo "cluster has $LOOM_CLUSTER_NP slots, expected $np" >&2; exit 1; }
        MPIRUN_REAL=${MPIRUN:-mpirun} MPIRUN=$LOOM_CLUSTER_MPIRUN
        export MPIRUN_REAL MPIRUN
        # The ranks land where the hostfile says: one per slot, by node.
        want=$(awk "{ split(\$2, s, \"=\"); for (i = 0; i < s[2]; i++) print \$1 }" \
               "$LOOM_CLUSTER_DIR/hostfile")
        got=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
              timeout 60 "$MPIRUN" -np "$np" hostname | sort)
        [ "$got" = "$want" ] || { echo "FAIL: ranks on the nodes:" $got "; expected:" $want >&2; exit 1; }
        echo "ranks per node as laid out:" $(echo "$got" | uniq -c | awk "{ print \$2 \"=\" \$1 }")
        # loom-topo job sees the same: each rank on its node, nodes in racks.
        map=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 \
              "$MPIRUN" -np "$np" "$3" job --topology "$LOOM_CLUSTER_TOPOLOGY") ||
            { echo "FAIL: loom-topo job: $map" >&2; exit 1; }
        got=$(echo "$map" | awk "/^  switch / { r = \$2 } /^    node / { print r, \$2, \$4 }")
        want=$(awk "BEGIN { lo = 0 } FNR == NR { sub(/SwitchName=/, \"\", \$1); sub(/Nodes=/, \"\", \$2);
                               n = split(\$2, m, \",\"); for (i = 1; i <= n; i++) rack[m[i]] = \$1; next }
                    { split(\$2, s, \"=\"); hi = lo + s[2] - 1;
                      print rack[\$1], \$1, (hi > lo ? lo \"-\" hi : lo); lo = hi + 1 }" \
               "$LOOM_CLUSTER_TOPOLOGY" "$LOOM_CLUSTER_DIR/hostfile")
        [ "$got" = "$want" ] || { echo "FAIL: loom-topo job printed:"; echo "$map"; echo "expected rack node ranks:"; echo "$want"; exit 1; } >&2
        echo "loom-topo job: the same racks, nodes and ranks"
        # Loom reads the same file (coll_loom_topology) and sees both racks.
        OMPI_MCA_coll_loom_topology=$LOOM_CLUSTER_TOPOLOGY
        export OMPI_MCA_coll_loom_topology
        # and the links as built, so that auto takes the hierarchical
        # forms for large messages in every program below.
        OMPI_MCA_coll_loom_cost_rack_bandwidth_mbs=125
        OMPI_MCA_coll_loom_cost_spine_bandwidth_mbs=37
        export OMPI_MCA_coll_loom_cost_rack_bandwidth_mbs OMPI_MCA_coll_loom_cost_spine_bandwidth_mbs
        seen=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
               OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$4/.libs timeout 120 \
               "$MPIRUN" -np "$np" --mca coll_loom_priority 100 --mca coll_loom_verbose info \
               "$4/test/mpi/mpi_hier" 2>&1) || { echo "FAIL: mpi_hier with the topology file:"; echo "$seen"; exit 1; } >&2
        echo "$seen" | grep -q "topology file .*: 2 racks;" ||
            { echo "FAIL: Loom did not report 2 racks from $LOOM_CLUSTER_TOPOLOGY:"; echo "$seen"; exit 1; } >&2
        echo "coll_loom_topology: Loom sees 2 racks"
        for p in $progs; do
            s=$(date +%s)
            if $SHELL "$run" "test/mpi/$p.np$np.shm.mpitest" >"$LOOM_CLUSTER_DIR/$p.log" 2>&1; then
                echo "PASS: $p on $np ranks ($(($(date +%s) - s)) s)"
            else
                failed="$failed $p"
                echo "FAIL: $p on $np ranks; its output:"
                tail -n 40 "$LOOM_CLUSTER_DIR/$p.log"
            fi
        done
        [ -z "$failed" ] || { echo "check-cluster: failed:$failed" >&2; exit 1; }
    ' "$np" "$src/test/mpi/run.sh" "$progs" "$top/loom-topo" "$top"
}

status=0
run_layout "4 nodes x 2 ranks, 2 racks" 8 --nodes 4 --racks 2 --slots 2 || status=$?
if [ $status -ne 77 ]; then
    run_layout "uneven: 3,1,2,1 ranks on 4 nodes, 2 racks" 7 --layout 3,1,2,1 --racks 2 ||
        { s=$?; [ $status -ne 0 ] || status=$s; }
fi
case $status in
    0) echo "check-cluster: all passed in $(($(date +%s) - t0)) s" ;;
    77) echo "check-cluster: SKIPPED: the kernel lacks what the emulated cluster needs (above); LOOM_ALLOW_SKIP_CLUSTER=1 allowed it" ;;
    *) echo "check-cluster: FAILED after $(($(date +%s) - t0)) s" >&2 ;;
esac
exit $status
