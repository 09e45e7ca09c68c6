#!/bin/sh
# Nothing injected over 1,000 collectives on 8 ranks sharing 2 cores, at
# the default thresholds (docs/slownode.md): no rank flagged, on any rank,
# in any of the 100 windows.  1 ms steps keep it to a few seconds.
. "$(dirname "$0")/common.sh"

run quiet 8 "$lib" 1000 1
# 1000 steps and step_prog's final check: 1001 collectives, 100 full windows.
verdicts quiet 8 --none 100
echo "== 1,000 collectives, nothing injected: no flag"
