#!/bin/sh
# With Loom's component loaded and running the allreduce as its own
# schedules (no hand-off to Open MPI's module, no node segment: both would
# leave the rank order nothing to place), a flagged rank is written last in
# coll_loom_rank_order on every rank, Loom accepts it on every rank
# (coll_loom_rank_order_accepted, read by the library through MPI_T), the
# next window judges it (kept, or the identity written back and accepted
# too), and every step's sum stays right (step_prog checks each one).
. "$(dirname "$0")/common.sh"

export OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$top/.libs
judged order 8 "$lib" 40 20 "--flag $slow --within 20 --pct 30 --order" \
    -x LOOM_SLOWNODE_INJECT="$slow:1.3" --mca coll_loom_priority 100 \
    --mca coll_loom_allreduce_handoff 0 --mca coll_loom_shm 0
if grep -q "coll_loom_rank_order" "$dir/order.err"; then
    cat "$dir/order.err" >&2
    fail "Loom refused a rank order"
fi

# LOOM_SLOWNODE_REORDER=0: detected, and nothing written.
judged noorder 8 "$lib" 30 20 "--flag $slow --within 20 --pct 30" \
    -x LOOM_SLOWNODE_INJECT="$slow:1.3" -x LOOM_SLOWNODE_REORDER=0 \
    --mca coll_loom_priority 100 --mca coll_loom_allreduce_handoff 0 --mca coll_loom_shm 0
grep -q '"rank_order_accepted": 0' "$dir/noorder.0.json" &&
    ! grep -q '"reorder"' "$dir/noorder.0.json" || fail "LOOM_SLOWNODE_REORDER=0 wrote an order"
echo "== rank $slow placed last through MPI_T, accepted by Loom on every rank"
