#!/bin/sh
# make check-layers (part of make check): every include direction of
# docs/LAYERS.md's table, read from the table itself so that the rule and
# the check cannot drift apart.
#
#   test/check_layers.sh [SRCDIR]
#
# A row's first column names one or more layers (`dir/`); its "may
# include" column names, in backquotes, what the layer may include: other
# layers, or single files of one (`ckpt/hook.h`).  Words there that are no
# path of the tree (libc, `mpi.h`) speak of system headers, which this
# does not check.  For each tracked .c and .h file: its layer is the
# longest row that contains it (a file in no row is an error: give its
# folder a row), so a folder without a row of its own, such as those
# under test/unit/, follows the row above it; each quoted include is
# resolved as the compiler does (the file's folder, then the top,
# include/) and each <loom/...> as include/loom; one that lands in
# another layer must be granted by the row.  Quoted includes that
# resolve nowhere in the tree are Open MPI's own headers (coll/ompi) or
# generated ones.  Then the MPI rule: nothing in common/, topo/,
# coll/core/, coll/sim/ or ckpt/ (nor include/loom/ckpt.h) includes
# mpi.h or an Open MPI header.
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
table=docs/LAYERS.md
[ -r "$table" ] || { echo "check-layers: cannot read $table" >&2; exit 2; }
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    files=$(git ls-files --cached --others --exclude-standard '*.c' '*.h')
else
    # A tarball (make distcheck): every source file but the generated
    # config.h, and nothing of distcheck's own build and install trees.
    files=$(find . \( -path ./_build -o -path ./_inst -o -path ./autom4te.cache \) -prune -o \
            -name '*.[ch]' ! -name config.h -print | sed 's|^\./||' | sort)
fi

# layer TAB grant TAB grant ... from the table's rows.
rules=$(awk -F'|' '
    /^\| `/ {
        n = 0; delete own
        s = $2
        while (match(s, /`[^`]+`/)) { own[++n] = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) }
        grants = ""
        s = $4
        while (match(s, /`[^` ]+`/)) { grants = grants "\t" substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) }
        for (i = 1; i <= n; i++) { sub(/\/$/, "", own[i]); print own[i] grants }
    }' "$table")
[ -n "$rules" ] || { echo "check-layers: no rows in $table's table" >&2; exit 2; }

# shellcheck disable=SC2086  # the file list is words
echo "$files" | awk -v rules="$rules" '
    # A path of the tree: a tracked file, or a folder holding one.
    function known(p) { return (p in F) || (p in D) }
    function norm(p,   n, i, k, part, out, st) {
        n = split(p, part, "/"); k = 0
        for (i = 1; i <= n; i++) {
            if (part[i] == "." || part[i] == "") continue
            if (part[i] == ".." && k > 0) { k--; continue }
            st[++k] = part[i]
        }
        out = ""; for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") st[i]
        return out
    }
    function layer_of(p,   i, best) {
        best = ""
        for (i = 1; i <= nl; i++)
            if ((p == L[i] || index(p, L[i] "/") == 1) && length(L[i]) > length(best)) best = L[i]
        return best
    }
    function granted(l, t,   i, g) {
        for (i = 1; i <= ng[l]; i++) {
            g = G[l, i]
            if (t == g || index(t, g "/") == 1) return 1
        }
        return 0
    }
    {
        F[$0] = 1; order[++nf] = $0
        d = $0
        while (sub(/\/[^\/]*$/, "", d)) D[d] = 1
    }
    END {
        nr = split(rules, row, "\n")
        for (r = 1; r <= nr; r++) {
            n = split(row[r], f, "\t")
            L[++nl] = f[1]
            for (j = 2; j <= n; j++) {
                g = f[j]; sub(/\/$/, "", g)
                if (known(g)) G[f[1], ++ng[f[1]]] = g
            }
        }
        bad = 0
        for (k = 1; k <= nf; k++) {
            file = order[k]; own = layer_of(file)
            if (own == "") { printf "check-layers: %s is in no layer of docs/LAYERS.md (add its folder to the table)\n", file; bad = 1; continue }
            dir = file; if (!sub(/\/[^\/]*$/, "", dir)) dir = "."
            lineno = 0
            while ((getline line < file) > 0) {
                lineno++
                if (line !~ /^[ \t]*#[ \t]*include[ \t]*[<"]/) continue
                inc = line; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", inc)
                q = substr(inc, 1, 1); inc = substr(inc, 2); sub(/[>"].*$/, "", inc)
                target = ""
                if (q == "\"") {
                    split(dir "|.|include", base, "|")
                    for (b = 1; b <= 3 && target == ""; b++) {
                        p = norm(base[b] "/" inc)
                        if (p in F) target = p
                    }
                } else if (index(inc, "loom/") == 1) {
                    target = "include/" inc
                }
                if (target == "") continue
                tl = layer_of(target)
                if (tl == "" || tl == own || granted(own, target)) continue
                printf "check-layers: %s:%d includes %s (%s), which docs/LAYERS.md does not let %s include\n", file, lineno, inc, tl, own
                bad = 1
            }
            close(file)
        }
        exit bad
    }' || { echo "check-layers: FAILED (docs/LAYERS.md, the table)" >&2; exit 1; }

# The rule a compiler cannot see: no MPI in the engine.
# shellcheck disable=SC2086
bad=$(grep -rlE --include='*.[ch]' '#include *[<"](mpi\.h|ompi_config\.h|ompi/|opal/)' \
    common topo coll/core coll/sim ckpt include/loom/ckpt.h 2>/dev/null)
if [ -n "$bad" ]; then
    echo "check-layers: MPI or Open MPI headers in the engine, the simulator, the topology layer or libloom-ckpt: $bad" >&2
    exit 1
fi
echo "layers: every include as docs/LAYERS.md's table allows, $(echo "$files" | wc -l) files; common/, topo/, coll/core/, coll/sim/ and ckpt/ free of MPI headers"
