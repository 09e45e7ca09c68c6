#!/bin/sh
# make check: loom-sim -c sparse_allreduce (docs/loom-sim.md): the sparse
# allreduce plans and simulates at a few rank counts, folded or not; at
# density 0.001 the cost model sends pairs and they beat the dense ring
# allreduce of the same vector; at density 1 it goes dense, as fast as
# the dense path forced; bad --density and --sparse-path values are
# refused by name.  About a second.
set -u
top=${abs_top_builddir:-$PWD}
sim=$top/loom-sim
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# field CSV RANKS COLUMN: that column of the row of RANKS ranks (one size).
field() {
    awk -F, -v p="$2" -v c="$3" 'NR > 1 && $2 == p { print $c }' "$1"
}
# less A B: whether A < B (floats).
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# A few rank counts, in racks small enough to span 4 (32 ranks), folded
# and not: the same numbers, each row with a time and allreduce's bus
# factor.
lay="--ranks-per-node 4 --nodes-per-rack 2 -b 64K -e 4M -f 8 -q -j 1"
for d in 0.001 0.05; do
    # shellcheck disable=SC2086  # word list
    "$sim" -c sparse_allreduce -p 2,8,32 $lay --density $d --csv "$tmp/f$d.csv" ||
        fail "--density $d exited $?"
    # shellcheck disable=SC2086
    "$sim" -c sparse_allreduce -p 2,8,32 $lay --density $d --no-fold --csv "$tmp/n$d.csv" ||
        fail "--density $d --no-fold exited $?"
    cmp -s "$tmp/f$d.csv" "$tmp/n$d.csv" || fail "--no-fold changed the CSV at density $d"
    awk -F, 'NR > 1 && ($1 != "sparse_allreduce" || $9 == "" || $9 <= 0 ||
                        $7 !~ /^allgather\((sparse|dense)\)$/ ||
                        ($11 / $10 - 2 * ($2 - 1) / $2) ^ 2 > 1e-6) { bad = 1 }
             END { exit bad || NR != 10 }' "$tmp/f$d.csv" ||
        fail "density $d: rows without a time, a path or allreduce's bus factor: $(cat "$tmp/f$d.csv")"
done

# Density 0.001 of 16 MiB (4195 floats a rank): the model sends pairs,
# and they beat the dense ring allreduce of the same vector and the
# dense path forced, by far (the default cluster, 8 and 64 ranks).
big="-p 8,64 -b 16M -e 16M -q -j 1"
# shellcheck disable=SC2086
"$sim" -c sparse_allreduce $big --density 0.001 --csv "$tmp/sparse.csv" || fail "sparse run exited $?"
# shellcheck disable=SC2086
"$sim" -c sparse_allreduce $big --density 0.001 --sparse-path dense --csv "$tmp/forced.csv" ||
    fail "--sparse-path dense exited $?"
# shellcheck disable=SC2086
"$sim" -c allreduce -a ring $big --csv "$tmp/ring.csv" || fail "ring allreduce exited $?"
for p in 8 64; do
    [ "$(field "$tmp/sparse.csv" $p 7)" = "allgather(sparse)" ] ||
        fail "$p ranks, density 0.001: the model took $(field "$tmp/sparse.csv" $p 7)"
    [ "$(field "$tmp/forced.csv" $p 7)" = "allgather(dense)" ] ||
        fail "$p ranks: --sparse-path dense ran $(field "$tmp/forced.csv" $p 7)"
    t=$(field "$tmp/sparse.csv" $p 9) ring=$(field "$tmp/ring.csv" $p 9)
    dense=$(field "$tmp/forced.csv" $p 9)
    # 8 ranks: about 55 us against 206 (ring) and 237 (dense path).
    less "$(awk -v t="$t" 'BEGIN { print 2 * t }')" "$ring" ||
        fail "$p ranks, density 0.001: sparse $t us, not under half the ring's $ring us"
    less "$t" "$dense" || fail "$p ranks: sparse $t us, not under the dense path's $dense us"
    # The dense path is the ring allreduce after a densify (a pass over
    # the vector) and the sizes' exchange: slower, by less than a half.
    less "$ring" "$dense" && less "$dense" "$(awk -v r="$ring" 'BEGIN { print 1.5 * r }')" ||
        fail "$p ranks: the dense path's $dense us against the ring's $ring us"
done

# What one rank sends (the CSV's sent_bytes): at 8 ranks every rank's
# block but its right neighbour's, and the sizes' Bruck gather (1 + 2 + 4
# ranks' sizes of 32 bytes).  k = ceil(0.001 * 4194304) = 4195 floats a
# block, delta-encoded (docs/filter.md): 4 bytes a value and, for gaps
# of about 1000, 2 bytes a varint, so between 5 and 6 bytes a pair where
# plain pairs take 8.
sent=$(field "$tmp/sparse.csv" 8 15)
block=$(( (sent - 7 * 32) / 7 ))
[ $(( (sent - 7 * 32) % 7 )) = 0 ] && [ "$block" -gt $((5 * 4195)) ] &&
    [ "$block" -lt $((6 * 4195)) ] ||
    fail "8 ranks, density 0.001: rank 0 sent $sent bytes, blocks of $block"

# Density 1: every element selected; the model goes dense, and the run
# is the forced dense path's to the bit.
# shellcheck disable=SC2086
"$sim" -c sparse_allreduce -p 8 -b 4M -e 4M -q -j 1 --density 1 --csv "$tmp/d1.csv" ||
    fail "--density 1 exited $?"
# shellcheck disable=SC2086
"$sim" -c sparse_allreduce -p 8 -b 4M -e 4M -q -j 1 --density 1 --sparse-path dense \
    --csv "$tmp/d1f.csv" || fail "--density 1 --sparse-path dense exited $?"
[ "$(field "$tmp/d1.csv" 8 7)" = "allgather(dense)" ] ||
    fail "density 1: the model took $(field "$tmp/d1.csv" 8 7)"
[ "$(field "$tmp/d1.csv" 8 9)" = "$(field "$tmp/d1f.csv" 8 9)" ] ||
    fail "density 1: $(field "$tmp/d1.csv" 8 9) us, the forced dense path $(field "$tmp/d1f.csv" 8 9) us"
# Forced sparse at density 1: every rank's whole vector as pairs,
# slower than dense.
"$sim" -c sparse_allreduce -p 8 -b 4M -e 4M -q -j 1 --density 1 --sparse-path sparse \
    --csv "$tmp/d1s.csv" || fail "--density 1 --sparse-path sparse exited $?"
[ "$(field "$tmp/d1s.csv" 8 7)" = "allgather(sparse)" ] || fail "--sparse-path sparse not taken"
less "$(field "$tmp/d1.csv" 8 9)" "$(field "$tmp/d1s.csv" 8 9)" ||
    fail "density 1: dense $(field "$tmp/d1.csv" 8 9) us not under sparse $(field "$tmp/d1s.csv" 8 9) us"

# The table names the path too.
"$sim" -c sparse_allreduce -p 8 -b 16M -e 16M -j 1 --density 0.001 >"$tmp/table.txt" ||
    fail "the table run exited $?"
grep -q '^ *8 .*allgather(sparse)' "$tmp/table.txt" || fail "no allgather(sparse) row in the table"
grep -q 'selects 0.001 of the vector' "$tmp/table.txt" || fail "the table does not say the density"
# choices knows the collective (it simulates nothing).
"$sim" choices -c sparse_allreduce -p 8 -b 1M -e 1M >"$tmp/choices.txt" ||
    fail "choices -c sparse_allreduce exited $?"
grep -q '^sparse_allreduce *8 .* allgather ' "$tmp/choices.txt" ||
    fail "choices: $(cat "$tmp/choices.txt")"

# Bad input: status 2 and a message naming the value.
check_bad() {
    want=$1; shift
    "$sim" "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "loom-sim $*: exit $rc, expected 2"
    grep -q -- "$want" "$tmp/err" || fail "loom-sim $*: message '$(cat "$tmp/err")' does not say $want"
}
for d in 0 -0.1 1.5 abc 0.5x nan inf ""; do
    check_bad "--density: '$d' is not a fraction of the vector in (0, 1]" \
        -c sparse_allreduce --density "$d"
done
check_bad "--sparse-path: 'pairs' is not model, sparse or dense" \
    -c sparse_allreduce --sparse-path pairs
check_bad "--density: applies to a run of -c sparse_allreduce only" -c allreduce --density 0.1
check_bad "--sparse-path: applies to a run of -c sparse_allreduce only" \
    choices -c sparse_allreduce --sparse-path dense
echo "PASS: loom-sim -c sparse_allreduce"
