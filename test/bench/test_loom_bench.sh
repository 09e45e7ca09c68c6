#!/bin/sh
# loom-bench in make check: a short 2-rank sweep with every result checked,
# short checked runs of allgather and reduce_scatter_block at 2 and 3 ranks,
# and of every other collective once at 2 ranks, one call at a time
# between barriers (--timing single),
# the CSV's shape, proof that the loom column ran on Loom and the default
# columns did not, the plot (or the message when gnuplot is missing), and
# clear errors for bad arguments.  Times are never asserted: the machine
# is shared.  Runs from the top build directory, as make check does.
set -u

top_build=${abs_top_builddir:-$PWD}
top_src=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top_build/loom-bench
[ -x "$bench" ] || { echo "FAIL: $bench is not built" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$top_build/.libs"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-bench-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# run NP OUT ARGS...: loom-bench on NP ranks with Loom selected, the
# hand-off off (so that Loom runs every size) and the node segment from
# 64 KiB on (so that sizes below run Loom's message algorithms), output in
# OUT; the exit status is loom-bench's.
run() {
    np=$1 out=$2
    shift 2
    timeout -k 5 120 "${MPIRUN:-mpirun}" -np "$np" --oversubscribe --bind-to none \
        --mca mpi_yield_when_idle 1 --mca coll_loom_priority 100 \
        --mca coll_loom_allreduce_handoff 0 --mca coll_loom_allgather_handoff 0 \
        --mca coll_loom_allgather_pair_handoff 0 --mca coll_loom_bcast_pair_handoff 0 \
        --mca coll_loom_reduce_scatter_handoff 0 --mca coll_loom_bcast_handoff 0 \
        --mca coll_loom_reduce_handoff 0 --mca coll_loom_shm_min_bytes 65536 \
        "$bench" "$@" >"$out" 2>&1
}

# -------------------------------------------- 1: the sweep, checked
# 8 B to 256 KiB by 8: six sizes, three contenders each.
csv=$tmp/sweep.csv
if ! run 2 "$tmp/sweep.out" -b 8 -e 256K -f 8 -n 3 -w 1 --check --csv "$csv" \
        --plot "$tmp/sweep.png"; then
    cat "$tmp/sweep.out" >&2
    fail "loom-bench -b 8 -e 256K -f 8 --check exited non-zero"
fi
cat "$tmp/sweep.out"
header='collective,datatype,op,ranks,bytes,count,contender,median_us,min_us,max_us,algbw_gbs,busbw_gbs,ratio,algorithm,loom_calls,check,wrong_elements,memcpy_gbs,memcpy_frac,timing'
[ "$(head -n 1 "$csv")" = "$header" ] || fail "unexpected CSV header: $(head -n 1 "$csv")"
for c in loom default 'default(A/A)'; do
    n=$(awk -F, -v c="$c" 'NR > 1 && $7 == c' "$csv" | wc -l)
    [ "$n" -eq 6 ] || fail "$n CSV rows for contender $c, expected one per size (6)"
done
sizes=$(awk -F, 'NR > 1 && $7 == "loom" { printf "%s ", $5 }' "$csv")
[ "$sizes" = "8 64 512 4096 32768 262144 " ] || fail "sizes in the CSV: $sizes"
awk -F, 'NR > 1 && ($16 != "ok" || $17 != 0) { bad = 1 } END { exit bad }' "$csv" ||
    fail "a result check failed (check column of the CSV)"
grep -q '^# check: every result was right' "$tmp/sweep.out" || fail "no check summary"
grep -q '^# timing: batch (back-to-back calls)' "$tmp/sweep.out" || fail "no batch timing line"
awk -F, 'NR > 1 && $20 != "batch" { bad = 1 } END { exit bad }' "$csv" ||
    fail "the timing column is not batch in every row"
# Loom ran every loom-column call (its calls counter grew; the algorithm
# column names what it did), and none of the default columns'.
awk -F, 'NR > 1 && $7 == "loom" && ($15 == 0 || $14 == "-") { bad = 1 } END { exit bad }' \
    "$csv" || fail "a loom row did not run on Loom (loom_calls 0 or algorithm -)"
awk -F, 'NR > 1 && $7 != "loom" && $15 != 0 { bad = 1 } END { exit bad }' "$csv" ||
    fail "a default row ran on Loom"
# Loom names the algorithm it ran; in cvar mode the default's calls were
# handed down because coll_loom_enable was 0.
algs='^(ring|recursive_doubling|rabenseifner|double_binary_tree|shm)(\+[a-z_]+)*$'
awk -F, -v re="$algs" 'NR > 1 && $7 == "loom" && $14 !~ re { bad = 1 } END { exit bad }' \
    "$csv" || fail "a loom row without an algorithm Loom names"
if grep -q '^# default: .*coll_loom_enable switched' "$tmp/sweep.out"; then
    awk -F, 'NR > 1 && $7 != "loom" && $14 != "disabled" { bad = 1 } END { exit bad }' \
        "$csv" || fail "cvar mode: a default row not handed down as disabled"
else
    echo "note: Loom has no coll_loom_enable here; the default came from a communicator"
fi
awk -F, 'NR > 1 && !($12 > 0 && $8 > 0 && $9 <= $8 && $8 <= $10) { bad = 1 } END { exit bad }' \
    "$csv" || fail "a row with a non-positive busbw or time, or min > median > max"
grep -q '^# A/A (the default against itself) over 6 sizes: median' "$tmp/sweep.out" ||
    fail "no A/A summary"
# The memcpy reference: a positive bandwidth in every row, the same in
# every row of a size, and no fraction for allreduce (no single-copy bound).
grep -q 'memcpy of_memcpy' "$tmp/sweep.out" || fail "no memcpy columns in the table"
awk -F, 'NR > 1 && !($18 > 0 && $19 == 0) { bad = 1 } END { exit bad }' "$csv" ||
    fail "allreduce: memcpy_gbs not positive or memcpy_frac not 0"
awk -F, 'NR > 1 { if (($5 in m) && m[$5] != $18) bad = 1; m[$5] = $18 } END { exit bad }' \
    "$csv" || fail "memcpy_gbs differs between the rows of one size"
if command -v "${LOOM_BENCH_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    [ "$(head -c 4 "$tmp/sweep.png" | tail -c 3)" = PNG ] || fail "no PNG from gnuplot"
fi

# ------------------- 2: the communicator switch, fresh buffers, no gnuplot
csv=$tmp/comm.csv
if ! LOOM_BENCH_GNUPLOT=/nonexistent/gnuplot run 2 "$tmp/comm.out" --switch comm \
        -d int32 -o bxor -b 4 -e 64K -f 16 -n 2 -w 1 -B 3 --fresh=1M --check \
        --no-memcpy-ref --plot "$tmp/comm.png"; then
    cat "$tmp/comm.out" >&2
    fail "loom-bench --switch comm -d int32 -o bxor --fresh exited non-zero"
fi
cat "$tmp/comm.out"
grep -q 'ompi_comm_coll_preference' "$tmp/comm.out" || fail "--switch comm not reported"
grep -q 'gnuplot not found' "$tmp/comm.out" || fail "missing gnuplot not reported"
[ -f "$tmp/comm.csv" ] || fail "no CSV beside the plot that could not be drawn"
[ "$(awk -F, 'NR > 1' "$csv" | wc -l)" -eq 12 ] || fail "4 sizes x 3 contenders expected"
awk -F, 'NR > 1 && ($16 != "ok" || $3 != "bxor" || $2 != "int32") { bad = 1 } END { exit bad }' \
    "$csv" || fail "int32 bxor: a check failed"
awk -F, 'NR > 1 && $7 == "loom" && $15 == 0 { bad = 1 } END { exit bad }' "$csv" ||
    fail "--switch comm: a loom row did not run on Loom"
grep -q '^# memcpy reference: off' "$tmp/comm.out" || fail "--no-memcpy-ref not reported"
awk -F, 'NR > 1 && ($18 != 0 || $19 != 0) { bad = 1 } END { exit bad }' "$csv" ||
    fail "--no-memcpy-ref: memcpy columns not 0"

# ------------------------------------------- 3: the nonblocking form
csv=$tmp/iallreduce.csv
if ! run 2 "$tmp/iallreduce.out" -c iallreduce -d double -o max -b 64 -e 64K -f 32 -n 2 \
        -w 1 --check --csv "$csv"; then
    cat "$tmp/iallreduce.out" >&2
    fail "loom-bench -c iallreduce exited non-zero"
fi
cat "$tmp/iallreduce.out"
[ "$(awk -F, 'NR > 1 && $1 == "iallreduce" && $16 == "ok"' "$csv" | wc -l)" -eq 9 ] ||
    fail "iallreduce: 3 sizes x 3 contenders checked ok expected"
awk -F, 'NR > 1 && $7 == "loom" && $15 == 0 { bad = 1 } END { exit bad }' "$csv" ||
    fail "iallreduce: a loom row did not run on Loom"

# ------------------- 4: allgather and reduce_scatter, 2 and 3 ranks
# gathered COLL NP ALGS SIZES ARGS...: a checked run of COLL on NP ranks
# exits 0 with the sizes SIZES (the size column: allgather's output,
# reduce_scatter's input, rounded down to NP equal blocks), every row
# checked ok, and Loom running every loom row with one of ALGS.
gathered() {
    coll=$1 np=$2 algs=$3 want=$4
    shift 4
    csv=$tmp/$coll-$np.csv
    if ! run "$np" "$tmp/$coll-$np.out" -c "$coll" -n 2 -w 1 --check --csv "$csv" "$@"; then
        cat "$tmp/$coll-$np.out" >&2
        fail "loom-bench -c $coll on $np ranks exited non-zero"
    fi
    cat "$tmp/$coll-$np.out"
    grep -q '^# check: every result was right' "$tmp/$coll-$np.out" ||
        fail "$coll on $np ranks: no check summary"
    sizes=$(awk -F, -v c="$coll" 'NR > 1 && $1 == c && $7 == "loom" { printf "%s ", $5 }' \
        "$csv")
    [ "$sizes" = "$want" ] || fail "$coll on $np ranks: sizes '$sizes', expected '$want'"
    n=$(awk -F, 'NR > 1 && $16 == "ok" && $17 == 0' "$csv" | wc -l)
    [ "$n" -eq $(( $(echo "$want" | wc -w) * 3 )) ] ||
        fail "$coll on $np ranks: $n rows checked ok, expected 3 per size"
    awk -F, -v re="^($algs)(\\+[a-z_]+)*\$" \
        'NR > 1 && $7 == "loom" && ($15 == 0 || $14 !~ re) { bad = 1 } END { exit bad }' \
        "$csv" || fail "$coll on $np ranks: a loom row not run by Loom with $algs"
    awk -F, 'NR > 1 && $7 != "loom" && $15 != 0 { bad = 1 } END { exit bad }' "$csv" ||
        fail "$coll on $np ranks: a default row ran on Loom"
}
gathered allgather 2 'bruck|ring' '8 256 8192 ' -b 8 -e 64K -f 32
gathered reduce_scatter_block 2 'recursive_halving|ring' '16 512 16384 ' -d double -o max \
    -b 16 -e 64K -f 32 --fresh=256K
# 3 ranks: 8 B is two floats, no block per rank, skipped; 256 B rounds
# to 3 blocks of 21 elements (252 B), 8 KiB to 3 of 682 (8184 B).
gathered ireduce_scatter_block 3 'recursive_halving|ring' '252 8184 ' -d int32 -o bxor \
    -b 8 -e 64K -f 32
gathered iallgather 3 'bruck|ring' '252 8184 ' -b 8 -e 64K -f 32

# -------------- 5: the v-variants, bcast and reduce, 2 ranks, briefly
# Each once, every result checked: equal counts through the v entry
# points; bcast and reduce from root 1, so that a root taken as 0
# somewhere fails the check (reduce: only the root's output is defined,
# bcast: only the others' are written).
gathered allgatherv 2 'bruck|ring' '8 256 8192 ' -b 8 -e 64K -f 32
gathered reduce_scatter 2 'recursive_halving|ring' '16 512 16384 ' -d int32 -o bor \
    -b 16 -e 64K -f 32
rooted='binomial|chain|scatter_allgather|reduce_scatter_gather'
gathered bcast 2 "$rooted" '8 256 8192 ' --root 1 -d uint8 -b 8 -e 64K -f 32
gathered ibcast 2 "$rooted" '8 8192 ' --root 1 -b 8 -e 64K -f 1024
gathered reduce 2 "$rooted" '8 256 8192 ' --root 1 -d int64 -o prod -b 8 -e 64K -f 32
gathered ireduce 2 "$rooted" '8 8192 ' --root 1 -o min -b 8 -e 64K -f 1024
grep -q '^# loom-bench: reduce (root 1), int64 prod' "$tmp/reduce-2.out" ||
    fail "reduce: the header does not name the root"
# Where a single copy bounds the collective, of_memcpy is algbw / memcpy
# (to the CSV's rounding); it parses as a number in every row.
for c in bcast-2 allgatherv-2; do
    awk -F, 'NR > 1 && !($18 > 0 && $19 > 0 && ($11 / $18 - $19) ^ 2 < 1e-4 + 1e-4 * $19 ^ 2) {
            bad = 1 } END { exit bad }' "$tmp/$c.csv" ||
        fail "$c: memcpy_frac is not algbw_gbs / memcpy_gbs"
done
grep -q '^# memcpy reference: every rank but the root makes' "$tmp/bcast-2.out" ||
    fail "bcast: the header does not say the root sits the memcpy reference out"
grep -q '^# of_memcpy: no size from 1M on' "$tmp/bcast-2.out" ||
    fail "bcast: no of_memcpy summary line"
grep -q '^# of_memcpy' "$tmp/sweep.out" && fail "allreduce: an of_memcpy summary line"

# --------------------------------- 6: the Markdown report (make bench-all)
# One table per collective from the CSVs above: a row per size with a
# verdict, of_memcpy and its verdict where a single copy bounds the
# collective (bcast), none where it does not (allreduce).
report=$top_src/tools/loom-bench-report.sh
sh "$report" "$tmp/sweep.csv" "$tmp/bcast-2.csv" >"$tmp/report.md" ||
    fail "loom-bench-report.sh exited non-zero"
cat "$tmp/report.md"
[ "$(grep -c '^### ' "$tmp/report.md")" -eq 2 ] || fail "report: not one table per collective"
grep -q '^| ranks | size | loom (us) | default (us) | ratio | A/A | bound | verdict | algorithm |$' \
    "$tmp/report.md" || fail "report: allreduce's table header"
grep -q '| memcpy (GB/s) | of_memcpy | copy | algorithm |$' "$tmp/report.md" ||
    fail "report: bcast's table lacks the memcpy columns"
[ "$(grep -cE '^\| 2 \| [0-9]+[KMG]? \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| (ok|SLOW) \|' \
    "$tmp/report.md")" -eq 9 ] || fail "report: 6 allreduce and 3 bcast rows with a verdict expected"
grep -qE '^\| 2 \| 8K \| .* \| [0-9.]+ \| [0-9.]+ \| - \| [a-z_+]+ \|$' "$tmp/report.md" ||
    fail "report: bcast at 8K (below --large) should have of_memcpy and no copy verdict"
sh "$report" --large 8K "$tmp/bcast-2.csv" | grep -qE '^\| 2 \| 8K \| .* \| (ok|LOW) \| [a-z_+]+ \|$' ||
    fail "report --large 8K: no copy verdict at 8K"
grep -q '^- 2 ranks: A/A p95 [0-9.]*, bound [0-9.]*; SLOW at [0-9]* of 6 sizes$' "$tmp/report.md" ||
    fail "report: allreduce's summary line"
if sh "$report" --large 12X "$tmp/sweep.csv" >"$tmp/bad.out" 2>&1; then
    fail "report --large 12X exited 0"
fi
grep -q -- "--large '12X': expected bytes" "$tmp/bad.out" || fail "report: no message for --large 12X"
# Repeated jobs (bench-all LOOM_BENCH_ALL_JOBS) pool: a cell is the median
# over the CSVs, so one job's 9.0 at the first size does not decide it.
first=$(awk -F, 'NR == 2 { print $5 }' "$tmp/sweep.csv")
for r in 1.2000 9.0000 1.5000; do
    awk -F, -v OFS=, -v b="$first" -v r="$r" '$5 == b && $7 == "loom" { $13 = r; $8 = r } { print }' \
        "$tmp/sweep.csv" >"$tmp/job-$r.csv"
done
sh "$report" "$tmp"/job-*.csv >"$tmp/pooled.md" || fail "report of three jobs exited non-zero"
grep -qE "^\| 2 \| $first \| 1\.50 \| [0-9.]+ \| 1\.50 \|" "$tmp/pooled.md" ||
    fail "report of three jobs: the first size is not the median of 1.2, 9.0 and 1.5"
[ "$(grep -c '^| 2 | ' "$tmp/pooled.md")" -eq 6 ] || fail "report of three jobs: not one row per size"
grep -q '^- 2 ranks (each cell the median of 3 jobs): A/A p95' "$tmp/pooled.md" ||
    fail "report of three jobs: the summary does not say the cells are medians of 3 jobs"

# ------------------------------------- 7: one call between barriers
# --timing single: every sample is one call, barrier before and after,
# each rank's time averaged; the header and every CSV row say so, and
# every result is still checked.
csv=$tmp/single.csv
if ! run 3 "$tmp/single.out" -c bcast --root 2 --timing single -n 9 -w 1 -b 512 -e 2K \
        --check --csv "$csv"; then
    cat "$tmp/single.out" >&2
    fail "loom-bench --timing single exited non-zero"
fi
cat "$tmp/single.out"
grep -q '^# loom-bench: bcast (root 2), float sum, 3 ranks .* 9 timed single calls per' \
    "$tmp/single.out" || fail "--timing single: the first header line"
grep -q "^# timing: single (barrier, one call timed, barrier); .* each rank's own time averaged" \
    "$tmp/single.out" || fail "--timing single: no timing line"
[ "$(awk -F, 'NR > 1 && $20 == "single" && $16 == "ok"' "$csv" | wc -l)" -eq 9 ] ||
    fail "--timing single: 3 sizes x 3 contenders, single and checked ok, expected"
awk -F, 'NR > 1 && $7 == "loom" && $15 != 9 + 1 { bad = 1 } END { exit bad }' "$csv" ||
    fail "--timing single: a loom row did not run one call per sample on Loom (9 + 1 warm-up)"
sh "$top_src/tools/loom-bench-report.sh" "$csv" | grep -q '^### bcast (timing single)$' ||
    fail "report: no table of its own for --timing single"

# ------------------------------------------------------ 8: bad arguments
# bad_args EXPECTED ARGS...: loom-bench fails with a message naming the
# argument and what is accepted.
bad_args() {
    want=$1
    shift
    if run 1 "$tmp/bad.out" "$@"; then
        fail "loom-bench $* exited 0"
    fi
    grep -q -- "$want" "$tmp/bad.out" || {
        cat "$tmp/bad.out" >&2
        fail "loom-bench $*: no message with '$want'"
    }
    echo "loom-bench $*: $(grep -- "$want" "$tmp/bad.out" | head -n 1)"
}
bad_args "-d 'quad': unknown datatype; accepted: int8, uint8" -d quad
bad_args "-o bxor does not apply to -d float; accepted for float: sum" -o bxor
bad_args "-b '12X': expected a byte count with an optional suffix K, M or G" -b 12X
bad_args "-e 8 is below -b 1024" -b 1K -e 8
bad_args "unknown option '--bogus'" --bogus
bad_args "-c 'alltoall': unknown collective; accepted: allreduce, iallreduce, allgather, iallgather, reduce_scatter_block, ireduce_scatter_block, allgatherv, reduce_scatter, bcast, ibcast, reduce, ireduce" -c alltoall
bad_args "--root 1: no such rank in a job of 1; accepted: 0 to 0" -c bcast --root 1
bad_args "--root '-1': expected a whole number from 0 to" -c reduce --root -1
bad_args "--timing 'each': accepted: batch, single" --timing each
bad_args "-B 4: --timing single times one call at a time; -B applies to --timing batch" \
    --timing single -B 4
echo "PASS"
