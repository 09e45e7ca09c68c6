# shellcheck shell=bash
# Sourced by the tests under test/train/: where things are, how to launch,
# how to read the SUMMARY line.  Tests run from the build directory (make
# check's working directory); scripts may live elsewhere (VPATH builds).
set -eu

# shellcheck disable=SC2034  # for the scripts that source this file
{
    top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
    top_build=${abs_top_builddir:-$PWD}
    train_mlp=$top_build/examples/train_mlp
    compare_params=$top_build/test/train/compare_params
}
data=${LOOM_TRAIN_DATA:-/usr/share/datasets/fashion-mnist}

# Root may run mpirun only when it says so; Open MPI finds Loom in the
# build tree; one BLAS thread per rank, as ranks already share the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$top_build/.libs"
export OPENBLAS_NUM_THREADS=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -f "$data/train-images-idx3-ubyte.gz" ] ||
    skip "no Fashion-MNIST in $data (apt-get install dataset-fashion-mnist)"
[ -x "$train_mlp" ] || fail "$train_mlp is not built"

# loom_run NP OUT PROGRAM ARGS...: PROGRAM on NP ranks with Loom selected,
# stdout and stderr in OUT (shown when the run fails).  More ranks than
# cores need --oversubscribe; yielding keeps waiting ranks off the cores.
loom_run() {
    local np=$1 out=$2
    shift 2
    if ! timeout -k 5 "${LOOM_TEST_TIMEOUT:-100}" "${MPIRUN:-mpirun}" -np "$np" --oversubscribe \
            --mca mpi_yield_when_idle 1 -x OPENBLAS_NUM_THREADS \
            --mca coll_loom_priority 100 "$@" >"$out" 2>&1; then
        cat "$out" >&2
        fail "mpirun -np $np $* failed"
    fi
    grep '^SUMMARY' "$out" || true
}

# ckpt_newest DIR: the newest committed step in checkpoint directory DIR
# (0: none).
ckpt_newest() {
    "$top_build/loom-ckpt" -d "$1" list 2>/dev/null | awk 'NR > 1 { s = $1 } END { print s + 0 }'
}

# kill_after_commit JOB DIR STEP LOG: once the job JOB (a background
# mpirun, its output in LOG) has committed STEP or later in DIR, SIGKILL
# every process whose command line names --checkpoint-dir DIR, at once, as
# a lost node would take them.  bash reads each command line itself: a
# process per candidate would give a loaded machine time to run the job
# on to its end between the commit and the kill.
kill_after_commit() {
    local job=$1 dir=$2 step=$3 log=$4 proc argv
    for _ in $(seq 1000); do
        [ "$(ckpt_newest "$dir")" -ge "$step" ] && break
        kill -0 "$job" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$job" 2>/dev/null || { cat "$log" >&2; fail "the job ended before it could be killed"; }
    for proc in /proc/[0-9]*; do
        mapfile -d '' argv <"$proc/cmdline" 2>/dev/null || continue
        if [[ " ${argv[*]} " == *" --checkpoint-dir $dir "* ]]; then
            kill -KILL "${proc#/proc/}" 2>/dev/null || true
        fi
    done
    kill -KILL "$job" 2>/dev/null || true
    wait "$job" 2>/dev/null || true
}

# field NAME OUT: NAME's value in OUT's SUMMARY line.
field() {
    local v
    v=$(sed -n "s/^SUMMARY.* $1=\([^ ]*\).*/\1/p" "$2")
    [ -n "$v" ] || fail "no $1= in the SUMMARY line of $2"
    echo "$v"
}

# check COND MESSAGE: COND is an awk expression.
check() {
    awk "BEGIN { exit !($1) }" || fail "$2"
}

# expect_loom OUT: Loom reduced this run's gradients (not a silent
# fallback to Open MPI's allreduce): it ran at least one call per gradient
# allreduce (the rest are the per-epoch statistics).
expect_loom() {
    local calls grads
    calls=$(field loom_calls "$1")
    grads=$(field grad_allreduces "$1")
    [ "$calls" != n/a ] || fail "Loom is not loaded (loom_calls=n/a) in $1"
    check "$calls > 0 && $calls >= $grads" \
        "Loom ran $calls allreduces for $grads gradient allreduces in $1"
}

# The filter component (mca_coll_loomfilter) over Loom: Loom's priority is
# raised to 100 above, so the filter's must be higher still for it to take
# the allreduces of the communicators that ask for filtering.
# shellcheck disable=SC2034  # for the scripts that source this file
filter_mca=(--mca coll_loomfilter_priority 101)

# has_field NAME OUT: OUT's SUMMARY line has NAME=.
has_field() {
    grep -q "^SUMMARY.* $1=" "$2"
}

# expect_filter_counters OUT: the filter component is loaded in this run:
# its MPI_T variables are in the SUMMARY line.  Without them the test
# fails: filtering that cannot be seen cannot be checked.
expect_filter_counters() {
    local v
    for v in filter_calls filter_sent_bytes filter_dense_bytes; do
        has_field "$v" "$1" || fail "no $v= in the SUMMARY line of $1: mca_coll_loomfilter" \
            "is not loaded (is $top_build/.libs/mca_coll_loomfilter.so built?) or does not" \
            "publish coll_loomfilter_${v#filter_}"
    done
}

# expect_filtered OUT: the filter ran and sent less than dense would have.
expect_filtered() {
    local calls sent dense
    expect_filter_counters "$1"
    calls=$(field filter_calls "$1")
    sent=$(field filter_sent_bytes "$1")
    dense=$(field filter_dense_bytes "$1")
    check "$calls > 0" "the filter ran no calls (filter_calls=0) in $1"
    check "$sent < $dense" "the filter sent $sent bytes, not less than dense's $dense, in $1"
    [ "$(field replicas "$1")" = identical ] ||
        fail "the ranks ended with different parameters in $1 (replicas=differ)"
}
