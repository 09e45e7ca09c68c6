#!/bin/sh
# loom-topo job under mpirun: two ranks on this host make one node holding
# ranks 0-1, flat without a file, in the rack a topology file names the
# host in with --topology; a bad file is reported by rank 0 and fails the
# run.  (Across nodes and racks: make check-cluster.)
set -u
top=${abs_top_builddir:-$PWD}
tool=$top/loom-topo
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-topo-job.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
run() { timeout 120 "${MPIRUN:-mpirun}" -np 2 --oversubscribe --bind-to none "$tool" job "$@" 2>&1; }
has() { printf '%s\n' "$out" | grep -qxF -- "$1" || fail "no line '$1' in:
$out"; }
host=$(hostname)

out=$(run) || fail "loom-topo job: $out"
echo "$out"
has "topology of this job: 0 switches, 1 racks, 1 nodes, 2 ranks"
has "  node $host  ranks 0-1"

printf 'SwitchName=r0 Nodes=%s,other\nSwitchName=top Switches=r0\n' "$host" >"$dir/t.conf"
out=$(run --topology "$dir/t.conf") || fail "loom-topo job --topology: $out"
echo "$out"
has "topology of this job, racks from $dir/t.conf: 2 switches, 1 racks, 2 nodes, 2 ranks"
has "  switch r0 (rack)"
has "    node $host  ranks 0-1"
has "    node other"

out=$(run --format json) || fail "loom-topo job --format json: $out"
printf '%s\n' "$out" >"$dir/job.json"
out=$("$tool" check "$dir/job.json") || fail "the job's JSON does not load: $out"
has "$dir/job.json: valid: 0 switches, 1 racks, 1 nodes, 2 ranks"

printf 'SwitchName=r0 Nodes=n[3-1]\n' >"$dir/bad.conf"
out=$(run --topology "$dir/bad.conf") && fail "a bad --topology file passed: $out"
has "loom-topo: $dir/bad.conf:1: range 3-1 in 'n[3-1]' goes down; expected LOW-HIGH with LOW <= HIGH"
echo "loom-topo job: all checks passed"
