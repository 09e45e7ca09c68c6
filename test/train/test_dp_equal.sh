#!/bin/bash
# Data parallelism changes nothing but speed: with the global batch and the
# sample order fixed, 1, 3 and 4 ranks reach the same parameters (within
# 1e-5 relative, element by element) after 100 steps.  Batches of 50 give
# uneven shares on 3 and 4 ranks, and 4002 images end each epoch with a
# batch of 2, where some ranks have no samples at all.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

args=(--hidden "128,64" --train-limit 4002 --test-limit 500 --batch 50 --epochs 5 --steps 100 --quiet)
for np in 1 3 4; do
    loom_run "$np" "$tmp/out$np" "$train_mlp" "${args[@]}" --dump-params "$tmp/params$np"
done
steps=$(field steps "$tmp/out4")
check "$steps == 100" "the run stopped after $steps steps, not 100"
expect_loom "$tmp/out3"
expect_loom "$tmp/out4"
for np in 3 4; do
    "$compare_params" "$tmp/params1" "$tmp/params$np" 1e-5 ||
        fail "$np ranks reached other parameters than 1 rank"
done
echo "PASS: 1, 3 and 4 ranks reach the same parameters"
