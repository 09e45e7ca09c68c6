#!/bin/sh
# libloom-pmpi's overhead per call (make bench-pmpi; docs/pmpi.md has the
# numbers): MPI_Barrier on 1 rank and an 8-byte MPI_Allreduce on 2 ranks,
# each run ROUNDS times without and with LD_PRELOAD, interleaved so that a
# machine getting busier slows both alike; each run reports its fastest
# batch (bench_pmpi.c); the medians over runs and their difference.
#
#   bench_pmpi.sh BUILDDIR [ROUNDS [ompi|mpich]]   (default 7, ompi)
#
# mpich: the MPICH builds (test/mpich/bench_pmpi, libloom-pmpi-mpich.so)
# under MPICH's launcher (test/mpich/run.sh), which binds nothing.
set -u
usage="usage: bench_pmpi.sh BUILDDIR [ROUNDS [ompi|mpich]]"
top=${1:?$usage}
rounds=${2:-7}
mpi=${3:-ompi}
here=$(cd "$(dirname "$0")" && pwd)
case $rounds in
    ''|*[!0-9]*|0) echo "bench_pmpi.sh: ROUNDS='$rounds' is not a positive number; $usage" >&2; exit 2 ;;
esac
case $mpi in
    ompi) bench=$top/test/pmpi/bench_pmpi lib=$top/.libs/libloom-pmpi.so ;;
    mpich) bench=$top/test/mpich/bench_pmpi lib=$top/.libs/libloom-pmpi-mpich.so
        # shellcheck source=/dev/null
        . "$top/test/mpich/config.sh"
        export MPIEXEC_MPICH ;;
    *) echo "bench_pmpi.sh: MPI '$mpi' is neither ompi nor mpich; $usage" >&2; exit 2 ;;
esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-pmpi-bench.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# one NP KIND PRELOAD: ns per call of one run (no chart: it is not timed,
# but it would only add to the run).
one() {
    if [ "$mpi" = mpich ]; then
        LOOM_MPICH_PRELOAD=$3 LOOM_PMPI_OUT="$dir/prof" LOOM_PMPI_CHART=0 \
            "$here/../mpich/run.sh" "$1" "$bench" "$2" 2>/dev/null | awk '{ print $2 }'
        return
    fi
    if [ -n "$3" ]; then
        set -- "$1" "$2" -x LD_PRELOAD="$3" -x LOOM_PMPI_OUT="$dir/prof" -x LOOM_PMPI_CHART=0
    else
        set -- "$1" "$2"
    fi
    np=$1 kind=$2; shift 2
    mpirun -np "$np" --bind-to core "$@" "$bench" "$kind" 2>/dev/null | awk '{ print $2 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for case in "1 barrier" "2 allreduce"; do
    set -- $case
    : >"$dir/without"; : >"$dir/with"
    i=0
    while [ $i -lt "$rounds" ]; do
        one "$1" "$2" "" >>"$dir/without"
        one "$1" "$2" "$lib" >>"$dir/with"
        i=$((i + 1))
    done
    a=$(median <"$dir/without"); b=$(median <"$dir/with")
    echo "$mpi: $2 on $1 rank(s): without $a ns/call, with libloom-pmpi $b ns/call," \
         "overhead $(echo "$a $b" | awk '{ printf "%.1f", $2 - $1 }') ns/call (medians of $rounds interleaved runs)"
done
