#!/bin/sh
# make train-cluster: the training example's first STEPS optimizer steps
# (default 100) on the emulated cluster, 4 nodes x 2 ranks in 2 racks,
# model 784-256-128-10 (1.88 MB of gradients per allreduce, the
# train-demo's model).  Contenders, one job each, in an order that
# rotates every round (ROUNDS, default 3):
#   loom          Loom told the racks and links (coll_loom_topology, as
#                 make bench-cluster)
#   loom-norack   Loom without a topology file: nodes only
#   default       Open MPI's default collectives (--mca coll ^loom)
# and, with YIELD0=1, the two last again with OMPI_MCA_mpi_yield_when_idle=0
# (the rig before it made oversubscribed ranks yield: the mid-size floor,
# docs/topology.md).  Prints each job's train_s and comm_s, then per
# contender the median over rounds and the bound: STEPS allreduces of
# the gradients, each moving them once across a rack's uplink, at the
# uplink's ping-pong rate.  Every job's test accuracy must be the same
# (the same seed, the same steps); a differing one fails the run.  Needs
# root (test/cluster/cluster.sh).
set -u
top=${abs_top_builddir:-$PWD}
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-3}
steps=${STEPS:-100}
for v in "$rounds" "$steps"; do
    case $v in ''|*[!0-9]*|0) echo "train_cluster.sh: ROUNDS='$rounds' STEPS='$steps': expected positive integers" >&2; exit 2 ;; esac
done
for exe in "$top/examples/train_mlp" "$top/test/cluster/pingpong"; do
    [ -x "$exe" ] || { echo "train_cluster.sh: $exe is not built (make all test/cluster/pingpong; train_mlp needs OpenBLAS and zlib)" >&2; exit 2; }
done
contenders="loom loom-norack default"
[ "${YIELD0:-0}" = 1 ] && contenders="$contenders loom-norack-spin default-spin"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs

exec "$here/cluster.sh" --nodes 4 --racks 2 --slots 2 -- sh -c '
    top=$0 rounds=$1 steps=$2; shift 2
    mpirun() { timeout 900 "$LOOM_CLUSTER_MPIRUN" "$@"; }
    uplink=$(mpirun -np "$LOOM_CLUSTER_NP" --mca pml ob1 --mca btl self,vader,tcp \
             --mca btl_tcp_sndbuf 8388608 --mca btl_tcp_rcvbuf 8388608 \
             "$top/test/cluster/pingpong" -s 4194304 -n 6 4:cross-rack | awk "/cross-rack/ { print \$(NF - 1) }")
    [ -n "$uplink" ] || { echo "train-cluster: no uplink measurement" >&2; exit 1; }
    links="--mca coll_loom_topology $LOOM_CLUSTER_TOPOLOGY --mca coll_loom_cost_rack_bandwidth_mbs 125 --mca coll_loom_cost_spine_bandwidth_mbs 37"
    results=$LOOM_CLUSTER_DIR/results
    : >"$results"
    r=1
    while [ "$r" -le "$rounds" ]; do
        for c in "$@"; do
            env=
            case $c in
                loom) mca="--mca coll_loom_priority 100 $links" ;;
                loom-norack) mca="--mca coll_loom_priority 100" ;;
                default) mca="--mca coll ^loom" ;;
                loom-norack-spin) mca="--mca coll_loom_priority 100"; env=OMPI_MCA_mpi_yield_when_idle=0 ;;
                default-spin) mca="--mca coll ^loom"; env=OMPI_MCA_mpi_yield_when_idle=0 ;;
            esac
            # shellcheck disable=SC2086
            out=$(env $env timeout 900 "$LOOM_CLUSTER_MPIRUN" -np "$LOOM_CLUSTER_NP" -x OPENBLAS_NUM_THREADS $mca \
                  "$top/examples/train_mlp" --steps "$steps" --epochs 1 --hidden 256,128 2>&1)
            line=$(echo "$out" | grep "^SUMMARY")
            params=$(echo "$out" | grep -oE "\([0-9]+ parameters" | head -n 1 | tr -dc 0-9)
            [ -n "$line" ] && [ -n "$params" ] || { echo "train-cluster: round $r: $c printed no model line or no SUMMARY:" >&2; echo "$out" | tail -n 20 >&2; exit 1; }
            echo "$r $c params=$params $line" >>"$results"
            echo "  round $r: $c $(echo "$line" | grep -oE "(train_s|comm_s|test_acc)=[0-9.]+" | tr "\n" " ")"
        done
        first=$1; shift; set -- "$@" "$first"
        r=$((r + 1))
    done
    awk -v uplink="$uplink" -v steps="$steps" "
        function val(k,   i) { for (i = 3; i <= NF; i++) if (index(\$i, k \"=\") == 1) return substr(\$i, length(k) + 2); return \"\" }
        function med(c, x,   i, j, t, m, a) {
            m = n[c]; for (i = 1; i <= m; i++) a[i] = x[c, i]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
        }
        { c = \$2; k = ++n[c]; tr[c, k] = val(\"train_s\"); cm[c, k] = val(\"comm_s\"); acc = val(\"test_acc\")
          if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
          if (acc0 == \"\") acc0 = acc; else if (acc != acc0) bad = 1
          params = val(\"params\") }
        END {
            # Each step allreduces every parameter'"'"'s gradient (a double),
            # which must cross a rack'"'"'s uplink once each way.
            bound = steps * params * 8 / (uplink * 1e6)
            printf \"\n== train_mlp, %d steps, 8 ranks on 4 nodes in 2 racks (uplink %s MB/s; median of %d rounds)\n\", steps, uplink, n[order[1]]
            printf \"%-18s %9s %9s %12s\n\", \"contender\", \"train_s\", \"comm_s\", \"comm/bound\"
            for (i = 1; i <= nc; i++) { c = order[i]; printf \"%-18s %9.2f %9.2f %12.2f\n\", c, med(c, tr), med(c, cm), med(c, cm) / bound }
            printf \"bound (the gradients across an uplink, %d times): %.2f s\n\", steps, bound
            if (bad) { print \"train-cluster: FAILED: the jobs disagree on test_acc\"; exit 1 }
        }" "$results"
' "$top" "$rounds" "$steps" $contenders
