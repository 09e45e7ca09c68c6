#!/bin/bash
# Gradient accumulation: with --accum 4 the allreduce runs on every 4th
# batch, so it sends exactly a quarter of the bytes of --accum 1; and 4
# accumulated batches of 64 are one step over 256 samples, the same step
# (within 1e-5 relative) as batches of 256 without accumulation.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

args=(--hidden "128,64" --train-limit 8192 --test-limit 2000 --epochs 1 --quiet)
loom_run 4 "$tmp/k1" "$train_mlp" "${args[@]}" --batch 64 --accum 1
loom_run 4 "$tmp/k4" "$train_mlp" "${args[@]}" --batch 64 --accum 4 --dump-params "$tmp/k4.bin"
loom_run 4 "$tmp/b256" "$train_mlp" "${args[@]}" --batch 256 --accum 1 --dump-params "$tmp/b256.bin"
for run in k1 k4 b256; do
    expect_loom "$tmp/$run"
done
b1=$(field bytes_sent "$tmp/k1")
b4=$(field bytes_sent "$tmp/k4")
[ $((b4 * 4)) -eq "$b1" ] || fail "--accum 4 sent $b4 bytes, not a quarter of --accum 1's $b1"
"$compare_params" "$tmp/k4.bin" "$tmp/b256.bin" 1e-5 ||
    fail "4 accumulated batches of 64 differ from batches of 256"
echo "PASS: bytes_sent $b1 (k=1) and $b4 (k=4);" \
     "test_acc $(field test_acc "$tmp/k1") (k=1) and $(field test_acc "$tmp/k4") (k=4)"
