#!/bin/sh
# Two tools stacked in LD_PRELOAD, in both orders: test/pmpi/stacktool.so
# counts MPI_Allreduce through the next definition, as libloom-pmpi does;
# both must see every allreduce the program made (4 per iteration per rank).
. "$(dirname "$0")/common.sh"
[ -e "$stacktool" ] || fail "$stacktool is not built"

want=$((4 * iters))
for order in "$lib:$stacktool" "$stacktool:$lib"; do
    run stack 3 "$order"
    n=$(grep -c "^stacktool: rank [0-9] saw $want MPI_Allreduce\$" "$dir/stack.err")
    [ "$n" -eq 3 ] || { cat "$dir/stack.err" >&2; fail "$order: stacktool did not see $want allreduces on every rank"; }
    check stack 3
    echo "== LD_PRELOAD=$order: both tools saw all $want allreduces per rank"
done
