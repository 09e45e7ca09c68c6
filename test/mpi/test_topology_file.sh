#!/bin/sh
# coll_loom_topology on one host, under mpirun: a good file (Slurm or JSON,
# whose link speeds reach the cost model), a file that does not name the
# host, a malformed file, a missing file, and ranks given different files.
# Every bad case gets one error naming the file and what was wrong, and
# the job still runs Loom's hierarchical allreduce correctly (flat racks):
# mpi_hier checks its results and that Loom ran it.
set -u
top=${abs_top_builddir:-$PWD}
exe=$top/test/mpi/mpi_hier
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-topofile.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs
host=$(hostname)

# run NAME MPIRUN-ARGS...: the output in $dir/NAME.out; fails on a failed job.
run() {
    name=$1; shift
    timeout 120 mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        --mca coll_loom_priority 100 --mca coll_loom_shm 0 --mca coll_loom_verbose info \
        --mca coll_loom_allreduce_handoff 0 "$@" >"$dir/$name.out" 2>&1 ||
        { cat "$dir/$name.out"; fail "$name: the job failed"; }
    echo "== $name"; grep 'topology' "$dir/$name.out"
}
expect() {
    grep -q -- "$2" "$dir/$1.out" || { cat "$dir/$1.out"; fail "$1: expected '$2'"; }
}
expect_not() {
    if grep -q -- "$2" "$dir/$1.out"; then cat "$dir/$1.out"; fail "$1: did not expect '$2'"; fi
}

printf 'SwitchName=rack0 Nodes=%s\nSwitchName=spine Switches=rack0\n' "$host" >"$dir/ok.conf"
run slurm -np 3 --mca coll_loom_topology "$dir/ok.conf" "$exe"
expect slurm "topology file $dir/ok.conf: 1 rack;"
expect_not slurm "error"

cat >"$dir/ok.json" <<JSON
{ "loom_topology": 1,
  "links": { "rack": { "bandwidth_gbps": 1, "latency_us": 20 }, "spine": { "bandwidth_gbps": 0.3 } },
  "switches": [ { "name": "r0", "nodes": "$host" } ] }
JSON
LOOM_TOPOLOGY=$dir/ok.json run json -np 2 -x LOOM_TOPOLOGY "$exe"
expect json "1 rack; cost model links: node 4000 MB/s, rack 125 MB/s, spine 37 MB/s"

printf 'SwitchName=rack0 Nodes=elsewhere\n' >"$dir/miss.conf"
run miss -np 2 --mca coll_loom_topology "$dir/miss.conf" "$exe"
expect miss "topology file $dir/miss.conf: no node named '$host' (the host of world rank 0)"
expect miss "Loom runs without racks"

printf 'SwitchName=rack0 Nodes=%s\nSwitchName=spine Switchez=rack0\n' "$host" >"$dir/bad.conf"
run bad -np 2 --mca coll_loom_topology "$dir/bad.conf" "$exe"
expect bad "$dir/bad.conf:2: unknown key 'Switchez'"

run missing -np 2 --mca coll_loom_topology "$dir/none.conf" "$exe"
expect missing "$dir/none.conf: cannot open"

# Rank 0 reads one file, ranks 1 and 2 another that says something else.
printf 'SwitchName=rackB Nodes=%s\n' "$host" >"$dir/other.conf"
run differ -np 1 -x LOOM_TOPOLOGY="$dir/ok.conf" "$exe" : \
    -np 2 -x LOOM_TOPOLOGY="$dir/other.conf" "$exe"
expect differ "world rank 1 read other content"
expect_not differ "1 rack;"
echo "PASS: topology files"
