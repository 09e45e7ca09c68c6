#!/bin/bash
# The real job survives a crash: train_mlp at 4 ranks, checkpointing every
# 10 steps, is killed (SIGKILL to the whole job) once a checkpoint of step
# 20 or later is committed; loom-ckpt verify finds the directory valid; the
# job resumes at 2 ranks from the last commit and runs to step 100, where
# its parameters match an uninterrupted 4-rank run's (within 1e-6
# relative: the sample order and global batch are the same, only the
# summation order of the steps after the resume differs).
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

loom_ckpt=$top_build/loom-ckpt
[ -x "$loom_ckpt" ] || fail "$loom_ckpt is not built"
args=(--hidden "128,64" --train-limit 4002 --test-limit 500 --batch 50 --epochs 20)
total=100 every=10 ck=$tmp/ck

loom_run 4 "$tmp/ref" "$train_mlp" "${args[@]}" --quiet --steps $total \
    --dump-params "$tmp/ref.bin"

# 20 ms of sleep per step stands for a bigger model, so that the kill
# lands between two checkpoints rather than after the last one.
timeout -k 5 100 "${MPIRUN:-mpirun}" -np 4 --oversubscribe \
    --mca mpi_yield_when_idle 1 -x OPENBLAS_NUM_THREADS --mca coll_loom_priority 100 \
    "$train_mlp" "${args[@]}" --quiet --steps $total --checkpoint-dir "$ck" \
    --checkpoint-every $every --step-sleep-ms 20 >"$tmp/killed" 2>&1 &
kill_after_commit $! "$ck" 20 "$tmp/killed"
last=$(ckpt_newest "$ck")
check "$last >= 20 && $last < $total" "the last commit before the kill is step $last"
"$loom_ckpt" -d "$ck" verify >/dev/null || fail "loom-ckpt verify: the directory is not valid after the kill"
echo "killed at 4 ranks; last committed step $last"

loom_run 2 "$tmp/resumed" "$train_mlp" "${args[@]}" --steps $total --checkpoint-dir "$ck" \
    --checkpoint-every $every --dump-params "$tmp/resumed.bin"
grep -q "^resumed from checkpoint step $last .* on 2 ranks" "$tmp/resumed" ||
    { cat "$tmp/resumed" >&2; fail "the run did not resume from step $last"; }
steps=$(field steps "$tmp/resumed")
check "$steps == $total" "the resumed run ended after $steps steps, not $total"
expect_loom "$tmp/resumed"
"$compare_params" "$tmp/ref.bin" "$tmp/resumed.bin" 1e-6 ||
    fail "the resumed run's parameters differ from the uninterrupted run's"
check "$(ckpt_newest "$ck") == $total" "the resumed run did not commit step $total"
echo "PASS: killed at 4 ranks after step $last, resumed at 2, same parameters at step $total"
