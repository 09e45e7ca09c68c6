#!/bin/sh
# The examples built against MPICH (examples/mpich/) run under MPICH's
# launcher on 1, 2 and 3 ranks and compute what their Open MPI builds do:
#   - each links MPICH's libmpich and not Open MPI's libmpi;
#   - allreduce_compare reports a world of N ranks (not N singletons, which
#     is what a program of the other MPI would see), one row per size from
#     8 B to 64 KiB, and its own check of every sum passes;
#   - train_mlp, 40 steps: on 1 rank the parameters are bit for bit those
#     of the Open MPI build on 1 rank (same code, same BLAS; the allreduce
#     of one rank is a copy), on 2 and 3 ranks equal to them within 1e-5
#     relative (the sums' order is the MPI's own), as test_dp_equal.sh
#     asks of Open MPI across rank counts.
# Skips (77) only when configure found no MPICH; train_mlp's part is left
# out, and says so, where the training examples or their data are absent.
set -u
top=${abs_top_builddir:-$PWD}
src=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
run=$src/test/mpich/run.sh
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -f "$top/test/mpich/config.sh" ] ||
    fail "$top/test/mpich/config.sh is missing (run from the top build directory, after configure)"
# shellcheck source=/dev/null
. "$top/test/mpich/config.sh"
if [ "${loom_mpich:-}" != yes ]; then
    echo "SKIP: configure found no MPICH (apt-get install libmpich-dev mpich, then re-run configure)"
    exit 77
fi
export MPIEXEC_MPICH OPENBLAS_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-mpich.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# linked_to_mpich PROGRAM: its MPI is MPICH's alone.
linked_to_mpich() {
    [ -x "$1" ] || fail "$1 is not built"
    # Through libtool: a program linked with a library of the build tree
    # is a wrapper script until installed.
    "$top/libtool" --mode=execute ldd "$1" >"$tmp/ldd" 2>&1 ||
        { cat "$tmp/ldd"; fail "ldd $1 failed"; }
    grep -q 'libmpich\.so' "$tmp/ldd" || { cat "$tmp/ldd"; fail "$1 does not link libmpich"; }
    if grep -q 'libmpi\.so' "$tmp/ldd"; then
        cat "$tmp/ldd"; fail "$1 links Open MPI's libmpi as well as MPICH"
    fi
}

# mpich NP OUT PROGRAM ARGS...: run it, output in OUT, shown on failure.
mpich() {
    np=$1 out=$2
    shift 2
    "$run" "$np" "$@" >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { cat "$out"; fail "$* on $np MPICH ranks exited $rc"; }
}

# ------------------------------------------------------ allreduce_compare
exe=$top/examples/mpich/allreduce_compare
linked_to_mpich "$exe"
for np in 1 2 3; do
    out=$tmp/compare$np
    mpich "$np" "$out" "$exe" mpich 65536
    grep -qx "# mpich: MPI_Allreduce, double sum, $np ranks" "$out" ||
        { cat "$out"; fail "allreduce_compare does not report a world of $np ranks"; }
    grep -qx '# mpich: all results correct' "$out" ||
        { cat "$out"; fail "allreduce_compare on $np ranks found wrong sums"; }
    # One row per size, doubling from 8 B, each with a time (0.0 us is
    # possible: one rank's allreduce is a copy).
    awk -v np="$np" '
        /^#/ { next }
        { want = want ? want * 2 : 8
          if ($1 != want || $2 !~ /^[0-9]+\.[0-9]$/) { print "row " NR ": " $0 " (wanted " want " B and a time)"; bad = 1 } }
        END { if (want != 65536) { print "sizes end at " want " B, not 65536"; bad = 1 }; exit bad }' "$out" ||
        { cat "$out"; fail "allreduce_compare on $np ranks printed the wrong sizes"; }
    echo "== allreduce_compare, $np MPICH ranks: sums correct, sizes 8 B to 64 KiB"
done

# -------------------------------------------------------------- train_mlp
data=${LOOM_TRAIN_DATA:-/usr/share/datasets/fashion-mnist}
if [ ! -x "$top/examples/train_mlp" ]; then
    echo "== train_mlp: not built (no BLAS or zlib), its part is left out"
    exit 0
fi
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
    echo "== train_mlp: no Fashion-MNIST in $data (apt-get install dataset-fashion-mnist), its part is left out"
    exit 0
fi
exe=$top/examples/mpich/train_mlp
linked_to_mpich "$exe"
compare=$top/test/train/compare_params
[ -x "$compare" ] || fail "$compare is not built"
set -- --data "$data" --hidden 64,32 --train-limit 2000 --test-limit 200 --batch 50 \
    --epochs 2 --steps 40 --quiet
# Open MPI's own collectives (Loom's component is not on the path).
timeout -k 5 120 "${MPIRUN:-mpirun}" -np 1 "$top/examples/train_mlp" "$@" \
    --dump-params "$tmp/ompi1" >"$tmp/ompi1.out" 2>&1 ||
    { cat "$tmp/ompi1.out"; fail "the Open MPI build of train_mlp failed on 1 rank"; }
for np in 1 2 3; do
    mpich "$np" "$tmp/mpich$np.out" "$exe" "$@" --dump-params "$tmp/mpich$np"
    grep -q "^SUMMARY ranks=$np .*steps=40 " "$tmp/mpich$np.out" ||
        { cat "$tmp/mpich$np.out"; fail "train_mlp on $np MPICH ranks did not report 40 steps on $np ranks"; }
done
cmp "$tmp/ompi1" "$tmp/mpich1" ||
    fail "train_mlp on 1 rank: MPICH's parameters differ from Open MPI's"
for np in 2 3; do
    "$compare" "$tmp/ompi1" "$tmp/mpich$np" 1e-5 ||
        fail "train_mlp on $np MPICH ranks reached other parameters than Open MPI on 1 rank"
done
echo "== train_mlp, 40 steps: MPICH on 1 rank equals Open MPI's bit for bit; on 2 and 3 ranks within 1e-5"
