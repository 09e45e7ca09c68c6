#!/bin/bash
# The README's main job until the training example lands: the same
# allreduce program twice on 4 ranks, once with Loom selected and once with
# Open MPI's default collectives, then the two columns side by side.
#
# usage: examples/compare.sh BUILD_DIR [MAX_BYTES]
set -eu
build=${1:?usage: compare.sh BUILD_DIR [MAX_BYTES]}
max=${2:-67108864}
np=${LOOM_DEMO_NP:-4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Root may run mpirun only when it says so; more ranks than cores need
# --oversubscribe, and yielding when idle keeps waiting ranks off the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_path="SYS_DEFAULT:$build/.libs"
run() {
    mpirun -np "$np" --oversubscribe --mca mpi_yield_when_idle 1 "$@"
}

echo "Allreduce on $np ranks, 8 B to $max B: Loom, then Open MPI's default (tuned)"
run --mca coll_loom_priority 100 "$build/examples/allreduce_compare" loom "$max" >"$tmp/loom"
run --mca coll '^loom' "$build/examples/allreduce_compare" default "$max" >"$tmp/default"

grep -q 'all results correct' "$tmp/loom" || { cat "$tmp/loom"; echo "Loom gave wrong results" >&2; exit 1; }
grep -q 'all results correct' "$tmp/default" || { cat "$tmp/default"; exit 1; }
printf '%12s %14s %14s %10s\n' bytes loom_us default_us loom/default
join <(grep -v '^#' "$tmp/loom" | awk '{print $1, $2}' | sort -k1,1) \
     <(grep -v '^#' "$tmp/default" | awk '{print $1, $2}' | sort -k1,1) 2>/dev/null |
    sort -n | awk '{ printf "%12d %14.1f %14.1f %10.2f\n", $1, $2, $3, $2 / $3 }'
echo "Both runs checked every result. Ratios below 1 mean Loom was faster."
