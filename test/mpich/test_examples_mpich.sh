#!/bin/bash
# The examples built against MPICH (examples/mpich/) run under MPICH's
# launcher on 1, 2 and 3 ranks and compute what their Open MPI builds do:
#   - each links MPICH's libmpich and not Open MPI's libmpi;
#   - allreduce_compare reports a world of N ranks (not N singletons, which
#     is what a program of the other MPI would see), one row per size from
#     8 B to 64 KiB (4 KiB with more ranks than cores), and its own check
#     of every sum passes;
#   - train_mlp, 40 steps: on 1 rank the parameters are bit for bit those
#     of the Open MPI build on 1 rank (same code, same BLAS; the allreduce
#     of one rank is a copy), on 2 and 3 ranks equal to them within 1e-5
#     relative (the sums' order is the MPI's own), as test_dp_equal.sh
#     asks of Open MPI across rank counts;
#   - a checkpoint of step 20 saved under one MPI resumes under the other,
#     on another rank count, and reaches those parameters at step 40.
# Skips (77) only when configure found no MPICH; train_mlp's part is left
# out, and says so, where the training examples or their data are absent.
set -u
top=${abs_top_builddir:-$PWD}
src=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
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

# launch MPI NP OUT PROGRAM ARGS...: PROGRAM on NP ranks of MPI (mpich:
# test/mpich/run.sh; ompi: mpirun, with Open MPI's own collectives, as
# Loom's component is not on its path); output in OUT, shown on failure.
launch() {
    local mpi=$1 np=$2 out=$3 rc
    shift 3
    case $mpi in
        mpich) "$src/test/mpich/run.sh" "$np" "$@" >"$out" 2>&1 ;;
        ompi) timeout -k 5 120 "${MPIRUN:-mpirun}" -np "$np" --oversubscribe \
                  --mca mpi_yield_when_idle 1 "$@" </dev/null >"$out" 2>&1 ;;
    esac
    rc=$?
    [ $rc -eq 0 ] || { cat "$out"; fail "$* on $np $mpi ranks exited $rc"; }
}

# ------------------------------------------------------ allreduce_compare
exe=$top/examples/mpich/allreduce_compare
linked_to_mpich "$exe"
cores=$(nproc)
for np in 1 2 3; do
    out=$tmp/compare$np
    # MPICH's waiting ranks poll (docs/mpich.md): with more ranks than
    # cores each call waits for time slices, so fewer sizes then.
    max=65536
    [ "$np" -le "$cores" ] || max=4096
    launch mpich "$np" "$out" "$exe" mpich $max
    grep -qx "# mpich: MPI_Allreduce, double sum, $np ranks" "$out" ||
        { cat "$out"; fail "allreduce_compare does not report a world of $np ranks"; }
    grep -qx '# mpich: all results correct' "$out" ||
        { cat "$out"; fail "allreduce_compare on $np ranks found wrong sums"; }
    # One row per size, doubling from 8 B, each with a time (0.0 us is
    # possible: one rank's allreduce is a copy).
    awk -v max=$max '
        /^#/ { next }
        { want = want ? want * 2 : 8
          if ($1 != want || $2 !~ /^[0-9]+\.[0-9]$/) { print "row " NR ": " $0 " (wanted " want " B and a time)"; bad = 1 } }
        END { if (want != max) { print "sizes end at " want " B, not " max; bad = 1 }; exit bad }' "$out" ||
        { cat "$out"; fail "allreduce_compare on $np ranks printed the wrong sizes"; }
    echo "== allreduce_compare, $np MPICH ranks: sums correct, sizes 8 B to $max B"
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
declare -A train=([mpich]=$top/examples/mpich/train_mlp [ompi]=$top/examples/train_mlp)
linked_to_mpich "${train[mpich]}"
compare=$top/test/train/compare_params
[ -x "$compare" ] || fail "$compare is not built"
args=(--data "$data" --hidden "64,32" --train-limit 2000 --test-limit 200 --batch 50 --epochs 2)

launch ompi 1 "$tmp/ompi1.out" "${train[ompi]}" "${args[@]}" --steps 40 --quiet \
    --dump-params "$tmp/ompi1"
for np in 1 2 3; do
    launch mpich "$np" "$tmp/mpich$np.out" "${train[mpich]}" "${args[@]}" --steps 40 --quiet \
        --dump-params "$tmp/mpich$np"
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

# A checkpoint (libloom-ckpt) is the job's, not its MPI's.
# resume_across SAVE_MPI SAVE_NP RESUME_MPI RESUME_NP: SAVE_MPI runs to
# step 20, checkpointing every 10, and stops; RESUME_MPI resumes from its
# step 20, runs steps 21 to 40 alone, and ends where the uninterrupted run
# on 1 rank did.
resume_across() {
    local ck=$tmp/ck-$1-$3 out=$tmp/resume-$3.out
    launch "$1" "$2" "$tmp/save-$1.out" "${train[$1]}" "${args[@]}" --steps 20 \
        --checkpoint-dir "$ck" --checkpoint-every 10
    launch "$3" "$4" "$out" "${train[$3]}" "${args[@]}" --steps 40 \
        --checkpoint-dir "$ck" --checkpoint-every 10 --dump-params "$tmp/resumed-$3"
    grep -q "^resumed from checkpoint step 20 .* on $4 ranks" "$out" ||
        { cat "$out"; fail "$3 on $4 ranks did not resume from $1's step 20"; }
    grep -q "^SUMMARY ranks=$4 .*steps=40 .*grad_allreduces=20 " "$out" ||
        { cat "$out"; fail "$3 on $4 ranks did not run steps 21 to 40 alone"; }
    "$compare" "$tmp/ompi1" "$tmp/resumed-$3" 1e-5 ||
        fail "saved by $1 on $2 ranks, resumed by $3 on $4: other parameters than the uninterrupted run"
    echo "== train_mlp: step 20 saved under $1 on $2 ranks, resumed under $3 on $4, same parameters at step 40"
}
resume_across mpich 2 ompi 3
resume_across ompi 3 mpich 2
