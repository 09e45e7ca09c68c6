#!/bin/sh
# make check: loom-sim end to end, briefly: a small sweep with CSV, the
# model file written by calibrate read back, and bad input rejected with
# exit status 2 and a message naming the option.
set -u
top=${abs_top_builddir:-$PWD}
sim=$top/loom-sim
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$sim" -p 8,16 -b 1M -e 4M -f 4 -a all --csv "$tmp/out.csv" >"$tmp/out.txt" ||
    fail "a small sweep exited $?"
# 2 rank counts x 2 sizes x 5 algorithms, and a header.
[ "$(wc -l <"$tmp/out.csv")" -eq 21 ] || fail "expected 21 CSV lines, got $(wc -l <"$tmp/out.csv")"
grep -q '^ *16 .*ring' "$tmp/out.txt" || fail "no ring row for 16 ranks in the table"
grep -q '\*' "$tmp/out.txt" || fail "no row marked as Loom's choice"
# Threads share out the points, not the results.
"$sim" -p 8,16 -b 1M -e 4M -f 4 -a all -j 3 -q --csv "$tmp/out3.csv" || fail "-j 3 exited $?"
cmp -s "$tmp/out.csv" "$tmp/out3.csv" || fail "-j 3 changed the CSV"
# Folding the ranks of a symmetric run onto one rack changes no number
# (4 racks of 8 ranks: the ring and the hierarchical allreduce fold).
"$sim" -p 32 --ranks-per-node 4 --nodes-per-rack 2 -b 64K -e 4M -f 8 -a all -q \
    --csv "$tmp/fold.csv" || fail "the folding sweep exited $?"
"$sim" -p 32 --ranks-per-node 4 --nodes-per-rack 2 -b 64K -e 4M -f 8 -a all -q --no-fold \
    --csv "$tmp/nofold.csv" || fail "--no-fold exited $?"
cmp -s "$tmp/fold.csv" "$tmp/nofold.csv" || fail "--no-fold changed the CSV"
# Every other collective: its rows named in the CSV, each algorithm's
# time set, and folding changes nothing there either.
for coll in bcast reduce allgather reduce_scatter; do
    "$sim" -c $coll -p 8,32 --ranks-per-node 4 --nodes-per-rack 2 -b 64K -e 4M -f 8 -a all -q \
        --csv "$tmp/$coll.csv" || fail "-c $coll exited $?"
    "$sim" -c $coll -p 8,32 --ranks-per-node 4 --nodes-per-rack 2 -b 64K -e 4M -f 8 -a all -q \
        --no-fold --csv "$tmp/$coll-nofold.csv" || fail "-c $coll --no-fold exited $?"
    cmp -s "$tmp/$coll.csv" "$tmp/$coll-nofold.csv" || fail "--no-fold changed the $coll CSV"
    awk -F, -v c=$coll 'NR > 1 && ($1 != c || $9 == "" || $9 <= 0) { bad = 1 }
                        END { exit bad || NR < 7 }' "$tmp/$coll.csv" ||
        fail "-c $coll: rows without a time or of another collective: $(cat "$tmp/$coll.csv")"
done

# The plot's script, through a stand-in gnuplot that keeps it: plain
# text, so that double_binary_tree is not drawn with subscripts.
printf '#!/bin/sh\ncat >"%s/plot.gp"\n' "$tmp" >"$tmp/gnuplot" && chmod +x "$tmp/gnuplot"
LOOM_SIM_GNUPLOT=$tmp/gnuplot "$sim" -p 8:16 -b 1M -e 1M -a double_binary_tree -q \
    --plot "$tmp/p.png" || fail "--plot exited $?"
grep -q '^set terminal png noenhanced' "$tmp/plot.gp" ||
    fail "the plot script does not turn enhanced text off: $(head -1 "$tmp/plot.gp")"
grep -q 'title "double_binary_tree"' "$tmp/plot.gp" || fail "no double_binary_tree line in the plot"

# calibrate writes a model that --model reads back.
printf '%s\n' \
    'same-node rank 0 (n0) <-> rank 1 (n0): 65536 bytes, 1000 MB/s' \
    'same-node rank 0 (n0) <-> rank 1 (n0): 4194304 bytes, 3000 MB/s' \
    'same-rack rank 0 (n0) <-> rank 2 (n1): 65536 bytes, 60 MB/s' \
    'same-rack rank 0 (n0) <-> rank 2 (n1): 4194304 bytes, 110 MB/s' \
    'cross-rack rank 0 (n0) <-> rank 4 (n2): 65536 bytes, 25 MB/s' \
    'cross-rack rank 0 (n0) <-> rank 4 (n2): 4194304 bytes, 35 MB/s' >"$tmp/pp.txt"
"$sim" calibrate --pingpong "$tmp/pp.txt" --ranks-per-node 2 --nodes-per-rack 2 \
    -o "$tmp/model.conf" 2>"$tmp/cal.err" || fail "calibrate exited $?: $(cat "$tmp/cal.err")"
grep -q '^intra_rack_gbs = ' "$tmp/model.conf" || fail "no intra_rack_gbs in the model"
"$sim" --model "$tmp/model.conf" -p 8 -b 1M -e 1M -a ring -q --csv "$tmp/m.csv" ||
    fail "--model could not read calibrate's output"

# The links' share of their ping-pong speed from a loom-bench CSV: times
# the model itself predicts with every link between nodes at 0.7 of its
# ping-pong speed, in loom-bench's columns, must fit back to 0.7.
scaled=$(awk -F' = ' '$1 ~ /^(intra_rack_gbs|inter_rack_gbs|nic_gbs|uplink_gbs)$/ {
                          printf " --set %s=%.9g", $1, $2 * 0.7 }' "$tmp/model.conf")
# shellcheck disable=SC2086  # one --set per key
"$sim" --model "$tmp/model.conf" $scaled -p 8 -a ring -b 1M -e 8M -q \
    --ranks-per-node 2 --nodes-per-rack 2 --csv "$tmp/truth.csv" || fail "truth run exited $?"
awk -F, 'NR == 1 { print "collective,datatype,op,ranks,bytes,count,contender,median_us"; next }
         { print "allreduce,float,sum,8," $5 "," $5 / 4 ",loom," $9 }' \
    "$tmp/truth.csv" >"$tmp/bench.csv"
"$sim" calibrate --pingpong "$tmp/pp.txt" --bench "$tmp/bench.csv" --bench-algorithm ring \
    --bench-ranks 8 --ranks-per-node 2 --nodes-per-rack 2 -o "$tmp/model2.conf" \
    2>"$tmp/cal2.err" || fail "calibrate --bench exited $?: $(cat "$tmp/cal2.err")"
was=$(awk -F' = ' '$1 == "uplink_gbs" { print $2 }' "$tmp/model.conf")
# share_is_07 MODEL WHAT: MODEL's uplink is 0.7 of the ping-pong one, 2%.
share_is_07() {
    awk -F' = ' -v was="$was" '$1 == "uplink_gbs" { exit !($2 > 0.686 * was && $2 < 0.714 * was) }' \
        "$1" || fail "$2: $(grep uplink_gbs "$1"), expected 0.7 x $was"
}
share_is_07 "$tmp/model2.conf" "link share fit"
# One size that ran slow (x1.5, as a loaded rig's median can) must not
# move the share: least squares of the log ratios would put it at 0.63.
awk -F, 'NR == 2 { $8 = $8 * 1.5 } { print }' OFS=, "$tmp/bench.csv" >"$tmp/bench-slow.csv"
"$sim" calibrate --pingpong "$tmp/pp.txt" --bench "$tmp/bench-slow.csv" --bench-algorithm ring \
    --bench-ranks 8 --ranks-per-node 2 --nodes-per-rack 2 -o "$tmp/model3.conf" \
    2>"$tmp/cal3.err" || fail "calibrate --bench (one slow size) exited $?: $(cat "$tmp/cal3.err")"
share_is_07 "$tmp/model3.conf" "link share fit with one slow size"

# Bad input: status 2 and the option named.
check_bad() {
    want=$1; shift
    "$sim" "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "loom-sim $*: exit $rc, expected 2"
    grep -q -- "$want" "$tmp/err" || fail "loom-sim $*: message '$(cat "$tmp/err")' does not name $want"
}
check_bad -p -p 1
check_bad --map-by --map-by rack
check_bad fastest -a fastest
check_bad reduce_scatter -c gather
check_bad scatter_allgather -c bcast -a ring
check_bad --model --model "$tmp/none"
echo "bad = 1" >"$tmp/bad.conf"
check_bad "bad.conf:1" --model "$tmp/bad.conf"
echo "PASS: loom-sim"
