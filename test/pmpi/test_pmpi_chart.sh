#!/bin/sh
# The chart (pmpi/chart.c): rank 0 draws PREFIX.png with gnuplot at
# MPI_Finalize.  On 3 ranks the PNG exists, is a PNG (its signature) of
# some substance, and the script gnuplot drew it from (PREFIX.gp) holds
# every collective's time per rank and in total as the JSON has them.  A
# chart that cannot be drawn never fails the job and costs one warning
# line: gnuplot hidden from the ranks' PATH, a gnuplot that hangs (killed
# after LOOM_PMPI_CHART_TIMEOUT), fails, or draws nothing.  LOOM_PMPI_CHART=0 draws nothing
# and says nothing; a bad value is refused with the accepted range.
. "$(dirname "$0")/common.sh"
command -v gnuplot >/dev/null || fail "no gnuplot (apt-get install gnuplot-nox)"

run plain 3 ""
run chart 3 "$lib"
same plain chart
png=$dir/chart.png
[ -f "$png" ] || { cat "$dir/chart.err" >&2; fail "no $png"; }
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "$png does not start with the PNG signature"
size=$(wc -c <"$png")
[ "$size" -gt 8000 ] || fail "$png is only $size bytes"
grep -qx "libloom-pmpi: chart in $png" "$dir/chart.err" || { cat "$dir/chart.err" >&2; fail "the chart is not announced"; }
# The script's data against the JSON: per rank and per collective sums of
# the sites' per-rank times (collectives only; point-to-point is left out).
python3 - "$dir/chart.json" "$dir/chart.gp" <<'PY' || fail "the chart's data disagree with the profile"
import json, sys
prof = json.load(open(sys.argv[1]))
p2p = {"Send", "Ssend", "Bsend", "Rsend", "Isend", "Issend", "Irecv", "Recv", "Sendrecv", "Sendrecv_replace"}
want = {}
for s in prof["sites"]:
    if s["function"][4:] in p2p:
        continue
    for r in s["ranks"]:
        if r["time_s"] > 0:
            want.setdefault(s["function"], [0.0] * prof["ranks"])[r["rank"]] += r["time_s"]
blocks, name = {}, None
for line in open(sys.argv[2]):
    line = line.rstrip("\n")
    if line.endswith(" << EOD"):
        name, blocks[line.split()[0]] = line.split()[0], []
    elif line == "EOD":
        name = None
    elif name:
        blocks[name].append(line.split())
total = {w[0]: float(w[1]) for w in blocks["$per_collective"]}
head, rows = blocks["$per_rank"][0], blocks["$per_rank"][1:]
if sorted(total) != sorted(want) or sorted(head[1:]) != sorted(want):
    sys.exit("collectives %s / %s, the profile has %s" % (sorted(total), head[1:], sorted(want)))
if [int(r[0]) for r in rows] != list(range(prof["ranks"])):
    sys.exit("rows %s, not one per rank" % [r[0] for r in rows])
close = lambda a, b: abs(a - b) <= 1e-6 * max(abs(b), 1e-9) + 1e-12
for fn, per_rank in want.items():
    col = head.index(fn)
    if not close(total[fn], sum(per_rank)):
        sys.exit("%s: total %g, the profile %g" % (fn, total[fn], sum(per_rank)))
    for r, row in enumerate(rows):
        if not close(float(row[col]), per_rank[r]):
            sys.exit("%s rank %d: %s, the profile %g" % (fn, r, row[col], per_rank[r]))
print("chart data: %d collectives x %d ranks as in the profile" % (len(want), len(rows)))
PY
echo "== chart: a ${size}-byte PNG of the profile's times"

# warned NAME PATTERN: the run succeeded (run fails otherwise), printed
# the same results, wrote its profile, no PNG, and one warning line
# matching PATTERN.
warned() {
    same plain "$1"
    [ -f "$dir/$1.json" ] || fail "$1: no profile"
    [ ! -e "$dir/$1.png" ] || fail "$1: a PNG was written"
    [ "$(grep -c 'libloom-pmpi: warning' "$dir/$1.err")" -eq 1 ] && grep -q "$2" "$dir/$1.err" ||
        { cat "$dir/$1.err" >&2; fail "$1: not one warning matching '$2'"; }
    grep 'libloom-pmpi: warning' "$dir/$1.err"
}
mkdir "$dir/empty" "$dir/slow"
run nognuplot 3 "$lib" -x PATH="$dir/empty"
warned nognuplot 'no chart: gnuplot is not on PATH'
# A gnuplot that never finishes; exec, so that the kill reaches the
# sleeper itself and nothing keeps the rank's stderr open.
printf '#!/bin/sh\nexec sleep 60\n' >"$dir/slow/gnuplot"
chmod +x "$dir/slow/gnuplot"
start=$(date +%s)
LOOM_PMPI_CHART_TIMEOUT=1 run hang 3 "$lib" -x PATH="$dir/slow:$PATH"
warned hang 'gnuplot ran longer than 1 s'
[ $(($(date +%s) - start)) -lt 30 ] || fail "the hanging gnuplot held the job"

# A gnuplot that fails, and one that succeeds without drawing.
mkdir "$dir/broken" "$dir/idle"
printf '#!/bin/sh\nexit 3\n' >"$dir/broken/gnuplot"
printf '#!/bin/sh\nexit 0\n' >"$dir/idle/gnuplot"
chmod +x "$dir/broken/gnuplot" "$dir/idle/gnuplot"
run broken 3 "$lib" -x PATH="$dir/broken:$PATH"
warned broken 'gnuplot failed on .*broken.gp (exit status 3)'
run idle 3 "$lib" -x PATH="$dir/idle:$PATH"
warned idle "gnuplot wrote no $dir/idle.png"

LOOM_PMPI_CHART=0 run off 3 "$lib"
same plain off
[ -f "$dir/off.json" ] && [ ! -e "$dir/off.png" ] && ! grep -q 'chart\|gnuplot' "$dir/off.err" ||
    { cat "$dir/off.err" >&2; fail "LOOM_PMPI_CHART=0 still charted or spoke of it"; }
LOOM_PMPI_CHART=yes run bad 3 "$lib"
same plain bad
grep -q 'LOOM_PMPI_CHART="yes" is not accepted: it must be an integer from 0 to 1 (default 1)' "$dir/bad.err" ||
    { cat "$dir/bad.err" >&2; fail "no clear message for LOOM_PMPI_CHART=yes"; }
echo "== chart: passed"
