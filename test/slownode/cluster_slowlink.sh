#!/bin/sh
# make cluster-slownode (root, not in make check): one node's link capped
# on the emulated cluster (test/cluster/cluster.sh, 4 nodes x 2 ranks in 2
# racks), then step_prog (2 ms steps, an allreduce of COUNT doubles) under
# libloom-slownode with Loom's component, the rank order never written
# (REORDER=0) and always kept once a rank is flagged (=2), alternating,
# ROUNDS times.  Prints the median step of each run, the ranks the library
# flagged and when, and the latest any rank was behind the median in any
# window.  Nothing is injected: the only slow thing is node3's
# link, capped at RATE (default 50mbit) against the others' 1gbit.
#
#   test/cluster/cluster.sh -- test/slownode/cluster_slowlink.sh BUILDDIR
set -u
top=${1:?usage: cluster_slowlink.sh BUILDDIR (run under test/cluster/cluster.sh)}
rate=${RATE:-50mbit}
rounds=${ROUNDS:-3}
count=${COUNT:-16384}
steps=${STEPS:-100}
[ -n "${LOOM_CLUSTER_DIR:-}" ] || { echo "cluster_slowlink.sh: run it under test/cluster/cluster.sh" >&2; exit 2; }

. "$(dirname "$0")/cluster_cap.sh"
cap_node 3 "$rate" || exit 1
echo "node3 (ranks 6 and 7) capped at $rate; $steps steps of 2 ms + allreduce of $count doubles"

export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "round reorder median_step_ms flagged latest_in_any_window"
r=1
while [ $r -le "$rounds" ]; do
    for reorder in 0 2; do
        json="$LOOM_CLUSTER_DIR/slow.$r.$reorder.json"
        out=$("$LOOM_CLUSTER_MPIRUN" -np 8 --mca coll_loom_priority 100 \
            --mca coll_loom_allreduce_handoff 0 \
            -x LD_PRELOAD="$top/.libs/libloom-slownode.so" -x LOOM_SLOWNODE_REORDER=$reorder \
            -x LOOM_SLOWNODE_JSON="$json" "$top/test/slownode/step_prog" "$steps" 2 "$count" \
            2>"$LOOM_CLUSTER_DIR/slow.err")
        step=$(echo "$out" | sed -n 's/.*median step of the second half \([0-9.]*\) ms/\1/p')
        flagged=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
print(",".join("%s@%d(%.0f%%,%.2fms)" % (e["rank"], e["collective"], e["slower_pct"], e["late_ms"])
               for e in r["events"] if e["event"] == "flag") or "none",
      "latest:rank%d,%.2fms" % (r["max_late_rank"], r["max_late_ms"]))' "$json" 2>/dev/null)
        echo "$r $reorder ${step:-fail} ${flagged:-no-record}"
        [ -n "$step" ] || tail -5 "$LOOM_CLUSTER_DIR/slow.err"
    done
    r=$((r + 1))
done
