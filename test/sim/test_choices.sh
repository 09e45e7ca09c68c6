#!/bin/sh
# make check: the algorithm, segment and depth the engine chooses, for
# every collective loom-sim knows, at 2, 3, 4, 7, 8, 16, 64, 256, 1024 and
# 4096 ranks and every power of 4 from 8 B to 512 MiB, on loom-sim's
# default model (docs/scaling.md's cluster) and on the emulated
# cluster's (2 ranks per node, 2 nodes per rack, 1 Gbit/s node links,
# 300 Mbit/s uplinks; both placements), against the tables checked in
# beside this script.  A refactoring of the selection must leave them as
# they are; a change of a choice on purpose rewrites them with
# make sim-choices-update, in a commit that says why.
set -u
top=${abs_top_builddir:-${top_builddir:-$PWD}}
src=${abs_top_srcdir:-${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}}
sim=$top/loom-sim
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

points="-p 2,3,4,7,8,16,64,256,1024,4096 -b 8 -e 512M -f 4"
rig="--ranks-per-node 2 --nodes-per-rack 2 --nics-per-node 1 --set intra_rack_gbs=0.125
     --set nic_gbs=0.125 --set inter_rack_gbs=0.0375 --set uplink_gbs=0.0375"
# shellcheck disable=SC2086  # word lists
"$sim" choices $points >"$tmp/default.txt" || fail "loom-sim choices (default model) exited $?"
# shellcheck disable=SC2086
{ "$sim" choices $points $rig --map-by core && "$sim" choices $points $rig --map-by node; } \
    >"$tmp/cluster.txt" || fail "loom-sim choices (emulated cluster) exited $?"

# Each table: 6 collectives x 10 rank counts x 14 sizes, per placement.
for t in default:840 cluster:1680; do
    name=${t%%:*} want=${t#*:}
    got=$(grep -vc '^#' "$tmp/$name.txt")
    [ "$got" -eq "$want" ] || fail "$name: $got choices, expected $want"
done

if [ "${LOOM_SIM_CHOICES_UPDATE:-0}" = 1 ]; then
    cp "$tmp/default.txt" "$src/test/sim/choices-default.txt" &&
        cp "$tmp/cluster.txt" "$src/test/sim/choices-cluster.txt" || fail "cannot write the tables"
    echo "sim-choices-update: rewrote test/sim/choices-default.txt and choices-cluster.txt"
    exit 0
fi

status=0
for name in default cluster; do
    if ! diff -u "$src/test/sim/choices-$name.txt" "$tmp/$name.txt" >"$tmp/$name.diff"; then
        echo "FAIL: the engine's choices on the $name model changed ($(grep -c '^+[^+]' "$tmp/$name.diff") lines):" >&2
        head -n 40 "$tmp/$name.diff" >&2
        status=1
    else
        echo "PASS: $name model: $(grep -vc '^#' "$tmp/$name.txt") choices as in test/sim/choices-$name.txt"
    fi
done
[ $status -eq 0 ] || echo "If the change is meant: make sim-choices-update, and say why in the commit." >&2

# A table that cannot fail is no test: the choices differ across the
# points (each collective picks at least two algorithms on each model).
for name in default cluster; do
    for coll in allreduce bcast reduce allgather reduce_scatter; do
        n=$(awk -v c="$coll" '$1 == c { print $6 }' "$tmp/$name.txt" | sort -u | wc -l)
        [ "$n" -ge 2 ] || fail "$name: $coll chooses one algorithm everywhere ($n)"
    done
done
# Bad input is refused by name.
"$sim" choices -c nope >/dev/null 2>"$tmp/err" && fail "choices -c nope exited 0"
grep -q -- "-c: 'nope' is not simulated" "$tmp/err" || fail "choices -c nope: no message naming -c"
exit $status
