#!/bin/sh
# coll_loom_hang_abort: a job whose ranks stopped calling collectives in
# the same order (mpi_hang_abort) ends after that many hang reports, with
# the last report and a non-zero exit status, wherever rank 0 waits (a
# schedule, a nonblocking request, the node's shared segment), at Loom's
# default hand-offs and with every hand-off at 0.  Without the setting
# (its default, 0) the job keeps waiting and reporting: the timeout below
# has to end it.
set -u
top=${abs_top_builddir:-$PWD}
exe=$top/test/mpi/mpi_hang_abort
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-hangabort.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs
[ -x "$exe" ] || fail "$exe is not built (run from the top build directory)"

zero_handoffs=""
for coll in allreduce bcast bcast_pair reduce allgather allgather_pair reduce_scatter; do
    zero_handoffs="$zero_handoffs --mca coll_loom_${coll}_handoff 0"
done

# run NAME LIMIT MODE MPIRUN-ARGS...: the job's exit status in $dir/NAME.rc
# and its output in $dir/NAME.out, ended by timeout after LIMIT seconds.
run() {
    name=$1 limit=$2 mode=$3; shift 3
    # shellcheck disable=SC2086  # the settings are words
    timeout "$limit" mpirun -np 3 --oversubscribe --bind-to none \
        --mca mpi_yield_when_idle 1 --mca coll_loom_priority 100 \
        --mca coll_loom_hang_timeout 1 "$@" "$exe" "$mode" </dev/null >"$dir/$name.out" 2>&1
    echo $? >"$dir/$name.rc"
}
expect() {
    grep -q -- "$2" "$dir/$1.out" || { cat "$dir/$1.out"; fail "$1: expected '$2'"; }
}
reports() { grep -c 'has made no progress' "$dir/$1.out"; }

for handoffs in defaults zero; do
    settings=""
    [ $handoffs = zero ] && settings=$zero_handoffs
    for mode in blocking nonblocking shm; do
        name=$mode.$handoffs
        # shellcheck disable=SC2086
        # From 2 KiB on a blocking call on one node takes the node segment:
        # with it off the blocking mode waits in a schedule.
        extra=""
        [ $mode = blocking ] && extra="--mca coll_loom_shm 0"
        # shellcheck disable=SC2086
        run "$name" 120 "$mode" --mca coll_loom_hang_abort 2 $settings $extra
        rc=$(cat "$dir/$name.rc")
        echo "== $name: exit status $rc, $(reports "$name") reports"
        [ "$rc" -ne 124 ] || { cat "$dir/$name.out"; fail "$name: not aborted in 120 s"; }
        [ "$rc" -ne 0 ] || { cat "$dir/$name.out"; fail "$name: the job exited 0"; }
        expect "$name" "mismatch starts ($mode)"
        expect "$name" "error coll: aborting the job after 2 reports in a row (coll_loom_hang_abort): allreduce ("
        if grep -q 'not aborted' "$dir/$name.out"; then
            cat "$dir/$name.out"; fail "$name: a rank got past the mismatch"
        fi
        [ "$(reports "$name")" -ge 2 ] || { cat "$dir/$name.out"; fail "$name: fewer than 2 reports"; }
        grep 'aborting the job' "$dir/$name.out"
    done
done

# The default: report and keep waiting.
run off 6 blocking --mca coll_loom_shm 0
rc=$(cat "$dir/off.rc")
echo "== off: exit status $rc, $(reports off) reports"
[ "$rc" -eq 124 ] || { cat "$dir/off.out"; fail "off: expected the timeout to end the job, got $rc"; }
[ "$(reports off)" -ge 2 ] || { cat "$dir/off.out"; fail "off: fewer than 2 reports in 6 s"; }
if grep -q 'aborting the job' "$dir/off.out"; then
    cat "$dir/off.out"; fail "off: aborted though coll_loom_hang_abort is 0"
fi
echo "PASS test_hang_abort"
