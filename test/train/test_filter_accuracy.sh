#!/bin/bash
# Gradient filtering (top-k with error feedback, mca_coll_loomfilter)
# keeps the accuracy: a small model, one pass over half the training set on
# 4 ranks, dense and with --filter topk:0.01, the same seed and steps.
#   - filtered test accuracy within 1 point (0.01) of dense;
#   - the filter's MPI_T counters show it filtered: calls > 0, fewer bytes
#     sent than dense would have sent; every rank ends with the same bits;
#   - an unmodified command line asking through the MCA parameter
#     (--mca coll_loomfilter_filter topk:0.01, no --filter) gives the same
#     test accuracy and the same parameters, bit for bit.
# It fails, never skips, when the component is missing or does not filter.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

density=0.01
# Momentum correction in the filter, as Deep Gradient Compression does it;
# train_mlp then turns its own momentum off (it is applied once), and the
# unmodified command line below says --momentum 0 itself.
spec="topk:$density,momentum=0.9"
args=(--hidden "128,64" --train-limit 30000 --epochs 1 --quiet)
loom_run 4 "$tmp/dense" "$train_mlp" "${args[@]}"
loom_run 4 "$tmp/info" "${filter_mca[@]}" "$train_mlp" "${args[@]}" \
    --filter "$spec" --dump-params "$tmp/params_info"
loom_run 4 "$tmp/mca" "${filter_mca[@]}" --mca coll_loomfilter_filter "$spec" \
    "$train_mlp" "${args[@]}" --momentum 0 --dump-params "$tmp/params_mca"

expect_loom "$tmp/dense"
expect_filtered "$tmp/info"
expect_filtered "$tmp/mca"
dense_acc=$(field test_acc "$tmp/dense")
info_acc=$(field test_acc "$tmp/info")
mca_acc=$(field test_acc "$tmp/mca")
check "$info_acc - $dense_acc <= 0.01 && $dense_acc - $info_acc <= 0.01" \
    "with $spec the test accuracy is $info_acc, more than 1 point from dense's $dense_acc"
[ "$info_acc" = "$mca_acc" ] ||
    fail "the MCA parameter reached test accuracy $mca_acc, the info key $info_acc"
cmp "$tmp/params_info" "$tmp/params_mca" ||
    fail "the MCA parameter and the info key reached different parameters"
echo "PASS: $spec test accuracy $info_acc (dense $dense_acc); sent" \
    "$(field filter_sent_per_step "$tmp/info") of $(field filter_dense_per_step "$tmp/info")" \
    "bytes per step; the MCA parameter gives the same parameters"
