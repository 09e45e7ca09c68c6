#!/bin/sh
# A bad setting: LOOM_PMPI_WINDOW=0 prints one message naming the variable,
# the value and the accepted range; the program runs unprofiled with the
# same results and no profile is written.  LOOM_PMPI_ENABLE=0 is silent.
. "$(dirname "$0")/common.sh"

run plain 2 ""
LOOM_PMPI_WINDOW=0 run bad 2 "$lib"
same plain bad
[ "$(grep -c 'LOOM_PMPI_WINDOW="0" is not accepted: it must be an integer from 1 to 65536' "$dir/bad.err")" -eq 1 ] ||
    { cat "$dir/bad.err" >&2; fail "no single clear message for LOOM_PMPI_WINDOW=0"; }
[ ! -e "$dir/bad.json" ] || fail "a profile was written despite the bad setting"
LOOM_PMPI_ENABLE=0 run off 2 "$lib"
same plain off
[ ! -s "$dir/off.err" ] && [ ! -e "$dir/off.json" ] || fail "LOOM_PMPI_ENABLE=0 still profiled"
echo "== settings: passed"
