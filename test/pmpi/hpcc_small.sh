#!/bin/sh
# Debian's HPC Challenge (hpcc, an unmodified Open MPI program) on a
# problem sized to finish in seconds, as a workload for the PMPI
# profiler (issue 29), and as a make check test without it:
#
#   test/pmpi/hpcc_small.sh [NP]        NP ranks, 1 to 16 (default 2)
#
# It writes an hpccinf.txt (HPL N=200, NB=40, a P x Q grid of the NP
# ranks, as square as NP allows) in a fresh directory, runs hpcc there
# under Open MPI's mpirun, and checks hpcc's own report, hpccoutf.txt:
# it reached "End of HPC Challenge tests.", says Success=1, ran on NP
# processes on that grid and that N; the HPL residual recomputed here from
# the summary's norms, ||Ax-b||/(eps (||A|| ||x|| + ||b||) N), is under
# the input's threshold; RandomAccess's error fraction is within hpcc's
# 1%.  Then it prints where the report is and how long the run took.
#
# Settings (environment):
#   PRELOAD=/path/lib.so   loaded into the ranks (mpirun -x LD_PRELOAD),
#                          e.g. libloom-pmpi.so; mpirun itself is not
#   HPCC_DIR=DIR           run in DIR (created if needed) and keep it;
#                          otherwise a temporary directory, removed after
#                          a pass and kept after a failure
#   HPCC_MPIRUN_ARGS="..." more mpirun arguments (e.g. -x SOME_SETTING)
#   HPCC=/path/hpcc        the benchmark (default: hpcc on PATH)
#   LOOM_HPCC_TIMEOUT=S    seconds before the run is killed (default 120)
# Exit status: 0 pass, 1 fail, 2 bad usage or setting, 77 no hpcc on PATH
# (and no HPCC given).
set -u

fail() { echo "FAIL: $*" >&2; exit 1; }
usage() { echo "usage: $0 [NP]  (NP: ranks, 1 to 16; default 2)" >&2; exit 2; }

np=${1:-2}
[ $# -le 1 ] || usage
case $np in
    ''|*[!0-9]*) echo "$0: rank count '$np' is not a number" >&2; usage ;;
esac
{ [ "$np" -ge 1 ] && [ "$np" -le 16 ]; } || { echo "$0: rank count $np is outside 1 to 16" >&2; usage; }
timeout_s=${LOOM_HPCC_TIMEOUT:-120}
case $timeout_s in
    ''|*[!0-9]*|0) echo "$0: LOOM_HPCC_TIMEOUT='$timeout_s' is not a positive number of seconds" >&2
        exit 2 ;;
esac
if [ -n "${HPCC:-}" ]; then
    [ -x "$HPCC" ] || { echo "$0: HPCC=$HPCC is not an executable file (the hpcc benchmark)" >&2; exit 2; }
    hpcc=$HPCC
else
    hpcc=$(command -v hpcc) || { echo "SKIP: no hpcc (apt-get install hpcc, or set HPCC=/path/hpcc)"; exit 77; }
fi
set -- -np "$np" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1
if [ -n "${PRELOAD:-}" ]; then
    { [ -f "$PRELOAD" ] && [ -r "$PRELOAD" ]; } ||
        { echo "$0: PRELOAD=$PRELOAD is not a readable file (a shared library to preload)" >&2; exit 2; }
    set -- "$@" -x "LD_PRELOAD=$PRELOAD"
fi

# The grid: P the largest divisor of NP with P*P <= NP, as HPL prefers
# P <= Q.
p=1
d=1
while [ $((d * d)) -le "$np" ]; do
    [ $((np % d)) -eq 0 ] && p=$d
    d=$((d + 1))
done
q=$((np / p))
n=200
nb=40
threshold=16.0

if [ -n "${HPCC_DIR:-}" ]; then
    dir=$HPCC_DIR
    mkdir -p "$dir" || exit 1
    keep=yes
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-hpcc.XXXXXX") || exit 1
    keep=no
fi
dir=$(cd "$dir" && pwd)
rm -f "$dir/hpccoutf.txt"
# HPL's input format: a value, then its description, one per line; the
# PTRANS lines follow line 32, the separator.
cat >"$dir/hpccinf.txt" <<INF
HPLinpack benchmark input file
written by Loom's test/pmpi/hpcc_small.sh: sized for seconds, not for speed
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n           Ns
1            # of NBs
$nb          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$p           Ps
$q           Qs
$threshold         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0            Number of additional problem sizes for PTRANS
$n           values of N
0            number of additional blocking sizes for PTRANS
$nb          values of NB
INF

report=$dir/hpccoutf.txt
failed() {
    echo "hpcc's directory, kept: $dir" >&2
    fail "$*"
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "hpcc on $np ranks ($p x $q), N=$n NB=$nb${PRELOAD:+, preloading $PRELOAD}, in $dir"
start=$(date +%s.%N)
# shellcheck disable=SC2086  # HPCC_MPIRUN_ARGS is a list of words
(cd "$dir" && timeout -k 5 "$timeout_s" "${MPIRUN:-mpirun}" "$@" ${HPCC_MPIRUN_ARGS:-} "$hpcc" \
    </dev/null >"$dir/mpirun.out" 2>&1)
rc=$?
end=$(date +%s.%N)
[ $rc -eq 0 ] || { cat "$dir/mpirun.out" >&2; failed "mpirun ... hpcc exited $rc${PRELOAD:+ (with $PRELOAD preloaded)}"; }
[ -f "$report" ] || { cat "$dir/mpirun.out" >&2; failed "hpcc wrote no $report"; }
grep -q '^End of HPC Challenge tests\.' "$report" || failed "$report does not reach the end of the tests"

# value KEY: KEY's value in the report's summary section.
value() {
    sed -n "/^Begin of Summary section/,/^End of Summary section/s/^$1=//p" "$report"
}
[ "$(value Success)" = 1 ] || failed "hpcc says Success=$(value Success), not 1"
[ "$(value CommWorldProcs)" = "$np" ] || failed "hpcc ran on $(value CommWorldProcs) processes, not $np"
{ [ "$(value HPL_N)" = "$n" ] && [ "$(value HPL_nprow)" = "$p" ] && [ "$(value HPL_npcol)" = "$q" ]; } ||
    failed "HPL solved N=$(value HPL_N) on $(value HPL_nprow) x $(value HPL_npcol), not N=$n on $p x $q"
residual=$(awk -v r="$(value HPL_RnormI)" -v e="$(value HPL_eps)" -v a="$(value HPL_AnormI)" \
    -v x="$(value HPL_XnormI)" -v b="$(value HPL_BnormI)" -v n="$n" \
    'BEGIN { if (r == "" || e <= 0 || n <= 0) { print "none"; exit }
             printf "%.6g", r / (e * (a * x + b) * n) }')
awk -v s="$residual" -v t="$threshold" 'BEGIN { exit !(s != "none" && s + 0 < t + 0) }' ||
    failed "HPL's scaled residual is $residual, not under $threshold"
ra=$(value MPIRandomAccess_ErrorsFraction)
awk -v f="$ra" 'BEGIN { exit !(f != "" && f + 0 <= 0.01) }' ||
    failed "RandomAccess's error fraction is '$ra', not within 1%"
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
echo "PASS: hpcc finished on $np ranks in $seconds s (HPL scaled residual $residual, RandomAccess errors $ra)"
if [ $keep = yes ]; then
    echo "hpcc's report: $report"
else
    echo "hpcc's report was $report (removed; set HPCC_DIR=DIR to keep it)"
    rm -rf "$dir"
fi
