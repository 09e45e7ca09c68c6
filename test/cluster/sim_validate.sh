#!/bin/sh
# make sim-validate: loom-sim's predictions against measurements on the
# emulated cluster, all taken in one session (docs/loom-sim.md):
#   1. ping-pongs same node, same rack, across racks at 64K, 1M and 4M;
#   2. loom-bench, 1M to 8M, for every algorithm of allreduce, bcast,
#      reduce, allgather and reduce_scatter(_block) and both placements
#      (--map-by core: ranks 0,1 on node0, ...; --map-by node: rank r on
#      node r mod 4) on 4 nodes x 2 ranks in 2 racks;
#   3. loom-sim calibrate from the ping-pongs and one allreduce
#      algorithm's bench (LOOM_SIM_CALIBRATE_ALG, default ring, --map-by
#      core);
#   4. loom-sim predicts every other (collective, algorithm, placement)
#      and every error is printed, with how many are within 20%.
# Root, network namespaces (test/cluster/cluster.sh); about 10 to 20
# minutes on an idle 2-core machine.  Never part of make check.  Run from
# the top build directory; the files stay in LOOM_SIM_VALIDATE_DIR
# (default sim-validate/).  LOOM_SIM_VALIDATE_CASES lists collective:algorithm
# pairs (default all of them).  LOOM_SIM_VALIDATE_SIZES sets loom-bench's and
# loom-sim's sizes (default -b 1M -e 8M -f 2); LOOM_SIM_VALIDATE_REUSE=1
# skips the measurements and analyses those already in the directory.
# LOOM_SIM_VALIDATE_RIG sets cluster.sh's options (default "--cwnd 64
# --burst 20kb --gso-max 16384": TCP windows clamped, so that flows on
# one link share it evenly as the model's do, and 20 KiB token buckets,
# so that an idle link lets little through at once; docs/loom-sim.md,
# "Validation"); LOOM_SIM_VALIDATE_RIG= gives the rig of make
# bench-cluster.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${abs_top_builddir:-$PWD}
out=${LOOM_SIM_VALIDATE_DIR:-$top/sim-validate}
cases=${LOOM_SIM_VALIDATE_CASES:-"allreduce:ring allreduce:rabenseifner allreduce:double_binary_tree
    allreduce:recursive_doubling allreduce:hierarchical bcast:binomial bcast:chain
    bcast:scatter_allgather bcast:hierarchical reduce:binomial reduce:reduce_scatter_gather
    reduce:chain reduce:hierarchical allgather:bruck allgather:ring allgather:hierarchical
    reduce_scatter:recursive_halving reduce_scatter:ring reduce_scatter:hierarchical"}
cal=${LOOM_SIM_CALIBRATE_ALG:-ring}
sizes=${LOOM_SIM_VALIDATE_SIZES:-"-b 1M -e 8M -f 2"}
reuse=${LOOM_SIM_VALIDATE_REUSE:-0}
rig=${LOOM_SIM_VALIDATE_RIG-"--cwnd 64 --burst 20kb --gso-max 16384"}
for exe in "$top/test/cluster/pingpong" "$top/loom-bench" "$top/loom-sim"; do
    [ -x "$exe" ] || { echo "sim_validate.sh: $exe is not built" >&2; exit 2; }
done
mkdir -p "$out" || exit 1

# One cluster session for every measurement, so that calibration and
# validation see the same machine load.
[ "$reuse" = 1 ] || { rm -f "$out"/*.csv "$out"/pingpong.txt "$out"/model.conf;
"$here/cluster.sh" --nodes 4 --racks 2 --slots 2 $rig -- sh -c '
    out=$0 top=$1 cases=$2 sizes=$3
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_mca_base_component_path
    common="--oversubscribe --bind-to none --mca mpi_yield_when_idle 1"
    for s in 65536 1048576 4194304; do
        timeout 300 "$LOOM_CLUSTER_MPIRUN" -np 8 $common --mca pml ob1 --mca btl self,vader,tcp \
            --mca btl_tcp_sndbuf 8388608 --mca btl_tcp_rcvbuf 8388608 \
            "$top/test/cluster/pingpong" -s $s -n 10 1:same-node 2:same-rack 4:cross-rack \
            >>"$out/pingpong.txt" || { echo "sim-validate: ping-pong of $s bytes failed" >&2; exit 1; }
    done
    cat "$out/pingpong.txt"
    for map in core node; do
        for case in $cases; do
            coll=${case%%:*} alg=${case#*:} name=$coll-$alg-$map
            # loom-sim reduce_scatter is the block form.
            bench_coll=$coll
            [ "$coll" = reduce_scatter ] && bench_coll=reduce_scatter_block
            echo "sim-validate: loom-bench $coll $alg --map-by $map"
            timeout 900 "$LOOM_CLUSTER_MPIRUN" -np 8 $common --map-by $map \
                --mca coll_loom_priority 100 --mca coll_loom_${coll}_algorithm $alg \
                --mca coll_loom_topology "$LOOM_CLUSTER_TOPOLOGY" \
                "$top/loom-bench" -c $bench_coll $sizes -w 1 -n 5 --no-compare \
                --no-progress --no-memcpy-ref --csv "$out/bench-$name.csv" \
                >"$out/bench-$name.txt" 2>&1 ||
                echo "sim-validate: loom-bench $coll $alg --map-by $map failed (see $out/bench-$name.txt)" >&2
        done
    done
' "$out" "$top" "$cases" "$sizes" || exit 1; }

layout="--ranks-per-node 2 --nodes 4 --nodes-per-rack 2 --nics-per-node 1"
"$top/loom-sim" calibrate --pingpong "$out/pingpong.txt" \
    --bench "$out/bench-allreduce-$cal-core.csv" --bench-algorithm "$cal" --bench-ranks 8 \
    $layout --map-by core -o "$out/model.conf" || exit 1
echo "sim-validate: the model (calibrated on $cal, --map-by core):"
cat "$out/model.conf"

printf '%-15s %-20s %-5s %9s %12s %12s %8s\n' collective algorithm map bytes measured_us \
    predicted_us error
for map in core node; do
    for case in $cases; do
        coll=${case%%:*} alg=${case#*:} name=$coll-$alg-$map
        bench=$out/bench-$name.csv
        [ -f "$bench" ] || { echo "$coll $alg --map-by $map: no measurement"; continue; }
        "$top/loom-sim" --model "$out/model.conf" $layout --map-by $map -p 8 -c "$coll" \
            -a "$alg" $sizes -q --csv "$out/pred-$name.csv" || continue
        # bench: bytes is column 5, contender 7, median_us 8;
        # prediction: bytes 5, time_us 9.
        awk -F, -v coll="$coll" -v alg="$alg" -v map="$map" -v cal="$cal" '
            FNR == 1 { next }
            FNR == NR { if ($7 == "loom") m[$5] = $8; next }
            ($5 in m) && $9 != "" {
                e = ($9 - m[$5]) / m[$5] * 100
                tag = (coll == "allreduce" && alg == cal && map == "core") ? "  (calibration data)" : ""
                printf "%-15s %-20s %-5s %9d %12.1f %12.1f %+7.1f%%%s\n", coll, alg, map, $5,
                       m[$5], $9, e, tag
            }' "$bench" "$out/pred-$name.csv"
    done
done | tee "$out/errors.txt"
awk '/calibration data/ || NF < 7 || $1 == "collective" { next }
     { c = $1; e = $7; gsub(/[%+-]/, "", e); e += 0
       n++; cn[c]++; if (e <= 20) { ok++; cok[c]++ }
       if (e > max) max = e; if (e > cmax[c]) cmax[c] = e }
     END { for (c in cn)
               printf "sim-validate: %-15s %d of %d within 20%% (largest %.1f%%)\n",
                      c, cok[c], cn[c], cmax[c]
           printf "sim-validate: %d of %d predictions within 20%% (largest error %.1f%%)\n",
                  ok, n, max }' "$out/errors.txt"
