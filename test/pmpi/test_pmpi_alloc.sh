#!/bin/sh
# No allocation on the call path after warm-up (docs/pmpi.md): with
# test/pmpi/alloccount.so preloaded before the library, pmpi_prog on 3
# ranks runs 18 iterations of every profiled call (from its second
# barrier to its first MPI_Comm_dup) in which the library must call
# malloc, calloc or realloc not once.  The counter must have seen the
# library's own allocations outside that window (MPI_Init's tables), so a
# counter that sees nothing cannot pass.
. "$(dirname "$0")/common.sh"
alloccount=$top/test/pmpi/.libs/alloccount.so
[ -e "$alloccount" ] || fail "$alloccount is not built"

run plain 3 ""
LOOM_PMPI_CHART=0 run alloc 3 "$alloccount:$lib"
same plain alloc
check alloc 3
lines=$(grep -c "^alloccount: rank [0-9]: $lib: [1-9][0-9]* allocations outside the window, 0 in it\$" "$dir/alloc.err")
[ "$lines" -eq 3 ] || { grep '^alloccount' "$dir/alloc.err" >&2; fail "libloom-pmpi allocated on the call path after warm-up"; }
grep '^alloccount: rank 0' "$dir/alloc.err"
echo "== no allocation after warm-up: passed"
