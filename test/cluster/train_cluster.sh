#!/bin/sh
# make train-cluster: the training example's first STEPS optimizer steps
# (default 100) on the emulated cluster, 4 nodes x 2 ranks in 2 racks,
# model 784-256-128-10 (1.88 MB of gradients per allreduce, the
# train-demo's model).  Contenders, one job each, in an order that
# rotates every round (ROUNDS, default 3):
#   loom          Loom told the racks and links (coll_loom_topology, as
#                 make bench-cluster)
#   loom-norack   Loom without a topology file: nodes only
#   default       Open MPI's default collectives (--mca coll ^loom,loomfilter)
#   loom-filter   loom, with gradient filtering: --filter FILTER (default
#                 topk:0.01), the info key mca_coll_loomfilter reads
# CONTENDERS picks them (default "loom loom-norack default"); with
# YIELD0=1, the two last of the default list again with
# OMPI_MCA_mpi_yield_when_idle=0 (the rig before it made oversubscribed
# ranks yield: the mid-size floor, docs/topology.md).  With IMAGES=N a
# job is one whole epoch over the first N training images instead of
# STEPS steps (make train-cluster-filter: 12800 images, 100 steps).
# Prints each job's train_s and comm_s, then per contender the median
# over rounds, its ratio to default's, the gradient MB rank 0 sent per
# step (the filter's MPI_T counter where it filtered) and the bound: the
# steps' allreduces of the gradients, each moving them once across a
# rack's uplink, at the uplink's ping-pong rate.  Every dense job's test
# accuracy must be the same (the same seed, the same steps), and every
# filtered job's the same as each other; a differing one fails the run,
# and so does a loom-filter job whose filter did not run.  Needs root
# (test/cluster/cluster.sh).
set -u
top=${abs_top_builddir:-$PWD}
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-3}
steps=${STEPS:-100}
images=${IMAGES:-}
filter=${FILTER:-topk:0.01,momentum=0.9}
for v in "$rounds" "$steps" ${images:+"$images"}; do
    case $v in ''|*[!0-9]*|0) echo "train_cluster.sh: ROUNDS='$rounds' STEPS='$steps' IMAGES='$images': expected positive integers" >&2; exit 2 ;; esac
done
case $filter in
    ''|*[!A-Za-z0-9_:.,=%]*) echo "train_cluster.sh: FILTER='$filter': expected a spec such as topk:0.01 (letters, digits and _ : . , = %)" >&2; exit 2 ;;
esac
if [ -n "$images" ]; then
    # One epoch of IMAGES images, in batches of 128 (train_mlp's default).
    steps=$(( (images + 127) / 128 ))
    job_args="--epochs 1 --train-limit $images"
else
    job_args="--steps $steps --epochs 1"
fi
for exe in "$top/examples/train_mlp" "$top/test/cluster/pingpong"; do
    [ -x "$exe" ] || { echo "train_cluster.sh: $exe is not built (make all test/cluster/pingpong; train_mlp needs OpenBLAS and zlib)" >&2; exit 2; }
done
contenders=${CONTENDERS:-loom loom-norack default}
[ "${YIELD0:-0}" = 1 ] && contenders="$contenders loom-norack-spin default-spin"
for c in $contenders; do
    case $c in
        loom|loom-norack|default|loom-filter|loom-norack-spin|default-spin) ;;
        *) echo "train_cluster.sh: CONTENDERS: unknown '$c'; accepted: loom loom-norack default loom-filter" >&2; exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs

exec "$here/cluster.sh" --nodes 4 --racks 2 --slots 2 -- sh -c '
    top=$0 rounds=$1 steps=$2 job_args=$3 filter=$4; shift 4
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
            env= prog_args=
            case $c in
                loom) mca="--mca coll_loom_priority 100 $links" ;;
                loom-norack) mca="--mca coll_loom_priority 100" ;;
                default) mca="--mca coll ^loom,loomfilter" ;;
                # The filter above Loom (raised to 100) to take the
                # communicator that asks for filtering.
                loom-filter) mca="--mca coll_loom_priority 100 $links --mca coll_loomfilter_priority 101"
                             prog_args="--filter $filter" ;;
                loom-norack-spin) mca="--mca coll_loom_priority 100"; env=OMPI_MCA_mpi_yield_when_idle=0 ;;
                default-spin) mca="--mca coll ^loom,loomfilter"; env=OMPI_MCA_mpi_yield_when_idle=0 ;;
            esac
            # shellcheck disable=SC2086
            out=$(env $env timeout 900 "$LOOM_CLUSTER_MPIRUN" -np "$LOOM_CLUSTER_NP" -x OPENBLAS_NUM_THREADS $mca \
                  "$top/examples/train_mlp" $job_args --hidden 256,128 $prog_args 2>&1)
            line=$(echo "$out" | grep "^SUMMARY")
            params=$(echo "$out" | grep -oE "\([0-9]+ parameters" | head -n 1 | tr -dc 0-9)
            [ -n "$line" ] && [ -n "$params" ] || { echo "train-cluster: round $r: $c printed no model line or no SUMMARY:" >&2; echo "$out" | tail -n 20 >&2; exit 1; }
            case $c in *filter*)
                echo "$line" | grep -qE " filter_calls=[1-9]" || { echo "train-cluster: round $r: $c: the filter did not run (no coll_loomfilter_calls, or 0; is mca_coll_loomfilter.so built?)" >&2; echo "$line" >&2; exit 1; } ;;
            esac
            echo "$r $c params=$params $line" >>"$results"
            echo "  round $r: $c$(echo "$line" | grep -oE " (train_s|comm_s|test_acc|filter_sent_per_step|filter_calls|filter_dense_switches)=[0-9.]+" | tr -d "\n")"
        done
        first=$1; shift; set -- "$@" "$first"
        r=$((r + 1))
    done
    awk -v uplink="$uplink" -v steps="$steps" -v what="$job_args" "
        function val(k,   i) { for (i = 3; i <= NF; i++) if (index(\$i, k \"=\") == 1) return substr(\$i, length(k) + 2); return \"\" }
        function med(c, x,   i, j, t, m, a) {
            m = n[c]; for (i = 1; i <= m; i++) a[i] = x[c, i]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
        }
        { c = \$2; k = ++n[c]; tr[c, k] = val(\"train_s\"); cm[c, k] = val(\"comm_s\"); acc = val(\"test_acc\")
          # Bytes rank 0 sent per step: the filter'"'"'s count where it ran.
          b = val(\"filter_calls\") + 0 > 0 ? val(\"filter_sent_per_step\") : val(\"bytes_sent\") / val(\"steps\")
          mb[c, k] = b / 1e6
          if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
          # Dense jobs agree with each other, filtered jobs with each other.
          g = c ~ /filter/ ? \"filtered\" : \"dense\"
          if (acc0[g] == \"\") acc0[g] = acc; else if (acc != acc0[g]) bad = 1
          params = val(\"params\") }
        END {
            # Each step allreduces every parameter'"'"'s gradient (a double),
            # which must cross a rack'"'"'s uplink once each way.
            bound = steps * params * 8 / (uplink * 1e6)
            printf \"\n== train_mlp (%s), %d steps, 8 ranks on 4 nodes in 2 racks (uplink %s MB/s; median of %d rounds)\n\", what, steps, uplink, n[order[1]]
            printf \"%-18s %9s %9s %11s %12s %12s %9s\n\", \"contender\", \"train_s\", \"comm_s\", \"vs default\", \"comm/bound\", \"MB/step\", \"test_acc\"
            for (i = 1; i <= nc; i++) {
                c = order[i]
                ratio = (\"default\" in seen) ? sprintf(\"%.2f\", med(c, tr) / med(\"default\", tr)) : \"-\"
                printf \"%-18s %9.2f %9.2f %11s %12.2f %12.3f %9s\n\", c, med(c, tr), med(c, cm), ratio, med(c, cm) / bound, med(c, mb), acc0[c ~ /filter/ ? \"filtered\" : \"dense\"]
            }
            printf \"bound (the dense gradients across an uplink, %d times): %.2f s; vs default: train_s over default'"'"'s\n\", steps, bound
            if (bad) { print \"train-cluster: FAILED: jobs that should agree disagree on test_acc\"; exit 1 }
        }" "$results"
' "$top" "$rounds" "$steps" "$job_args" "$filter" $contenders
