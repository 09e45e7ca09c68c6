#!/bin/bash
# The built man pages against their sources: each page is made again and
# must equal the built one (a stale page fails), every option the tool's
# --help names must appear in its page, and every parameter ompi_info
# reports for coll/loom and coll/loomfilter must appear in loom(7); every
# page must render without a groff warning.
set -u
top=${abs_top_builddir:-$PWD}
src=${srcdir:-$top}
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$top/config.h")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*" >&2; bad=1; }

# The date help2man writes into .TH is the day's: compare the rest.
body() { grep -v '^\.TH ' "$1"; }

for tool in loom-bench loom-sim loom-topo loom-ckpt; do
    page=$top/man/$tool.1
    [ -f "$page" ] || { fail "$page was not built"; continue; }
    name=$(sed -n '/^\.SH NAME/{n;s/^[^ ]* \\- //p}' "$page")
    help2man --no-info --no-discard-stderr --version-string="$version" \
        -n "$name" "$top/$tool" -o "$tmp/$tool.1" 2>"$tmp/err" || fail "help2man $tool: $(cat "$tmp/err")"
    cmp -s <(body "$page") <(body "$tmp/$tool.1") || fail "$page differs from $tool --help (rebuild it)"
    # Each long option --help names, as it reads in the rendered page.
    "$top/$tool" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | while read -r opt; do
        man_opt=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
        grep -q -- "$man_opt" "$page" || { echo "FAIL: $page lacks $opt, which $tool --help names" >&2; echo x; }
    done | grep -q x && bad=1
done

page=$top/man/loom.7
if [ -f "$page" ]; then
    bash "$src/man/loom7.sh" "$version" "$top/.libs" >"$tmp/loom.7" || fail "man/loom7.sh failed"
    cmp -s "$page" "$tmp/loom.7" || fail "$page differs from what ompi_info reports (rebuild it)"
    export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$top/.libs"
    n=0
    for comp in loom loomfilter; do
        for p in $(ompi_info --param coll "$comp" --level 9 --parsable |
                   sed -n "s/^mca:coll:$comp:param:\([^:]*\):type:.*/\1/p"); do
            n=$((n + 1))
            grep -qx "\.B $p" "$page" || fail "$page lacks parameter $p"
        done
    done
    [ "$n" -gt 0 ] || fail "ompi_info reported no parameter of coll/loom (component not found in $top/.libs)"
    echo "loom.7: $n parameters checked"
else
    fail "$page was not built"
fi
# Every page renders without a groff warning (a line that cannot be filled
# or adjusted, a bad request): lintian reports them on the package.
for page in "$top"/man/*.[17]; do
    warn=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff failed on $page"
    [ -z "$warn" ] || fail "groff warns on $page: $warn"
done

exit $bad
