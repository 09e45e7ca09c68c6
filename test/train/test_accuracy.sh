#!/bin/bash
# The training learns: a small model, one pass over half the training set
# on 4 ranks with Loom, reaches at least 80% on the whole test set.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

loom_run 4 "$tmp/out" "$train_mlp" --hidden "128,64" --train-limit 30000 --epochs 1 --quiet
expect_loom "$tmp/out"
acc=$(field test_acc "$tmp/out")
check "$acc >= 0.80" "test accuracy $acc is below 0.80"
echo "PASS: test accuracy $acc"
