#!/bin/bash
# Bad options and a missing dataset end the run with an error that names
# what was wrong and what is accepted.
# shellcheck source=test/train/common.sh
. "$(dirname "$0")/common.sh"

# expect_error CODE TEXT ARGS...: train_mlp ARGS exits with CODE and TEXT.
expect_error() {
    local code=$1 text=$2 rc=0
    shift 2
    timeout -k 5 60 "${MPIRUN:-mpirun}" -np 1 "$train_mlp" "$@" >"$tmp/out" 2>&1 || rc=$?
    [ "$rc" -eq "$code" ] || { cat "$tmp/out" >&2; fail "train_mlp $* exited with $rc, not $code"; }
    grep -qF -- "$text" "$tmp/out" || { cat "$tmp/out" >&2; fail "train_mlp $*: no '$text'"; }
}

expect_error 2 "--batch: '0' is not valid; give a whole number from 1 to" --batch 0
expect_error 2 "--hidden: '64,x' is not valid" --hidden 64,x
expect_error 2 "--overlap: 'maybe' is not valid; give on or off" --overlap=maybe
expect_error 2 "--momentum: '1' is not valid; give a number from 0 to" --momentum 1
expect_error 2 "unknown option '--epoch'" --epoch 3
expect_error 2 "--lr needs a value" --lr
# --filter passes its SPEC to the component unread; only what an MPI info
# value cannot hold is refused here.
expect_error 2 "--filter: the value is empty; give a spec such as topk:0.01" --filter=
expect_error 2 "--filter needs a value" --filter
long=$(printf 'topk:0.01,warmup=%0250d' 0)
expect_error 2 "--filter: the spec has 267 characters; an MPI info value holds at most 255" \
    --filter "$long"
missing="cannot open /nonexistent/train-images-idx3-ubyte.gz: No such file or directory;"
missing="$missing install Debian's dataset-fashion-mnist or pass --data DIR"
expect_error 1 "$missing" --data /nonexistent
expect_error 0 "--hidden" --help
expect_error 0 "--filter       SPEC" --help
echo "PASS: bad options are refused with clear messages"
