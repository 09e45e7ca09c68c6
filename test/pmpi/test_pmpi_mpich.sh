#!/bin/bash
# libloom-pmpi's MPICH build (libloom-pmpi-mpich.so) under MPICH's launcher,
# at most 3 ranks (MPICH's waiting ranks poll: docs/mpich.md):
#   - it links MPICH's libmpich and not Open MPI's libmpi;
#   - pmpi_prog built against MPICH (test/mpich/pmpi_prog), on 1 and 3
#     ranks: the same output with and without the library, and a profile
#     that check_profile.py finds exact, as under Open MPI; on 2 ranks, a
#     rank made late on purpose is named the last arrival;
#   - the examples built against MPICH (examples/mpich/): allreduce_compare
#     prints the same sizes and verdict with and without the library (its
#     times differ from run to run) and the profile counts exactly the
#     barriers and allreduces its loop makes, computed here from its
#     parameters; train_mlp ends with the same parameters, bit for bit, and
#     the profile counts the gradient allreduces it reports.
# Skips (77) when configure found no MPICH.
mpi=mpich
. "$(dirname "$0")/common.sh"
# Fewer iterations than under Open MPI: every collective of a polling
# rank waits for a time slice when ranks outnumber cores.
iters=8

# linked_to_mpich FILE: its MPI is MPICH's alone.
linked_to_mpich() {
    "$top/libtool" --mode=execute ldd "$1" >"$dir/ldd" 2>&1 ||
        { cat "$dir/ldd" >&2; fail "ldd $1 failed"; }
    grep -q 'libmpich\.so' "$dir/ldd" || { cat "$dir/ldd" >&2; fail "$1 does not link libmpich"; }
    if grep -q 'libmpi\.so' "$dir/ldd"; then
        cat "$dir/ldd" >&2; fail "$1 links Open MPI's libmpi as well as MPICH"
    fi
}
linked_to_mpich "$lib"
linked_to_mpich "$prog"
echo "== $lib and $prog link MPICH alone"

for np in 1 3; do
    profiled $np
    grep -q '"mpi_library": "MPICH' "$dir/pmpi$np.json" ||
        fail "pmpi$np: the profile does not name MPICH as its MPI library"
    echo "== pmpi_prog, $np MPICH ranks: passed"
done
# The last arrival under MPICH's integer handles: rank 1 sleeps 100 ms
# before each allreduce of one site and must be named last there and
# first among late ranks.  On 2 ranks: on 3, the polling ranks share 2
# cores and lose milliseconds to each other at every collective, which
# can outweigh 20 ms per iteration; 100 ms keeps the margin under load.
run plain2 2 ""
LOOM_TEST_SLOW_RANK=1 LOOM_TEST_SLOW_MS=100 run late2 2 "$lib"
same plain2 late2
check late2 2 --late 1
echo "== pmpi_prog, 2 MPICH ranks, rank 1 late: named"

# mpich_run NAME NP PRELOAD PROGRAM ARGS...: like common.sh's run, for
# another program.
mpich_run() {
    local name=$1 np=$2 preload=$3 rc
    shift 3
    LOOM_PMPI_OUT="$dir/$name" LOOM_MPICH_PRELOAD="$preload" \
        "$here/../mpich/run.sh" "$np" "$@" </dev/null >"$dir/$name.out" 2>"$dir/$name.err" ||
        { rc=$?; cat "$dir/$name.out" "$dir/$name.err" >&2; fail "$name: mpiexec.mpich exited $rc"; }
}

# ------------------------------------------------------ allreduce_compare
# Per size s from 8 B to max, doubling, 2 warm-up and 40 timed rounds of:
# barrier, allreduce of s bytes, allreduce of the 8-byte time in place;
# then one allreduce of the 4-byte error count.
exe=$top/examples/mpich/allreduce_compare
np=2 max=4096
mpich_run cmp_plain $np "" "$exe" mpich $max
mpich_run cmp_pmpi $np "$lib" "$exe" mpich $max
# Everything but the times (the second column of the rows).
strip_times() { awk '/^#/ { print; next } { print $1 }' "$1"; }
[ "$(strip_times "$dir/cmp_plain.out")" = "$(strip_times "$dir/cmp_pmpi.out")" ] ||
    { diff "$dir/cmp_plain.out" "$dir/cmp_pmpi.out" >&2; fail "allreduce_compare printed other results with the library"; }
grep -qx '# mpich: all results correct' "$dir/cmp_pmpi.out" ||
    { cat "$dir/cmp_pmpi.out" >&2; fail "allreduce_compare found wrong sums with the library"; }
rounds=0 data=0 s=8
while [ $s -le $max ]; do
    rounds=$((rounds + 42))
    data=$((data + 42 * s))
    s=$((s * 2))
done
python3 "$here/check_profile.py" --prefix "$dir/cmp_pmpi" --np $np \
    --expect "MPI_Barrier:$((np * rounds)):0" \
    --expect "MPI_Allreduce:$((np * (2 * rounds + 1))):$((np * (data + 8 * rounds + 4)))" ||
    fail "allreduce_compare: profile"
echo "== allreduce_compare, $np MPICH ranks: same results, exact counts"

# -------------------------------------------------------------- train_mlp
data_dir=${LOOM_TRAIN_DATA:-/usr/share/datasets/fashion-mnist}
train=$top/examples/mpich/train_mlp
if [ ! -x "$train" ] || [ ! -f "$data_dir/train-images-idx3-ubyte.gz" ]; then
    echo "== train_mlp: not built or no Fashion-MNIST in $data_dir, its part is left out"
    exit 0
fi
np=2
args=(--data "$data_dir" --hidden "64,32" --train-limit 1000 --test-limit 100 --batch 50
      --epochs 1 --steps 20 --quiet)
export OPENBLAS_NUM_THREADS=1
mpich_run mlp_plain $np "" "$train" "${args[@]}" --dump-params "$dir/params_plain"
mpich_run mlp_pmpi $np "$lib" "$train" "${args[@]}" --dump-params "$dir/params_pmpi"
cmp "$dir/params_plain" "$dir/params_pmpi" ||
    fail "train_mlp ended with other parameters with the library"
summary=$(grep '^SUMMARY ' "$dir/mlp_pmpi.out") || { cat "$dir/mlp_pmpi.out" >&2; fail "train_mlp printed no SUMMARY"; }
# field NAME: NAME=value in the SUMMARY line (rank 0's; every rank makes the
# same gradient allreduces).
field() { echo "$summary" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
n=$(field grad_allreduces) bytes=$(field bytes_sent)
[ -n "$n" ] && [ "$n" -gt 0 ] && [ -n "$bytes" ] || fail "train_mlp's SUMMARY lacks grad_allreduces or bytes_sent: $summary"
python3 "$here/check_profile.py" --prefix "$dir/mlp_pmpi" --np $np \
    --expect "MPI_Allreduce@$((bytes / n)):$((np * n)):$((np * bytes))" --called MPI_Bcast ||
    fail "train_mlp: profile"
echo "== train_mlp, $np MPICH ranks: same parameters, $n gradient allreduces per rank counted"
