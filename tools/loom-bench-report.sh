#!/bin/sh
# loom-bench-report.sh: loom-bench CSVs into Markdown, one table per
# collective (its rank counts one after the other), with the issue's
# verdicts, for pasting into the docs.  See docs/loom-bench.md, "make
# bench-all".
#
#   tools/loom-bench-report.sh [--large SIZE] FILE.csv...
#
# Per size: Loom's and the default's median, their ratio, the A/A ratio,
# and the bound the issue sets, max(1.05, A/A p95), where A/A p95 is the
# 95th percentile (nearest rank) of the A/A ratios over the sizes of that
# CSV: the noise this run showed.  verdict: ok when the ratio is at most
# the bound, SLOW otherwise.  For bcast and the allgathers (the
# collectives with a memcpy fraction), of_memcpy and, from --large bytes
# on (default 1M), copy: ok when Loom reaches 0.90 of the memcpy
# reference, LOW otherwise; below that size a memcpy costs nanoseconds and
# the fraction says nothing.  Several CSVs of the same collective, rank
# count and timing (repeated jobs) pool: every number of a cell, the ratio
# and A/A included, is the median over them, and the bound is taken over
# those medians.
set -u

usage() {
    echo "usage: $0 [--large SIZE] FILE.csv..." >&2
    echo "  SIZE: bytes, with an optional suffix K, M or G (default 1M)" >&2
    exit 2
}

large=1M
while [ $# -gt 0 ]; do
    case $1 in
    --large)
        [ $# -ge 2 ] || usage
        large=$2
        shift 2
        ;;
    --large=*)
        large=${1#--large=}
        shift
        ;;
    -h | --help) usage ;;
    -*) echo "$0: unknown option '$1'" >&2; usage ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage
case $large in
*[!0-9KMGkmg]* | '' | [!0-9]*) echo "$0: --large '$large': expected bytes with an optional suffix K, M or G" >&2; exit 2 ;;
esac
for f in "$@"; do
    [ -r "$f" ] || { echo "$0: cannot read $f" >&2; exit 2; }
    head -n 1 "$f" | grep -qE '^collective,datatype,op,ranks,bytes,.*,memcpy_gbs,memcpy_frac(,timing)?$' || {
        echo "$0: $f is not a loom-bench CSV with the memcpy columns" >&2
        exit 2
    }
done

exec awk -F, -v large_text="$large" '
function bytes_of(t,    n, u) {
    n = t + 0
    u = toupper(substr(t, length(t)))
    return u == "K" ? n * 1024 : u == "M" ? n * 1048576 : u == "G" ? n * 1073741824 : n
}
function size_text(b) {
    if (b >= 1073741824 && b % 1073741824 == 0) return (b / 1073741824) "G"
    if (b >= 1048576 && b % 1048576 == 0) return (b / 1048576) "M"
    if (b >= 1024 && b % 1024 == 0) return (b / 1024) "K"
    return b
}
# Sort v[1..n] numerically, in place (n is a few dozen at most).
function sort_numbers(v, n,    i, j, x) {
    for (i = 2; i <= n; ++i) {
        x = v[i]
        for (j = i - 1; j >= 1 && v[j] > x; --j) v[j + 1] = v[j]
        v[j + 1] = x
    }
}
# The p-th percentile by the nearest-rank method, as loom-bench prints it.
function percentile(v, n, p,    r) {
    sort_numbers(v, n)
    r = int(p / 100 * n)
    if (r < p / 100 * n) ++r
    return v[r < 1 ? 1 : r > n ? n : r]
}
BEGIN { large = bytes_of(large_text) }
FNR == 1 { next }
{
    # Calls timed one at a time (--timing single) get tables of their own.
    coll = $1 (NF >= 20 && $20 == "single" ? " (timing single)" : ""); np = $4 + 0; b = $5 + 0; c = $7
    if (!(coll in seen_coll)) { seen_coll[coll] = 1; colls[++ncolls] = coll }
    if (!((coll, np) in seen_np)) { seen_np[coll, np] = 1; nps[coll] = nps[coll] " " np }
    if (!((coll, np, b) in seen_b)) { seen_b[coll, np, b] = 1; sizes[coll, np] = sizes[coll, np] " " b }
    key = coll SUBSEP np SUBSEP b
    # Several CSVs of one collective and rank count (the jobs of
    # make bench-all LOOM_BENCH_ALL_JOBS=N) pool: each cell becomes the
    # median over them.
    if (c == "loom") {
        n = ++nloom[key]
        loomv[key, n] = $8; ratiov[key, n] = $13; fracv[key, n] = $19; memcpyv[key, n] = $18
        if (!((key, $14) in seen_alg)) { seen_alg[key, $14] = 1; alg[key] = n == 1 ? $14 : alg[key] "/" $14 }
        if (n > jobs[coll, np]) jobs[coll, np] = n
    } else if (c == "default") {
        dfltv[key, ++ndflt[key]] = $8
    } else if (c == "default(A/A)") {
        aav[key, ++naa[key]] = $13
    }
    if ($16 == "fail") bad[key] = 1
}
# The median of the n values x[key, 1..n].
function median_of(x, key, n,    i, v) {
    for (i = 1; i <= n; ++i) v[i] = x[key, i] + 0
    sort_numbers(v, n)
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
END {
    for (key in nloom) {
        loom[key] = median_of(loomv, key, nloom[key]); ratio[key] = median_of(ratiov, key, nloom[key])
        frac[key] = median_of(fracv, key, nloom[key]); memcpy[key] = median_of(memcpyv, key, nloom[key])
    }
    for (key in ndflt) dflt[key] = median_of(dfltv, key, ndflt[key])
    for (key in naa) aa[key] = median_of(aav, key, naa[key])
    for (k = 1; k <= ncolls; ++k) {
        coll = colls[k]
        copy = coll ~ /^i?(bcast|allgather|allgatherv)( \(timing single\))?$/
        printf "### %s\n\n", coll
        printf "| ranks | size | loom (us) | default (us) | ratio | A/A | bound | verdict |"
        if (copy) printf " memcpy (GB/s) | of_memcpy | copy |"
        printf " algorithm |\n"
        printf "|---:|---:|---:|---:|---:|---:|---:|---|"
        if (copy) printf "---:|---:|---|"
        printf "---|\n"
        nn = split(nps[coll], npl, " ")
        for (i = 1; i <= nn; ++i) npv[i] = npl[i] + 0
        sort_numbers(npv, nn)
        summary = ""
        for (i = 1; i <= nn; ++i) {
            np = npv[i]
            ns = split(sizes[coll, np], sl, " ")
            for (j = 1; j <= ns; ++j) sv[j] = sl[j] + 0
            sort_numbers(sv, ns)
            m = 0
            for (j = 1; j <= ns; ++j) {
                key = coll SUBSEP np SUBSEP sv[j]
                if (key in aa) av[++m] = aa[key] + 0
            }
            p95 = m > 0 ? percentile(av, m, 95) : 0
            bound = p95 > 1.05 ? p95 : 1.05
            slow = 0; low = 0; judged = 0; failed = 0
            for (j = 1; j <= ns; ++j) {
                key = coll SUBSEP np SUBSEP sv[j]
                r = ratio[key] + 0
                verdict = r <= bound ? "ok" : "SLOW"
                if (!(key in loom) || !(key in dflt)) verdict = "-"
                slow += verdict == "SLOW"
                if (key in bad) { verdict = verdict " (check FAILED)"; ++failed }
                aa_text = "-"
                if (key in aa) aa_text = sprintf("%.2f", aa[key])
                printf("| %d | %s | %.2f | %.2f | %.2f | %s | %.2f | %s |", np, size_text(sv[j]),
                       loom[key], dflt[key], r, aa_text, bound, verdict)
                if (copy) {
                    f = frac[key] + 0
                    cv = sv[j] < large || f == 0 ? "-" : f >= 0.90 ? "ok" : "LOW"
                    judged += cv != "-"; low += cv == "LOW"
                    f_text = "-"
                    if (f > 0) f_text = sprintf("%.3f", f)
                    printf(" %.3f | %s | %s |", memcpy[key], f_text, cv)
                }
                printf " %s |\n", alg[key]
            }
            summary = summary sprintf("- %d ranks", np)
            if (jobs[coll, np] > 1) summary = summary sprintf(" (each cell the median of %d jobs)", jobs[coll, np])
            summary = summary sprintf(": A/A p95 %.2f, bound %.2f; SLOW at %d of %d sizes", p95, bound, slow, ns)
            if (copy) summary = summary sprintf("; of_memcpy below 0.90 at %d of %d sizes from %s on", low, judged, size_text(large))
            if (failed) summary = summary sprintf("; CHECK FAILED at %d sizes", failed)
            summary = summary "\n"
        }
        printf "\n%s\n", summary
    }
}' "$@"
