#!/bin/sh
# Residuals survive a kill and a resume on another rank count
# (mpi_filter_restart.c, docs/filter_api.md): phase 1 on 3 ranks saves a
# checkpoint at step 6 and kills itself; phase 2 resumes from a copy of
# the directory on 2 ranks, and from another copy on 4, and proves that
# the results plus the residuals left equal every gradient produced.
# Then the API's checks on 3 ranks, and without the component on 1.
set -u
top=${abs_top_builddir:-$PWD}
exe=$top/test/mpi/mpi_filter_restart
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-filter-restart.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs
[ -x "$exe" ] || fail "$exe is not built (run from the top build directory)"

# run NAME NP ARGS...: output in $dir/NAME.out, exit status in $dir/NAME.rc.
# loomfilter above loom, as run.sh sets it for the filter's tests.
run() {
    name=$1 np=$2; shift 2
    timeout 120 mpirun -np "$np" --oversubscribe --bind-to none \
        --mca mpi_yield_when_idle 1 --mca coll_loom_priority 100 \
        --mca coll_loomfilter_priority 110 "$@" </dev/null >"$dir/$name.out" 2>&1
    echo $? >"$dir/$name.rc"
}
# passed NAME WHAT: the run printed PASS WHAT, exited 0, and neither UCX
# nor Loom warned or reported an error (as run.sh checks).
passed() {
    grep -q "^PASS $2" "$dir/$1.out" && [ "$(cat "$dir/$1.rc")" -eq 0 ] ||
        { cat "$dir/$1.out"; fail "$1: no PASS (exit status $(cat "$dir/$1.rc"))"; }
    if grep -E 'UCX  (ERROR|WARN)|^\[loom[^]]*\] (error|warn) ' "$dir/$1.out" >/dev/null; then
        cat "$dir/$1.out"; fail "$1: UCX or Loom reported errors or warnings"
    fi
    echo "== $1: passed"
}

run save 3 "$exe" save "$dir/ckpt"
rc=$(cat "$dir/save.rc")
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$dir/save.out"; fail "phase 1 exited $rc, not killed"; }
grep -q 'mpi_filter_restart.c:[0-9]*: rank' "$dir/save.out" && { cat "$dir/save.out"; fail "phase 1 failed its checks"; }
[ -f "$dir/ckpt/step-00000000000000000006/COMMIT" ] ||
    { cat "$dir/save.out"; fail "phase 1 left no committed step 6"; }
echo "== save: killed (exit status $rc) after committing step 6"

for np in 2 4; do
    cp -r "$dir/ckpt" "$dir/ckpt$np"
    run resume$np $np "$exe" resume "$dir/ckpt$np"
    passed resume$np "mpi_filter_restart resume"
done
run api 3 "$exe" api
passed api "mpi_filter_restart api"
run nocomp 1 --mca coll ^loomfilter "$exe" nocomp
passed nocomp "mpi_filter_restart nocomp"
