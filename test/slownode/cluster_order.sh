#!/bin/sh
# make cluster-order (root, not in make check): what placing a slow node
# last is worth, per collective.  On the emulated cluster (4 nodes x 2
# ranks in 2 racks), node0's link (ranks 0 and 1, first in rank order) is
# capped at RATE against the others' 1gbit; loom-bench times Loom's
# allreduce, bcast, reduce and allgather at SIZES under rank order and
# under the order libloom-slownode writes for a slow node (its ranks
# last: 2,3,4,5,6,7,0,1, set through coll_loom_rank_order), alternating,
# ROUNDS times.  Prints each collective's median time per size and order.
#
#   test/cluster/cluster.sh -- test/slownode/cluster_order.sh BUILDDIR
set -u
top=${1:?usage: cluster_order.sh BUILDDIR (run under test/cluster/cluster.sh)}
rate=${RATE:-50mbit}
rounds=${ROUNDS:-3}
sizes=${SIZES:-"-b 64K -e 1M -f 16"}
colls=${COLLS:-"allreduce bcast reduce allgather"}
. "$(dirname "$0")/cluster_cap.sh"
cap_node 0 "$rate" || exit 1
echo "node0 (ranks 0 and 1) capped at $rate; loom-bench $sizes, $rounds rounds"

export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$LOOM_CLUSTER_DIR/order
mkdir -p "$out"
r=1
while [ $r -le "$rounds" ]; do
    for c in $colls; do
        for o in identity last; do
            case $o in
                identity) order= ;;
                last) order="--mca coll_loom_rank_order 0:0:2,3,4,5,6,7,0,1" ;;
            esac
            # shellcheck disable=SC2086
            "$LOOM_CLUSTER_MPIRUN" -np 8 --mca mpi_yield_when_idle 1 --mca coll_loom_priority 100 \
                --mca coll_loom_topology "$LOOM_CLUSTER_TOPOLOGY" $order \
                "$top/loom-bench" -c "$c" $sizes --no-compare --no-memcpy-ref -w 1 -n 3 \
                --no-progress --csv "$out/$c.$o.$r.csv" >"$out/$c.$o.$r.log" 2>&1 ||
                echo "round $r: $c under $o failed (see $out/$c.$o.$r.log)"
        done
    done
    r=$((r + 1))
done

# loom-bench's CSV: bytes in column 5, Loom's time (us) in column 8.
echo "collective bytes rank_order_ms slow_last_ms last/identity"
for c in $colls; do
    awk -F, -v c="$c" '
        FNR == 1 { n_f = split(FILENAME, f, "[.]"); o = f[n_f - 2]; next }
        { k = $5 SUBSEP o; n[k]++; v[k, n[k]] = $8 / 1000; sizes[$5] = 1 }
        function med(k,   i, j, t, m) {
            m = n[k]; if (m == 0) return -1
            for (i = 1; i <= m; i++) a[i] = v[k, i]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
        }
        END {
            for (s in sizes) {
                I = med(s SUBSEP "identity"); L = med(s SUBSEP "last")
                printf "%s %d %.2f %.2f %s\n", c, s, I, L, (I > 0 && L > 0 ? sprintf("%.2f", L / I) : "-")
            }
        }' "$out/$c".*.csv | sort -k2,2n
done
