#!/bin/bash
# A filtered job survives a crash with its residuals: train_mlp at 4
# ranks with --filter topk:0.01, checkpointing every 10 steps, is killed
# (SIGKILL to every rank) once a checkpoint of step 20 or later is
# committed; it resumes at 3 ranks, where each rank gets back the
# residuals of old ranks r mod 3 (docs/filter_api.md): the run says it
# restored a nonzero number of residual bytes, filters (sends less than
# dense) and reaches its last step.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

loom_ckpt=$top_build/loom-ckpt
[ -x "$loom_ckpt" ] || fail "$loom_ckpt is not built"
args=(--hidden "64" --train-limit 2000 --test-limit 500 --batch 50 --epochs 20
      --filter "topk:0.01")
# Far more steps than the kill needs: a loaded machine may take a while
# between seeing step 20 committed and the kill.
total=400 every=10 ck=$tmp/ck

# 20 ms of sleep per step, so that the kill lands between two checkpoints.
timeout -k 5 200 "${MPIRUN:-mpirun}" -np 4 --oversubscribe \
    --mca mpi_yield_when_idle 1 -x OPENBLAS_NUM_THREADS --mca coll_loom_priority 100 \
    "${filter_mca[@]}" "$train_mlp" "${args[@]}" --quiet --steps $total \
    --checkpoint-dir "$ck" --checkpoint-every $every --step-sleep-ms 20 >"$tmp/killed" 2>&1 &
kill_after_commit $! "$ck" 20 "$tmp/killed"
last=$(ckpt_newest "$ck")
check "$last >= 20 && $last < $total" "the last commit before the kill is step $last"
"$loom_ckpt" -d "$ck" verify >/dev/null || fail "loom-ckpt verify: the directory is not valid after the kill"
"$loom_ckpt" -d "$ck" show "$last" 2>/dev/null | grep -q 'lf\.p' ||
    fail "step $last holds no residual region (lf.p...): loom_filter_save registered none"
echo "killed at 4 ranks; last committed step $last"

loom_run 3 "$tmp/resumed" "${filter_mca[@]}" "$train_mlp" "${args[@]}" --steps $total \
    --checkpoint-dir "$ck" --checkpoint-every $every
grep -q "^resumed from checkpoint step $last .* on 3 ranks" "$tmp/resumed" ||
    { cat "$tmp/resumed" >&2; fail "the run did not resume from step $last"; }
restored=$(sed -n 's/^restored \([0-9]*\) bytes of filter residuals$/\1/p' "$tmp/resumed")
check "${restored:-0} > 0" "the resumed run restored ${restored:-no} residual bytes"
steps=$(field steps "$tmp/resumed")
check "$steps == $total" "the resumed run ended after $steps steps, not $total"
expect_filtered "$tmp/resumed"
check "$(ckpt_newest "$ck") == $total" "the resumed run did not commit step $total"
echo "PASS: filtered, killed at 4 ranks after step $last, resumed at 3 with $restored residual bytes"
