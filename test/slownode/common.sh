# What libloom-slownode's tests share (sourced by test_slownode_*.sh): paths,
# a scratch directory, and runs of test/slownode/step_prog under the
# library.  Run from the top build directory, as make check does.
set -u
top=${abs_top_builddir:-$PWD}
here=$(cd "$(dirname "$0")" && pwd)
prog=$top/test/slownode/step_prog
lib=$top/.libs/libloom-slownode.so
pmpi=$top/.libs/libloom-pmpi.so
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-slownode-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

fail() { echo "FAIL: $*" >&2; exit 1; }
for f in "$prog" "$lib"; do
    [ -e "$f" ] || fail "$f is not built (run make check from the top build directory)"
done

# The rank to slow: drawn per run (never 0, which prints the log), and
# printed, so that a failure can be replayed with SLOW_RANK.
slow=${SLOW_RANK:-$(( $$ % 7 + 1 ))}

# The job's ranks run at a higher priority than other processes where that
# is allowed (root): on a shared 2-core machine one CPU-bound process of
# another user delays ranks by several ms for half a second at a time, and
# the library then rightly names them (docs/slownode.md, "The threshold on
# this machine"); these tests are about the slowness they inject, or about
# none.  The runs last seconds, and the ranks sleep through their compute.
prio=
nice -n -15 true 2>/dev/null && prio="nice -n -15"

# run NAME NP PRELOAD STEPS STEP_MS [mpirun args...]: step_prog with
# LD_PRELOAD=PRELOAD and every rank's JSON record in $dir/NAME.<rank>.json;
# stdout in $dir/NAME.out, stderr in $dir/NAME.err; a failed run fails.
# 8 ranks share 2 cores: --oversubscribe, and ranks that yield when idle.
run() {
    name=$1 np=$2 preload=$3 steps=$4 ms=$5; shift 5
    timeout 120 $prio mpirun -np "$np" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        -x LD_PRELOAD="$preload" -x LOOM_SLOWNODE_JSON="$dir/$name.%r.json" "$@" \
        "$prog" "$steps" "$ms" </dev/null >"$dir/$name.out" 2>"$dir/$name.err" ||
        { cat "$dir/$name.err" >&2; fail "$name: mpirun exited $?"; }
    grep -q "all sums right" "$dir/$name.out" || { cat "$dir/$name.out" "$dir/$name.err" >&2;
        fail "$name: step_prog did not check its sums"; }
}

# verdicts_hold NAME NP [verdicts.py options...]: whether they hold.
verdicts_hold() {
    vname=$1 vnp=$2; shift 2
    python3 "$here/verdicts.py" --prefix "$dir/$vname" --np "$vnp" "$@"
}

# verdicts NAME NP [verdicts.py options...]: they hold, or the test fails.
verdicts() {
    verdicts_hold "$@" || { cat "$dir/$1.err" >&2; fail "$1: verdicts"; }
}

# judged NAME NP PRELOAD STEPS STEP_MS "VERDICTS_OPTIONS" [mpirun args...]:
# run, then verdicts.  make check runs two tests at a time on 2 cores, and
# a neighbour that spins (MPICH's ranks do) can make a whole window of the
# others noisy enough that a slowed rank is named a window late: such a
# miss gets one more run; a second miss fails.
judged() {
    jname=$1 jnp=$2 jpre=$3 jsteps=$4 jms=$5 jopts=$6; shift 6
    for try in 1 2; do
        run "$jname" "$jnp" "$jpre" "$jsteps" "$jms" "$@"
        # shellcheck disable=SC2086  # the options, one word each
        verdicts_hold "$jname" "$jnp" $jopts && return 0
        echo "$jname: run $try missed; load: $(cat /proc/loadavg)" >&2
    done
    cat "$dir/$jname.err" >&2
    fail "$jname: verdicts"
}
