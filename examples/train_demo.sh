#!/bin/bash
# The README's first command: train_mlp on 4 ranks with Loom selected for a
# few epochs, then with Loom and gradient filtering (--filter topk:0.01:
# the info key loom_filter on the gradient communicator, read by
# mca_coll_loomfilter), then the same job on Open MPI's default
# collectives, then the three side by side.  The training is
# deterministic: Loom and the default compute the same model (up to
# rounding), so only their times may differ; filtering sends a fraction
# of the bytes and reaches a slightly different model.
#
# usage: examples/train_demo.sh BUILD_DIR
# environment: LOOM_DEMO_NP (4), LOOM_DEMO_EPOCHS (3), LOOM_DEMO_HIDDEN
# (256,128: reaches 87% in 3 epochs, both runs in about 2 minutes on 2
# cores), LOOM_DEMO_FILTER (topk:0.01), LOOM_DEMO_ARGS (more train_mlp
# options, e.g. "--overlap").
set -euo pipefail
build=${1:?usage: train_demo.sh BUILD_DIR}
np=${LOOM_DEMO_NP:-4}
epochs=${LOOM_DEMO_EPOCHS:-3}
hidden=${LOOM_DEMO_HIDDEN:-256,128}
filter=${LOOM_DEMO_FILTER:-topk:0.01,momentum=0.9}
prog=$build/examples/train_mlp
[ -x "$prog" ] || { echo "train_demo: $prog is not built (make examples/train_mlp)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Root may run mpirun only when it says so; more ranks than cores need
# --oversubscribe, and yielding when idle keeps waiting ranks off the
# cores; one BLAS thread per rank, as the ranks already share the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$build/.libs"
export OPENBLAS_NUM_THREADS=1
read -ra extra <<<"${LOOM_DEMO_ARGS:-}"
# run OUT [mpirun options] [-- train_mlp options]
run() {
    local out=$1 mpi=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        mpi+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift
    mpirun -np "$np" --oversubscribe --mca mpi_yield_when_idle 1 -x OPENBLAS_NUM_THREADS \
        "${mpi[@]}" "$prog" --epochs "$epochs" --hidden "$hidden" "${extra[@]}" "$@" | tee "$out"
}

# field NAME FILE: NAME's value in FILE's SUMMARY line.
field() { sed -n "s/^SUMMARY.* $1=\([^ ]*\).*/\1/p" "$2"; }

echo "== Fashion-MNIST on $np ranks, Loom selected (--mca coll_loom_priority 100)"
run "$tmp/loom" --mca coll_loom_priority 100
echo
# The filter's priority above Loom's, so that it takes the communicator
# that asks for filtering.
echo "== Loom with gradient filtering (--filter $filter)"
run "$tmp/filter" --mca coll_loom_priority 100 --mca coll_loomfilter_priority 101 -- \
    --filter "$filter"
echo
echo "== The same job on Open MPI's default collectives (--mca coll ^loom,loomfilter)"
run "$tmp/default" --mca coll '^loom,loomfilter'
echo

calls=$(field loom_calls "$tmp/loom")
case $calls in
    ''|n/a|0)
        echo "train_demo: Loom did not run (loom_calls=${calls:-none});" \
             "is $build/.libs/mca_coll_loom.so built?" >&2
        exit 1 ;;
esac
# per_epoch RUN FIELD: FIELD of RUN's SUMMARY divided by its epochs.
per_epoch() {
    awk -v v="$(field "$2" "$tmp/$1")" -v e="$(field epochs "$tmp/$1")" \
        'BEGIN { printf "%.2f", v / e }'
}
percent() { awk -v v="$(field test_acc "$tmp/$1")" 'BEGIN { printf "%.2f", 100 * v }'; }
# per_step RUN: the gradient bytes rank 0 sent per step, in MB: the
# filter's count where it ran, else the dense payload.
per_step() {
    local b=
    case $(field filter_calls "$tmp/$1") in
        ''|0) ;;
        *) b=$(field filter_sent_per_step "$tmp/$1") ;;
    esac
    [ -n "$b" ] || b=$(awk -v v="$(field bytes_sent "$tmp/$1")" -v s="$(field steps "$tmp/$1")" \
                       'BEGIN { print v / s }')
    awk -v b="$b" 'BEGIN { printf "%.3f", b / 1e6 }'
}
row() { printf '%-28s %10s %12s %10s\n' "$1" "$2" "$3" "$4"; }

row "" Loom "Loom+filter" default
row "time per epoch (s)" "$(per_epoch loom train_s)" "$(per_epoch filter train_s)" \
    "$(per_epoch default train_s)"
row "communication per epoch (s)" "$(per_epoch loom comm_s)" "$(per_epoch filter comm_s)" \
    "$(per_epoch default comm_s)"
row "images per second" "$(field img_per_s "$tmp/loom")" "$(field img_per_s "$tmp/filter")" \
    "$(field img_per_s "$tmp/default")"
row "gradient MB sent per step" "$(per_step loom)" "$(per_step filter)" "$(per_step default)"
row "test accuracy (%)" "$(percent loom)" "$(percent filter)" "$(percent default)"
echo "Loom ran $calls allreduce calls in rank 0 (MPI_T counter coll_loom_allreduce_calls)."
echo "Loom+filter: $filter on the gradient communicator (info key loom_filter); its bytes"
echo "are rank 0's, from the MPI_T counter coll_loomfilter_sent_bytes."
echo "Times are means over ranks; on a shared machine they vary from run to run."
fcalls=$(field filter_calls "$tmp/filter")
case $fcalls in
    ''|0)
        echo "train_demo: the filter did not run (filter_calls=${fcalls:-none}): the" \
             "Loom+filter column is dense Loom; is $build/.libs/mca_coll_loomfilter.so built?" >&2
        exit 1 ;;
esac
