#!/bin/sh
# A rank made late on purpose is named: on 4 ranks, rank 2 sleeps 20 ms
# before each allreduce of one call site; the summary names it last at that
# site and the JSON puts it first among late ranks.  The same on 3 ranks
# with rank 1, and the program's results are unchanged.
. "$(dirname "$0")/common.sh"

LOOM_TEST_SLOW_RANK=2 LOOM_TEST_SLOW_MS=20 run late4 4 "$lib"
run plain4 4 ""
same plain4 late4
check late4 4 --late 2
LOOM_TEST_SLOW_RANK=1 LOOM_TEST_SLOW_MS=20 LOOM_PMPI_WINDOW=7 run late3 3 "$lib"
check late3 3 --late 1
echo "== late ranks: passed"
