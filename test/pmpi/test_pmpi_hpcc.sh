#!/bin/sh
# Debian's hpcc (an unmodified, stripped Open MPI program) with
# libloom-pmpi preloaded, on 2 ranks: hpcc's own checks pass
# (hpcc_small.sh), and the profile validates against the schema, has 2
# ranks, a traffic file that is its two matrices added, and counts the
# collectives hpcc is known to call (HPL's and PTRANS's broadcasts and
# reductions, the benchmark's barriers) with calls and time.  Skips (77)
# without hpcc.
. "$(dirname "$0")/common.sh"

np=2
HPCC_DIR=$dir/hpcc PRELOAD=$lib HPCC_MPIRUN_ARGS="-x LOOM_PMPI_OUT=$dir/hpcc/prof" \
    "$here/hpcc_small.sh" $np >"$dir/hpcc.out" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$dir/hpcc.out"; exit 77; }
[ $rc -eq 0 ] || { cat "$dir/hpcc.out" >&2; fail "hpcc_small.sh with $lib preloaded exited $rc"; }
grep '^PASS' "$dir/hpcc.out"
grep -q '^libloom-pmpi: '"$np"' ranks' "$dir/hpcc/mpirun.out" ||
    { cat "$dir/hpcc/mpirun.out" >&2; fail "no profile summary in hpcc's output"; }
python3 "$here/check_profile.py" --prefix "$dir/hpcc/prof" --np $np \
    --called MPI_Bcast --called MPI_Allreduce --called MPI_Barrier --called MPI_Reduce ||
    fail "hpcc's profile"
echo "== hpcc with libloom-pmpi: passed"
