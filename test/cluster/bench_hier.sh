#!/bin/sh
# make bench-cluster: allreduce across the emulated cluster's racks, the
# proof of the hierarchy.  4 nodes x 2 ranks in 2 racks (1 Gbit/s node
# links, 300 Mbit/s rack uplinks) with --map-by core (block) and
# --map-by node placements, and the uneven 3,1,2,1 layout (LAYOUTS,
# default "block by-node uneven"); on each, for sizes 256 KiB to 64 MiB
# by 2 (SIZES, loom-bench's -b/-e/-f, default "-b 256K -e 64M -f 2"):
#   loom       Loom as users get it (the cost model, told the links)
#   loom-flat  Loom forced to its flat ring
#   tuned      Open MPI without Loom
#   han        Open MPI's han (priority raised) without Loom
# one job per contender, in an order that rotates every round (ROUNDS,
# default 3), and the median over rounds of each job's median.  The lower
# bound: an allreduce moves n bytes each way across a rack's uplink, so
# it takes at least n / uplink, the uplink measured by ping-pong in the
# same cluster.  Writes a table per layout and CSV under OUT (default
# bench-results/cluster).  Needs root (test/cluster/cluster.sh).
set -u
top=${abs_top_builddir:-$PWD}
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-3}
layouts=${LAYOUTS:-block by-node uneven}
sizes=${SIZES:--b 256K -e 64M -f 2}
out=${OUT:-$top/bench-results/cluster}
for exe in "$top/loom-bench" "$top/test/cluster/pingpong"; do
    [ -x "$exe" ] || { echo "bench_hier.sh: $exe is not built (make all test/cluster/pingpong)" >&2; exit 2; }
done
case $rounds in ''|*[!0-9]*|0) echo "bench_hier.sh: ROUNDS='$rounds': expected a positive integer" >&2; exit 2 ;; esac
for l in $layouts; do
    case $l in block|by-node|uneven) ;; *) echo "bench_hier.sh: LAYOUTS: '$l': expected block, by-node or uneven" >&2; exit 2 ;; esac
done
mkdir -p "$out" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs

# One layout: NAME MAP-BY cluster.sh options...
bench_layout() {
    name=$1 mapby=$2; shift 2
    echo "bench-cluster: $name, --map-by $mapby"
    "$here/cluster.sh" "$@" -- sh -c '
        name=$0 mapby=$1 rounds=$2 out=$3 top=$4 sizes=$5
        np=$LOOM_CLUSTER_NP
        mpirun() { timeout 900 "$LOOM_CLUSTER_MPIRUN" "$@"; }
        # The uplink: one flow from node0 to the first rank of the other rack.
        peer=$(awk "NR == FNR { if (\$1 ~ /^SwitchName=/ && \$2 ~ /^Nodes=/) { sub(/SwitchName=/, \"\", \$1);
                     sub(/Nodes=/, \"\", \$2); n = split(\$2, m, \",\"); for (i = 1; i <= n; i++) rack[m[i]] = \$1 }; next }
                   { split(\$2, s, \"=\"); if (rack[\$1] != rack0 && r0 != \"\" && !found) { print lo; found = 1 }
                     if (r0 == \"\") { r0 = 1; rack0 = rack[\$1] } lo += s[2] }" \
               "$LOOM_CLUSTER_TOPOLOGY" "$LOOM_CLUSTER_DIR/hostfile")
        uplink=$(mpirun -np "$np" --mca pml ob1 --mca btl self,vader,tcp \
                 --mca btl_tcp_sndbuf 8388608 --mca btl_tcp_rcvbuf 8388608 \
                 "$top/test/cluster/pingpong" -s 4194304 -n 6 "$peer:cross-rack" |
                 awk "/cross-rack/ { print \$(NF - 1) }")
        [ -n "$uplink" ] || { echo "no uplink measurement" >&2; exit 1; }
        echo "uplink (ping-pong, rank 0 <-> rank $peer): $uplink MB/s"
        echo "$uplink" >"$out/$name.uplink"
        common="-np $np --map-by $mapby --mca mpi_yield_when_idle 1"
        # Three timed calls, so that the median drops a call that waited
        # out a retransmission (the shapers drop when their queue is full;
        # at 4 MiB one such wait added a third to the mean of two).
        bench="$top/loom-bench --no-compare --no-memcpy-ref $sizes -w 1 -n 3 --no-progress"
        links="--mca coll_loom_topology $LOOM_CLUSTER_TOPOLOGY --mca coll_loom_cost_rack_bandwidth_mbs 125 --mca coll_loom_cost_spine_bandwidth_mbs 37"
        set -- loom loom-flat tuned han
        r=1
        while [ "$r" -le "$rounds" ]; do
            for c in "$@"; do
                case $c in
                    loom) mca="--mca coll_loom_priority 100 $links" ;;
                    loom-flat) mca="--mca coll_loom_priority 100 $links --mca coll_loom_allreduce_algorithm ring" ;;
                    tuned) mca="--mca coll_loom_priority -1" ;;
                    han) mca="--mca coll_loom_priority -1 --mca coll_han_priority 100" ;;
                esac
                # shellcheck disable=SC2086
                if ! mpirun $common $mca $bench --csv "$out/$name.$c.$r.csv" >"$out/$name.$c.$r.log" 2>&1; then
                    echo "  round $r: $c failed (see $out/$name.$c.$r.log)"
                else
                    echo "  round $r: $c done"
                fi
            done
            first=$1; shift; set -- "$@" "$first"   # rotate the order
            r=$((r + 1))
        done
    ' "$name" "$mapby" "$rounds" "$out" "$top" "$sizes"
}

# The table: per size, each contender's median over rounds (ms), the bound
# and the ratios the issue names.
report() {
    name=$1
    uplink=$(cat "$out/$name.uplink" 2>/dev/null) || return 1
    echo
    echo "== $name (uplink $uplink MB/s; times in ms, median of $rounds rounds)"
    awk -F, -v uplink="$uplink" -v name="$name" '
        FNR == 1 { n_f = split(FILENAME, f, "[.]"); c = f[n_f - 2]; next }
        { key = $5 SUBSEP c; n[key]++; v[key, n[key]] = $8 / 1000; sizes[$5] = 1; alg[key] = $14 }
        function med(key,   i, j, t, m) {
            m = n[key]; if (m == 0) return -1
            for (i = 1; i <= m; i++) a[i] = v[key, i]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
        }
        END {
            printf "%10s %9s %12s %10s %10s %10s %10s %11s %10s\n", "bytes", "bound", "loom", "loom-flat", "tuned", "han",
                   "loom/bound", "tuned/loom", "han/loom"
            # Sizes stay strings (the keys): mawk prints large numbers as %.6g.
            ns = 0; for (s in sizes) list[++ns] = s
            for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++) if (list[j] + 0 < list[i] + 0) { t = list[i]; list[i] = list[j]; list[j] = t }
            for (i = 1; i <= ns; i++) {
                s = list[i]; b = s / (uplink * 1e6) * 1000
                L = med(s SUBSEP "loom"); F = med(s SUBSEP "loom-flat"); T = med(s SUBSEP "tuned"); H = med(s SUBSEP "han")
                printf "%10d %9.1f %7.1f %-4s %10.1f %10.1f %10.1f %10.2f %11.2f %10s\n", s, b, L,
                       substr(alg[s SUBSEP "loom"], 1, 4), F, T, H, L / b, T / L, (H > 0 ? sprintf("%.2f", H / L) : "-")
            }
        }' "$out/$name".*.csv
}

status=0
for l in $layouts; do
    case $l in
        block) bench_layout block core --nodes 4 --racks 2 --slots 2 || status=1 ;;
        by-node) bench_layout by-node node --nodes 4 --racks 2 --slots 2 || status=1 ;;
        uneven) bench_layout uneven core --layout 3,1,2,1 --racks 2 || status=1 ;;
    esac
done
for l in $layouts; do
    report "$l" | tee "$out/$l.txt"
done
exit $status
