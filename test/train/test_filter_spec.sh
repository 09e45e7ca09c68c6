#!/bin/bash
# A filter spec the component refuses is the user's mistake, not a
# failure: the run warns with the part that is wrong, trains dense and
# reaches the dense run's loss and accuracy (up to rounding: loss within
# 1e-3, test accuracy within half a point).  Checked for the
# info key (--filter) and for the MCA parameter.  It fails, never skips,
# when the component is missing.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

bad="topk:2"
args=(--hidden "64" --train-limit 2000 --test-limit 500 --batch 50 --epochs 1 --quiet)
loom_run 4 "$tmp/dense" "$train_mlp" "${args[@]}"
loom_run 4 "$tmp/info" "${filter_mca[@]}" "$train_mlp" "${args[@]}" --filter "$bad"
loom_run 4 "$tmp/mca" "${filter_mca[@]}" --mca coll_loomfilter_filter "$bad" \
    "$train_mlp" "${args[@]}"

for run in info mca; do
    out=$tmp/$run
    expect_filter_counters "$out"
    grep -q "loom_filter.*'2'" "$out" || {
        cat "$out" >&2
        fail "$run: no warning naming the refused density '2' (loom_filter: ...)"
    }
    sent=$(field filter_sent_bytes "$out")
    dense=$(field filter_dense_bytes "$out")
    check "$sent == $dense" "$run: the refused spec sent $sent bytes where dense sends $dense"
    loss=$(field loss "$out")
    acc=$(field test_acc "$out")
    dense_loss=$(field loss "$tmp/dense")
    dense_acc=$(field test_acc "$tmp/dense")
    check "$loss - $dense_loss <= 1e-3 && $dense_loss - $loss <= 1e-3" \
        "$run: loss $loss with the refused spec, dense $dense_loss"
    check "$acc - $dense_acc <= 0.005 && $dense_acc - $acc <= 0.005" \
        "$run: test accuracy $acc with the refused spec, dense $dense_acc"
done
echo "PASS: the refused spec '$bad' warns and runs dense (info key and MCA parameter)"
