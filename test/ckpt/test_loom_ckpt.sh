#!/bin/sh
# loom-ckpt on a checkpoint history written by ckpt_make: list and show
# count exactly the chunks each save had to write, diff names them,
# verify says valid and then, after a flipped byte, names the region,
# chunk and file and exits 1; export makes an archive that restores.
set -u
top=${abs_top_builddir:-$PWD}
tool=$top/loom-ckpt
make_ckpt=$top/test/ckpt/ckpt_make
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-ckpt-tool.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$make_ckpt" save "$dir/ck" || fail "ckpt_make save"

out=$("$tool" -d "$dir/ck" list) || fail "list: $out"
echo "$out"
# step ranks regions bytes new-chunks new-bytes
echo "$out" | grep -Eq '^1 +1 +2 +10340 +11 +10340$' || fail "list step 1"
echo "$out" | grep -Eq '^2 +1 +2 +10340 +2 +2048$' || fail "list step 2: 2 chunks new"
echo "$out" | grep -Eq '^3 +1 +2 +10340 +1 +100$' || fail "list step 3: bias new"

out=$("$tool" -d "$dir/ck" show 2) || fail "show"
echo "$out"
echo "$out" | grep -Eq '^0 +weights +replicated +10240 +0 +10 +2$' || fail "show: weights 2 new"
echo "$out" | grep -Eq '^0 +bias +replicated +100 +0 +1 +0$' || fail "show: bias unchanged"

out=$("$tool" -d "$dir/ck" diff 1 3) || fail "diff"
echo "$out" | grep -Eq '^0 +weights +10 +2 +2048$' || fail "diff weights"
echo "$out" | grep -Eq '^0 +bias +1 +1 +100$' || fail "diff bias"

out=$("$tool" -d "$dir/ck" verify) || fail "verify of an intact directory: $out"
echo "$out" | grep -q 'valid: 3 committed steps' || fail "verify message"

"$tool" -d "$dir/ck" export 3 "$dir/step3.tar" || fail "export"
mkdir "$dir/restored" && tar -xf "$dir/step3.tar" -C "$dir/restored" || fail "untar"
"$tool" -d "$dir/restored" verify >/dev/null || fail "verify of the export"
"$make_ckpt" check "$dir/restored" 3 || fail "restore from the export"

# Flip one byte of a chunk of step 2's weights (the chunk with byte 2048).
victim=$(for f in "$dir"/ck/chunks/*/*; do echo "$f"; done | head -1)
printf 'X' | dd of="$victim" bs=1 seek=5 conv=notrunc 2>/dev/null
out=$("$tool" -d "$dir/ck" verify 2>&1)
status=$?
echo "$out"
[ $status -eq 1 ] || fail "verify of a corrupt directory exited $status, not 1"
echo "$out" | grep -Eq "region (weights|bias), chunk [0-9]+: .*$(basename "$victim") does not match its hash" \
    || fail "verify does not name the region, chunk and file"

"$tool" -d "$dir/ck" show x >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad step number not exit 2"
"$tool" -d "$dir/ck" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown command not exit 2"
# gc: keep the newest step; a crashed save's leftovers (a step directory
# without COMMIT and an orphan chunk) go too, but only once older than
# the grace period.
"$make_ckpt" save "$dir/g" || fail "ckpt_make save for gc"
mkdir "$dir/g/step-00000000000000000000"
mkdir -p "$dir/g/chunks/ff" && printf 'orphan' >"$dir/g/chunks/ff/ff00000000000000000000000000000000"
out=$("$tool" -d "$dir/g" gc --keep 1) || fail "gc: $out"
echo "$out" | grep -q "deleted 2 committed steps and 0 chunks" || fail "gc with the grace period: $out"
[ -f "$dir/g/chunks/ff/ff00000000000000000000000000000000" ] || fail "gc deleted a young orphan"
[ -d "$dir/g/step-00000000000000000000" ] || fail "gc deleted a young unfinished save"
out=$("$tool" -d "$dir/g" gc --grace 0) || fail "gc --grace 0: $out"
# The 3 chunks of steps 1 and 2 that step 3 does not hold, and the orphan.
echo "$out" | grep -q "deleted 0 committed steps and 4 chunks" || fail "gc --grace 0: $out"
[ ! -e "$dir/g/step-00000000000000000000" ] || fail "gc left the unfinished save"
[ "$("$tool" -d "$dir/g" list | awk 'NR > 1 { n++ } END { print n }')" = 1 ] || fail "gc left other steps"
"$tool" -d "$dir/g" verify >/dev/null || fail "verify after gc"
"$make_ckpt" check "$dir/g" 3 || fail "restore after gc"
"$tool" -d "$dir/g" gc --keep x >/dev/null 2>&1; [ $? -eq 2 ] || fail "gc --keep x not exit 2"

# Compressed chunks: verified, exported and restored alike.
LOOM_CKPT_COMPRESS=zstd "$make_ckpt" save "$dir/z" || fail "ckpt_make save with zstd"
ls "$dir"/z/chunks/*/*.zst >/dev/null 2>&1 || fail "no compressed chunk written"
"$tool" -d "$dir/z" verify >/dev/null || fail "verify of compressed chunks"
"$tool" -d "$dir/z" export 2 "$dir/z2.tar" >/dev/null || fail "export of compressed chunks"
mkdir "$dir/z2" && tar -xf "$dir/z2.tar" -C "$dir/z2" || fail "untar compressed"
"$make_ckpt" check "$dir/z2" 2 || fail "restore from the compressed export"
echo "PASS test_loom_ckpt"
