#!/bin/bash
# The Python example runs under mpirun with Loom and learns: 2 ranks, a
# tiny model and subset; above 50% test accuracy, Loom's counter moving,
# and the same loss as train_mlp for the same run.  Skipped without
# NumPy and mpi4py (Debian's python3-numpy and python3-mpi4py).
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

args=(--hidden 64 --train-limit 3000 --test-limit 1000 --batch 50 --epochs 1 --quiet)
loom_run 2 "$tmp/py" "$python" "$top_src/examples/train_mpi4py.py" "${args[@]}"
loom_run 2 "$tmp/c" "$train_mlp" "${args[@]}"
expect_loom "$tmp/py"
acc=$(field test_acc "$tmp/py")
check "$acc > 0.50" "train_mpi4py.py reached test accuracy $acc, not above 0.50"
py_loss=$(field loss "$tmp/py")
c_loss=$(field loss "$tmp/c")
check "$py_loss - $c_loss <= 1e-3 && $c_loss - $py_loss <= 1e-3" \
    "train_mpi4py.py's loss $py_loss differs from train_mlp's $c_loss"
echo "PASS: train_mpi4py.py test accuracy $acc, loss $py_loss (train_mlp: $c_loss)"
