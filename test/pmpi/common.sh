# What libloom-pmpi's tests share (sourced by test_pmpi_*.sh): paths, a
# scratch directory, and runs of test/pmpi/pmpi_prog with and without the
# library.  Run from the top build directory, as make check does.
#
# A script that sets mpi=mpich before sourcing this gets the MPICH builds
# (test/mpich/pmpi_prog, libloom-pmpi-mpich.so) and runs under MPICH's
# launcher (test/mpich/run.sh); it skips (77) when configure found no MPICH.
set -u
top=${abs_top_builddir:-$PWD}
here=$(cd "$(dirname "$0")" && pwd)
mpi=${mpi:-ompi}
case $mpi in
    ompi)
        prog=$top/test/pmpi/pmpi_prog
        lib=$top/.libs/libloom-pmpi.so ;;
    mpich)
        [ -f "$top/test/mpich/config.sh" ] ||
            { echo "FAIL: $top/test/mpich/config.sh is missing (run after configure)" >&2; exit 1; }
        # shellcheck source=/dev/null
        . "$top/test/mpich/config.sh"
        if [ "${loom_mpich:-}" != yes ]; then
            echo "SKIP: configure found no MPICH (apt-get install libmpich-dev mpich, then re-run configure)"
            exit 77
        fi
        export MPIEXEC_MPICH
        prog=$top/test/mpich/pmpi_prog
        lib=$top/.libs/libloom-pmpi-mpich.so ;;
    *) echo "FAIL: mpi=$mpi: common.sh knows ompi and mpich" >&2; exit 1 ;;
esac
stacktool=$top/test/pmpi/.libs/stacktool.so
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-pmpi-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The iterations pmpi_prog runs (its argument); check_profile.py is told too.
iters=20

fail() { echo "FAIL: $*" >&2; exit 1; }
for f in "$prog" "$lib"; do
    [ -e "$f" ] || fail "$f is not built (run make check from the top build directory)"
done
python3 -c 'import jsonschema' 2>/dev/null ||
    fail "python3-jsonschema is missing (apt-get install python3-jsonschema)"

# run NAME NP PRELOAD [mpirun args...]: pmpi_prog on NP ranks with
# LD_PRELOAD=PRELOAD ("" for none) and LOOM_PMPI_OUT=$dir/NAME; stdout in
# $dir/NAME.out, stderr in $dir/NAME.err; a failed run fails the test.
# $prog_args (empty unless set) follow the iterations.
run() {
    name=$1 np=$2 preload=$3; shift 3
    if [ "$mpi" = mpich ]; then
        # Hydra hands the whole environment to the ranks; the preload goes
        # to the ranks alone.  No launcher arguments here.
        LOOM_PMPI_OUT="$dir/$name" LOOM_MPICH_PRELOAD="$preload" LOOM_MPICH_TIMEOUT=120 \
            "$here/../mpich/run.sh" "$np" "$prog" "$iters" ${prog_args:-} \
            </dev/null >"$dir/$name.out" 2>"$dir/$name.err" ||
            { rc=$?; cat "$dir/$name.err" >&2; fail "$name: mpiexec.mpich exited $rc"; }
        return
    fi
    set -- "$@" -x LOOM_PMPI_OUT="$dir/$name"
    [ -n "$preload" ] && set -- "$@" -x LD_PRELOAD="$preload"
    timeout 120 mpirun -np "$np" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        "$@" "$prog" "$iters" ${prog_args:-} </dev/null >"$dir/$name.out" 2>"$dir/$name.err" ||
        { rc=$?; cat "$dir/$name.err" >&2; fail "$name: mpirun exited $rc"; }
}

# same A B: the two runs printed the same results.
same() {
    cmp -s "$dir/$1.out" "$dir/$2.out" ||
        { diff "$dir/$1.out" "$dir/$2.out" >&2; fail "$2 printed other results than $1"; }
}

# profiled NP: the program on NP ranks without and with the library: the
# same results, the summary on rank 0's stderr, every count and byte right.
profiled() {
    run plain$1 "$1" ""
    run pmpi$1 "$1" "$lib"
    same plain$1 pmpi$1
    grep -q '^libloom-pmpi: '"$1"' ranks' "$dir/pmpi$1.err" ||
        { cat "$dir/pmpi$1.err" >&2; fail "pmpi$1: no summary on stderr"; }
    check pmpi$1 "$1"
}

# check NAME NP [check_profile.py options...]
check() {
    name=$1 np=$2; shift 2
    python3 "$here/check_profile.py" --prefix "$dir/$name" --stdout "$dir/$name.out" \
        --np "$np" --iters "$iters" "$@" || { cat "$dir/$name.err" >&2; fail "$name: profile"; }
}
