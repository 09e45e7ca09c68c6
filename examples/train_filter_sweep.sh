#!/bin/bash
# make train-filter-sweep: what gradient filtering costs in accuracy and
# saves in bytes.  train_mlp on 4 ranks with Loom, dense and then with
# --filter topk:D for each density D (mca_coll_loomfilter: top-k with
# error feedback), plain and with momentum correction (topk:D,momentum=0.9,
# train_mlp's own momentum then off), the same seed and steps; prints each run's test
# accuracy, its distance from dense, the bytes its rank 0 sent per step
# (the filter's MPI_T counters) and what dense would have sent, then the
# lowest density that loses at most 0.5 points of test accuracy.
#
# usage: examples/train_filter_sweep.sh BUILD_DIR
# environment: LOOM_SWEEP_NP (4), LOOM_SWEEP_EPOCHS (3), LOOM_SWEEP_HIDDEN
# (256,128: the train-demo's model), LOOM_SWEEP_DENSITIES ("0.1 0.01
# 0.001"), LOOM_SWEEP_ARGS (more train_mlp options, e.g. "--steps 200").
# Seven runs of 3 epochs: 4 to 8 minutes on 2 cores.  Exits 1 when the
# filter's counters are missing (the component not built or not loaded).
set -euo pipefail
build=${1:?usage: train_filter_sweep.sh BUILD_DIR}
np=${LOOM_SWEEP_NP:-4}
epochs=${LOOM_SWEEP_EPOCHS:-3}
hidden=${LOOM_SWEEP_HIDDEN:-256,128}
read -ra densities <<<"${LOOM_SWEEP_DENSITIES:-0.1 0.01 0.001}"
read -ra extra <<<"${LOOM_SWEEP_ARGS:-}"
prog=$build/examples/train_mlp
[ -x "$prog" ] || { echo "train_filter_sweep: $prog is not built (make examples/train_mlp)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# As train_demo.sh: root may run mpirun, Loom from the build tree, one
# BLAS thread per rank, waiting ranks yield the shared cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$build/.libs"
export OPENBLAS_NUM_THREADS=1
# Loom selected; the filter's priority above Loom's so that it takes the
# communicators that ask for filtering.
mca=(--mca coll_loom_priority 100 --mca coll_loomfilter_priority 101)

# run NAME [train_mlp options]: one job, its output in $tmp/NAME.
run() {
    local name=$1
    shift
    echo "-- $name"
    if ! mpirun -np "$np" --oversubscribe --mca mpi_yield_when_idle 1 -x OPENBLAS_NUM_THREADS \
            "${mca[@]}" "$prog" --epochs "$epochs" --hidden "$hidden" "${extra[@]}" --quiet "$@" \
            >"$tmp/$name" 2>&1; then
        cat "$tmp/$name" >&2
        echo "train_filter_sweep: the $name run failed" >&2
        exit 1
    fi
    grep '^SUMMARY' "$tmp/$name"
}

# field NAME FILE: NAME's value in FILE's SUMMARY line ("" when absent).
field() { sed -n "s/^SUMMARY.* $1=\([^ ]*\).*/\1/p" "$2"; }

echo "== Fashion-MNIST on $np ranks, $epochs epochs, model 784-$hidden-10: dense, then filtered"
run dense
specs=()
for d in "${densities[@]}"; do
    specs+=("topk:$d" "topk:$d,momentum=0.9")
done
for s in "${specs[@]}"; do
    run "$s" --filter "$s"
done
echo

dense_acc=$(field test_acc "$tmp/dense")
dense_step=$(awk -v b="$(field bytes_sent "$tmp/dense")" -v s="$(field steps "$tmp/dense")" \
             'BEGIN { printf "%.0f", b / s }')
printf '%-24s %9s %10s %16s %16s %8s\n' run "test acc" "vs dense" "sent B/step" \
    "dense B/step" "sent"
printf '%-24s %8.2f%% %10s %16s %16s %8s\n' dense "$(awk -v a="$dense_acc" 'BEGIN { print 100 * a }')" \
    "" "$dense_step" "$dense_step" "100%"
best='' missing=''
for s in "${specs[@]}"; do
    d=${s#topk:}
    d=${d%%,*}
    out=$tmp/$s
    acc=$(field test_acc "$out")
    sent=$(field filter_sent_per_step "$out")
    dense=$(field filter_dense_per_step "$out")
    if [ "$(field steps "$out")" != "$(field steps "$tmp/dense")" ]; then
        echo "train_filter_sweep: $s ran $(field steps "$out") steps, dense $(field steps "$tmp/dense")" >&2
        exit 1
    fi
    calls=$(field filter_calls "$out")
    if [ -z "$sent" ] || [ -z "$dense" ] || [ -z "$calls" ] || [ "$calls" = 0 ]; then
        missing=1
        sent=n/a dense=n/a
    fi
    awk -v name="$s" -v acc="$acc" -v d0="$dense_acc" -v sent="$sent" -v dense="$dense" '
        BEGIN {
            share = dense + 0 > 0 ? sprintf("%.2f%%", 100 * sent / dense) : "n/a"
            printf "%-24s %8.2f%% %+9.2fpt %16s %16s %8s\n", name, 100 * acc, 100 * (acc - d0),
                   sent, dense, share
        }'
    # The densities in the order given; keep the lowest within 0.5 points.
    if awk -v a="$acc" -v d0="$dense_acc" 'BEGIN { exit !(d0 - a <= 0.005 + 1e-9) }' &&
       { [ -z "$best" ] || awk -v d="$d" -v b="$best" 'BEGIN { exit !(d < b) }'; }; then
        best=$d
    fi
done
echo
if [ -n "$missing" ]; then
    echo "train_filter_sweep: a filtered run has no filter counters, or its filter ran no" \
         "calls: is $build/.libs/mca_coll_loomfilter.so built and loaded?" >&2
    exit 1
fi
if [ -n "$best" ]; then
    echo "Lowest density within 0.5 points of dense's test accuracy: topk:$best" \
         "($(awk -v d="$best" 'BEGIN { print 100 * d }')%)."
else
    echo "No density stayed within 0.5 points of dense's test accuracy."
fi
echo "Bytes per step are rank 0's (MPI_T: coll_loomfilter_sent_bytes and"
echo "coll_loomfilter_dense_bytes over the run's steps); dense's are its gradient payload."
