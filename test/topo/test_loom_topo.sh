#!/bin/sh
# loom-topo on the fixtures of test/topo: check (valid files, every kind of
# bad one, exit statuses), map as text, JSON (which loads back to the same
# map) and DOT, drawing through Graphviz (a stand-in dot records how it is
# called; the real one draws when installed; none: a clear message), and
# rankfile (the exact rankfile and bytes per level, and its errors).
set -u
top=${abs_top_builddir:-$PWD}
tool=$top/loom-topo
fix=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-topo-tool.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect STATUS CMD...: run, keep stdout+stderr in $out, check the status.
expect() {
    want=$1; shift
    out=$("$@" 2>&1); got=$?
    [ "$got" -eq "$want" ] || fail "$* exited $got, expected $want: $out"
}
has() { printf '%s\n' "$out" | grep -qxF -- "$1" || fail "no line '$1' in:
$out"; }

# ------------------------------------------------------------------ check
expect 0 "$tool" check "$fix/two_racks.conf"
has "$fix/two_racks.conf: valid: 3 switches, 2 racks, 4 nodes, 0 ranks"
expect 0 "$tool" check "$fix/uneven.json"
has "$fix/uneven.json: valid: 3 switches, 2 racks, 4 nodes, 7 ranks"
expect 0 "$tool" check "$fix/three_levels.conf"
has "$fix/three_levels.conf: valid: 7 switches, 4 racks, 8 nodes, 0 ranks"
expect 1 "$tool" check "$fix/bad_range.conf"
has "loom-topo: $fix/bad_range.conf:3: range 5-2 in 'node[5-2]' goes down; expected LOW-HIGH with LOW <= HIGH"
expect 1 "$tool" check "$dir/missing.conf"
has "loom-topo: $dir/missing.conf: cannot open: No such file or directory; expected a readable topology.conf or Loom topology file (JSON)"
printf '{\n  "loom_topology": 1,\n  "nodes": [ {"name": "a"} ]\n  "ranks": []\n}\n' >"$dir/comma.json"
expect 1 "$tool" check "$dir/comma.json"
has "loom-topo: $dir/comma.json:4: column 9: invalid JSON: '}' expected near '\"ranks\"'"
printf 'SwitchName=r0 Nodes=n[0-1]\nSwitchName=r1 Nodes=n1\n' >"$dir/twice.conf"
expect 1 "$tool" check "$dir/twice.conf"
has "loom-topo: $dir/twice.conf:2: node 'n1' is already under switch 'r0'; expected each node under one switch"
printf '{"loom_topology": 1, "switches": [{"name": "r", "nodes": "n0"}], "ranks": [{"node": "n9"}]}\n' >"$dir/rank.json"
expect 1 "$tool" check "$dir/rank.json"
has "loom-topo: $dir/rank.json: ranks[0]: node 'n9' is not declared; expected a node of \"nodes\" or of a switch"

# ------------------------------------------------------------------- usage
expect 2 "$tool" --format xml "$fix/two_racks.conf"
has "loom-topo: unknown --format 'xml'; expected text, json or dot"
expect 2 "$tool" check
has "loom-topo: check: expected one topology FILE, found 0 arguments"
expect 2 "$tool" rankfile "$fix/two_racks.conf"
has "loom-topo: rankfile needs --traffic MATRIX (one row of bytes per rank)"
expect 2 "$tool" rankfile --slots 0 --traffic "$fix/ring8.traffic" "$fix/two_racks.conf"
has "loom-topo: --slots '0': expected an integer from 1 to 1000000"
expect 0 "$tool" --help
has "  check      validate FILE; exit 0 when valid, 1 with the reason when not"

# -------------------------------------------------------------- map: text
expect 0 "$tool" "$fix/uneven.json"
text=$out
has "topology $fix/uneven.json: 3 switches, 2 racks, 4 nodes, 7 ranks"
has "link spine  0.3 Gbit/s"
has "switch spine"
has "  switch rack0 (rack)"
has "    node node0  slots 2  ranks 0-1"
has "      socket 1  ranks 1"
has "    node node3  slots 1  ranks 6"
expect 0 "$tool" map "$fix/three_levels.conf"
has "    switch leaf00 (rack)"
has "      node gpu003"
has "      node x2"

# -------------------------------------------- map: JSON, which loads back
expect 0 "$tool" --format json -o "$dir/dump.json" "$fix/uneven.json"
expect 0 "$tool" map "$dir/dump.json"
[ "$(printf '%s\n' "$out" | tail -n +2)" = "$(printf '%s\n' "$text" | tail -n +2)" ] ||
    fail "the JSON dump maps differently:
$out"
expect 0 "$tool" --format json "$fix/two_racks.conf"
printf '%s\n' "$out" >"$dir/two.json"
expect 0 "$tool" check "$dir/two.json"
has "$dir/two.json: valid: 3 switches, 2 racks, 4 nodes, 0 ranks"

# ---------------------------------------------------------------- map: DOT
expect 0 "$tool" --format dot "$fix/uneven.json"
has "graph topology {"
has '  "switch:spine" -- "switch:rack0" [label="0.3 Gbit/s"];'
has '  "switch:rack1" -- "node:node3" [label="1 Gbit/s"];'
has '  "node:node3" [label="node3\nranks 6"];'

# Drawing: without dot on PATH, a message; with a stand-in, its call.
expect 1 env PATH=/nonexistent "$tool" -o "$dir/map.png" "$fix/uneven.json"
has "loom-topo: cannot draw $dir/map.png: Graphviz's 'dot' is not on PATH (apt-get install graphviz); --format dot writes the graph for drawing elsewhere"
mkdir "$dir/bin"
cat >"$dir/bin/dot" <<'FAKE'
#!/bin/sh
echo "$@" >"$(dirname "$0")/args"
cat >"$(dirname "$0")/stdin"
FAKE
chmod +x "$dir/bin/dot"
expect 0 env PATH="$dir/bin:$PATH" "$tool" -o "$dir/map.svg" "$fix/uneven.json"
has "loom-topo: drew $dir/map.svg"
[ "$(cat "$dir/bin/args")" = "-Tsvg -o $dir/map.svg" ] || fail "dot called with $(cat "$dir/bin/args")"
grep -qF '"switch:spine" -- "switch:rack1"' "$dir/bin/stdin" || fail "dot did not get the graph"
if command -v dot >/dev/null 2>&1; then
    expect 0 "$tool" -o "$dir/real.png" "$fix/uneven.json"
    head -c 4 "$dir/real.png" | grep -q PNG || fail "Graphviz wrote no PNG"
    echo "drawn with Graphviz: $dir/real.png"
else
    echo "Graphviz is not installed: drawing checked with the stand-in only"
fi

# ---------------------------------------------------------------- rankfile
# ring8: pairs (i, i+4) exchange 1000 bytes each way; by default they sit
# in different racks.  The proposal puts each pair on one node.
expect 0 "$tool" rankfile --traffic "$fix/ring8.traffic" --slots 2 -o "$dir/rf" "$fix/two_racks.conf"
has "node                    8               8000"
has "spine                8002                  6"
has "proposed placement moves traffic to faster links"
has "rankfile: $dir/rf (mpirun --rankfile $dir/rf ...)"
[ "$(cat "$dir/rf")" = "rank 0=node0 slot=0
rank 1=node1 slot=0
rank 2=node2 slot=0
rank 3=node3 slot=0
rank 4=node0 slot=1
rank 5=node1 slot=1
rank 6=node2 slot=1
rank 7=node3 slot=1" ] || fail "rankfile: $(cat "$dir/rf")"
# Nothing to gain: the current placement is kept and written.
grep -v '^#' "$fix/ring8.traffic" | awk '{ for (i = 1; i <= NF; i++) $i = 0; print }' >"$dir/zero"
expect 0 "$tool" rankfile --traffic "$dir/zero" --slots 2 -o "$dir/rf0" "$fix/two_racks.conf"
has "the current placement is as good as the proposal: kept"
head -n 2 "$dir/rf0" | tr '\n' ' ' | grep -qx 'rank 0=node0 slot=0 rank 1=node0 slot=1 ' ||
    fail "kept placement: $(cat "$dir/rf0")"
# Errors: too few slots, ranks that disagree, a bad matrix.
expect 1 "$tool" rankfile --traffic "$fix/ring8.traffic" "$fix/two_racks.conf"
has "loom-topo: 8 ranks do not fit: the nodes of $fix/two_racks.conf hold 0 slots; expected slots in the file or --slots N with N * 4 nodes >= 8"
expect 1 "$tool" rankfile --traffic "$fix/ring8.traffic" "$fix/uneven.json"
has "loom-topo: $fix/uneven.json places 7 ranks but $fix/ring8.traffic has 8; expected the same number"
printf '0 1\n1 zero\n' >"$dir/bad.traffic"
expect 1 "$tool" rankfile --traffic "$dir/bad.traffic" --slots 2 "$fix/two_racks.conf"
has "loom-topo: $dir/bad.traffic:2: column 2: expected a number of bytes, found 'zero'"
echo "loom-topo: all checks passed"
