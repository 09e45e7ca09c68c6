#!/bin/sh
# With Loom's component loaded and chosen, the JSON names the algorithm
# Loom ran at every allreduce site (read through MPI_T); without the
# component, no site names one and the profile is otherwise the same.
. "$(dirname "$0")/common.sh"

OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs run loom 3 "$lib" \
    --mca coll_loom_priority 100 --mca coll_loom_allreduce_handoff 0
check loom 3 --alg yes
run noloom 3 "$lib"
check noloom 3 --alg no
same noloom loom
echo "== Loom's algorithm: passed"
# Loom's ring forced (and its node segment off): the traffic matrix follows
# the ring's pattern at both allreduce sizes.
OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs run ring 4 "$lib" \
    --mca coll_loom_priority 100 --mca coll_loom_allreduce_handoff 0 \
    --mca coll_loom_allreduce_algorithm ring --mca coll_loom_shm 0
check ring 4 --alg yes
grep -q '"algorithm": "ring"' "$dir/ring.json" || fail "ring: Loom's forced ring is not named"
echo "== Loom's forced ring: passed"
