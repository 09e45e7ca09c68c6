#!/bin/sh
# Run a program on N ranks of one host under MPICH's launcher (hydra):
#
#   test/mpich/run.sh NP PROGRAM [ARGS...]
#
# for the programs built against MPICH (examples/mpich/, the PMPI
# profiler's MPICH tests).  An Open MPI program started this way does not
# fail: each rank runs alone as a singleton, so callers check the size
# their program reports.
#
# Which launcher: $MPIEXEC_MPICH, else what configure found
# (test/mpich/config.sh in the build tree), else mpiexec.mpich on PATH.
# Hydra runs as root without being asked, and starts more ranks than
# cores (but its ranks poll while they wait: docs/mpich.md); -launcher
# fork starts them as local processes, so no ssh is needed.  The
# environment reaches every rank (hydra's default).  To preload a tool
# (the PMPI profiler) set LOOM_MPICH_PRELOAD=/path/lib.so: it reaches the
# ranks alone, through hydra's -genv, where LD_PRELOAD in the caller's
# environment would load the tool into timeout and mpiexec as well.
#
# Limits: LOOM_MPICH_TIMEOUT seconds (default 120), then the job is killed
# and the exit status is 124.  Otherwise the exit status is mpiexec's: a
# failing rank's (77 stays 77 for a program that skips).

set -u

usage() {
    echo "usage: $0 NP PROGRAM [ARGS...]  (NP: ranks, 1 to 64)" >&2
    exit 2
}

[ $# -ge 2 ] || usage
np=$1
shift
case $np in
    ''|*[!0-9]*) echo "$0: rank count '$np' is not a number (1 to 64)" >&2; usage ;;
esac
if [ "$np" -lt 1 ] || [ "$np" -gt 64 ]; then
    echo "$0: rank count $np is outside 1 to 64" >&2
    usage
fi
timeout_s=${LOOM_MPICH_TIMEOUT:-120}
case $timeout_s in
    ''|*[!0-9]*|0) echo "$0: LOOM_MPICH_TIMEOUT='$timeout_s' is not a positive number of seconds" >&2
        exit 2 ;;
esac

if [ -z "${MPIEXEC_MPICH:-}" ]; then
    config=${abs_top_builddir:-$PWD}/test/mpich/config.sh
    # shellcheck source=/dev/null
    [ -f "$config" ] && . "$config"
fi
mpiexec=${MPIEXEC_MPICH:-$(command -v mpiexec.mpich)}
if [ -z "$mpiexec" ] || [ ! -x "$mpiexec" ]; then
    echo "$0: no MPICH launcher (mpiexec.mpich): apt-get install mpich, or set MPIEXEC_MPICH" >&2
    exit 2
fi

set -- -launcher fork -n "$np" "$@"
if [ -n "${LOOM_MPICH_PRELOAD:-}" ]; then
    set -- -genv LD_PRELOAD "$LOOM_MPICH_PRELOAD" "$@"
fi
exec timeout -k 5 "$timeout_s" "$mpiexec" "$@"
