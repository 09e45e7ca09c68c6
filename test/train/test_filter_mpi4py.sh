#!/bin/bash
# The Python example filters with the info key alone: train_mpi4py.py
# --filter topk:0.01 (nothing but comm.Dup(info) with loom_filter) tracks
# train_mlp --filter topk:0.01 on the same run, whose filter's counters
# show it filtered: the same loss within 5e-3 (the two compute gradients
# with different rounding, and top-k may break a near tie differently).
# Skipped without NumPy and mpi4py; fails without the filter component.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

python=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$p" -c 'import numpy, mpi4py' 2>/dev/null; then
        python=$p
        break
    fi
done
[ -n "$python" ] ||
    skip "no python3 with numpy and mpi4py (apt-get install python3-mpi4py python3-numpy)"

args=(--hidden 64 --train-limit 3000 --test-limit 1000 --batch 50 --epochs 1 --quiet
      --filter topk:0.01)
loom_run 2 "$tmp/c" "${filter_mca[@]}" "$train_mlp" "${args[@]}"
loom_run 2 "$tmp/py" "${filter_mca[@]}" "$python" "$top_src/examples/train_mpi4py.py" "${args[@]}"
expect_filtered "$tmp/c"
py_loss=$(field loss "$tmp/py")
c_loss=$(field loss "$tmp/c")
check "$py_loss - $c_loss <= 5e-3 && $c_loss - $py_loss <= 5e-3" \
    "train_mpi4py.py --filter: loss $py_loss, train_mlp --filter: $c_loss"
echo "PASS: train_mpi4py.py filters through the info key alone: loss $py_loss" \
    "(train_mlp: $c_loss)"
