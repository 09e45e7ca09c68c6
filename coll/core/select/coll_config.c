#include "coll/core/select/coll_config.h"
#include "coll/core/allgather/allgather.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/sparse/sparse.h"
#include "common/log.h"

#include <stddef.h>
#include <string.h>

const loom_config_field_t loom_coll_config_table[] = {
    {
        .name = "verbose", .type = LOOM_CONFIG_ENUM, .default_value = "warn",
        .enum_names = loom_log_level_names,
        .help = "How much Loom prints: error, warn, info (one line per choice), "
                "debug (every collective), trace (every step)",
        .offset = offsetof(loom_coll_config_t, verbose),
    },
    {
        .name = "allreduce_algorithm", .type = LOOM_CONFIG_ENUM,
        .default_value = "auto", .enum_names = loom_allreduce_alg_names,
        .help = "Allreduce algorithm: auto lets the cost model choose by size "
                "and rank count; any other value forces that algorithm (one "
                "that cannot reduce in rank order hands non-commutative ops "
                "to recursive doubling)",
        .offset = offsetof(loom_coll_config_t, allreduce_algorithm),
        .runtime = 1,
    },
    {
        .name = "allreduce_segment", .type = LOOM_CONFIG_SIZE, .default_value = "0",
        .min = 0, .max = 1L << 30,
        .help = "Pipeline segment size in bytes for ring and double binary "
                "tree; 0 lets the cost model choose",
        .offset = offsetof(loom_coll_config_t, allreduce_segment),
    },
    {
        .name = "allreduce_depth", .type = LOOM_CONFIG_INT, .default_value = "0",
        .min = 0, .max = 64,
        .help = "Pipeline depth (segments in flight per peer) for ring and "
                "double binary tree; 0 lets Loom choose (4)",
        .offset = offsetof(loom_coll_config_t, allreduce_depth),
    },
    {
        .name = "allreduce_handoff", .type = LOOM_CONFIG_SIZE, .default_value = "4096",
        .min = 0, .max = 1L << 30,
        .help = "Messages below this many bytes on a communicator that lives "
                "on one node go to the module Open MPI chose before Loom: its "
                "shared-memory fast path has lower latency than UCX's there; "
                "0 keeps every size in Loom",
        .offset = offsetof(loom_coll_config_t, allreduce_handoff),
    },
    {
        .name = "allgather_algorithm", .type = LOOM_CONFIG_ENUM,
        .default_value = "auto", .enum_names = loom_allgather_alg_names,
        .help = "Allgather and allgatherv algorithm: auto lets the cost model "
                "choose by size and rank count; bruck (ceil(log2 p) rounds, "
                "small messages), ring (large messages) or hierarchical "
                "(across racks, nodes, then inside nodes; auto takes it across "
                "nodes where the cost model's link classes favour it) forces "
                "that one",
        .offset = offsetof(loom_coll_config_t, allgather_algorithm),
        .runtime = 1,
    },
    {
        .name = "allgather_segment", .type = LOOM_CONFIG_SIZE, .default_value = "0",
        .min = 0, .max = 1L << 30,
        .help = "Pipeline segment size in bytes for the allgather ring (a "
                "block is forwarded segment by segment as it arrives); 0 "
                "sends each block whole",
        .offset = offsetof(loom_coll_config_t, allgather_segment),
    },
    {
        .name = "allgather_handoff", .type = LOOM_CONFIG_SIZE, .default_value = "2048",
        .min = 0, .max = 1L << 30,
        .help = "Allgather and allgatherv calls gathering fewer bytes than this "
                "in all (every rank's block together) on a communicator that "
                "lives on one node go to the module Open MPI chose before Loom, "
                "as allreduce_handoff does; 0 keeps every size in Loom",
        .offset = offsetof(loom_coll_config_t, allgather_handoff),
    },
    {
        .name = "allgather_pair_handoff", .type = LOOM_CONFIG_SIZE, .default_value = "6144",
        .min = 0, .max = 1L << 30,
        .help = "On a communicator of two ranks on one node, allgather and "
                "allgatherv calls gathering fewer bytes than this in all go to "
                "the module Open MPI chose before Loom (when this is larger than "
                "allgather_handoff): every algorithm is then one exchange, and "
                "that module's shared-memory fast boxes carry it with lower "
                "latency than UCX; 0 leaves two ranks to allgather_handoff",
        .offset = offsetof(loom_coll_config_t, allgather_pair_handoff),
    },
    {
        .name = "reduce_scatter_algorithm", .type = LOOM_CONFIG_ENUM,
        .default_value = "auto", .enum_names = loom_reduce_scatter_alg_names,
        .help = "Reduce_scatter and reduce_scatter_block algorithm: auto lets "
                "the cost model choose by size and rank count; "
                "recursive_halving (small messages, reduces in rank order) or "
                "ring (large messages) or hierarchical (inside nodes, then "
                "nodes, then racks; auto takes it across nodes where the link "
                "classes favour it) forces that one "
                "(ring and hierarchical hand non-commutative ops to "
                "recursive_halving); reproducible (the "
                "canonical order) is what coll_loom_reproducible picks",
        .offset = offsetof(loom_coll_config_t, reduce_scatter_algorithm),
        .runtime = 1,
    },
    {
        .name = "sparse_allreduce_algorithm", .type = LOOM_CONFIG_ENUM,
        .default_value = "auto", .enum_names = loom_sparse_alg_names,
        .help = "Algorithm of the sparse allreduce that gradient filtering "
                "runs (the loomfilter component): allgather (every rank's "
                "pairs to every rank, dense where the exchanged sizes say a "
                "ring allreduce costs less) is what auto takes; merge "
                "(recursive doubling of merged pairs, each stage dense past "
                "the break-even) may be named",
        .offset = offsetof(loom_coll_config_t, sparse_allreduce_algorithm),
        .runtime = 1,
    },
    {
        .name = "reduce_scatter_segment", .type = LOOM_CONFIG_SIZE, .default_value = "0",
        .min = 0, .max = 1L << 30,
        .help = "Pipeline segment size in bytes for the reduce_scatter ring "
                "(the transfer of one segment overlaps the reduction of the "
                "previous one); 0 lets the cost model choose",
        .offset = offsetof(loom_coll_config_t, reduce_scatter_segment),
    },
    {
        .name = "reduce_scatter_handoff", .type = LOOM_CONFIG_SIZE, .default_value = "8192",
        .min = 0, .max = 1L << 30,
        .help = "Reduce_scatter and reduce_scatter_block calls reducing fewer "
                "bytes than this in all (every block together) on a "
                "communicator that lives on one node go to the module Open MPI "
                "chose before Loom, as allreduce_handoff does; 0 keeps every "
                "size in Loom",
        .offset = offsetof(loom_coll_config_t, reduce_scatter_handoff),
    },
    {
        .name = "reproducible", .type = LOOM_CONFIG_BOOL, .default_value = "0",
        .help = "Make every reduction of floating (and any non-integer) data bitwise "
                "identical from run to run and on every rank, for a given rank "
                "count: each element is combined in one canonical order, a binary "
                "tree over rank ids, whatever arrives first.  Applies to allreduce, "
                "reduce and reduce_scatter(_block), blocking or not, whose results "
                "then agree bit for bit (algorithm reproducible of each; costs about "
                "what the ring costs)",
        .offset = offsetof(loom_coll_config_t, reproducible),
    },
    {
        .name = "shm", .type = LOOM_CONFIG_BOOL, .default_value = "1",
        .help = "On a communicator that lives on one node, run blocking allreduce, "
                "reduce, reduce_scatter(_block), bcast and allgather(v) calls of at "
                "least shm_min_bytes through a segment of shared memory Loom maps "
                "itself (one copy in, the reduction, one copy out) instead of "
                "messages (reductions: commutative ops, not reproducible); off, or "
                "when a rank cannot map the segment, they run as messages",
        .offset = offsetof(loom_coll_config_t, shm),
    },
    {
        .name = "shm_min_bytes", .type = LOOM_CONFIG_SIZE, .default_value = "2048",
        .min = 0, .max = 1L << 40,
        .help = "Smallest call in bytes (the vector of an allreduce, reduce or bcast, "
                "every block of an allgather or reduce_scatter together) that goes "
                "through the shared segment",
        .offset = offsetof(loom_coll_config_t, shm_min_bytes),
    },
    {
        .name = "shm_cma", .type = LOOM_CONFIG_BOOL, .default_value = "1",
        .help = "On a communicator of two ranks, an allgather(v) through the shared "
                "segment with blocks of 256 KiB or more reads the peer's block "
                "straight from its buffer with process_vm_readv (Linux's CMA: one "
                "copy instead of two), where every rank can; off, or where the "
                "kernel, a container's filter or ptrace rules refuse it, the blocks "
                "go through the segment's slots",
        .offset = offsetof(loom_coll_config_t, shm_cma),
    },
    {
        .name = "shm_slot", .type = LOOM_CONFIG_SIZE, .default_value = "524288",
        .min = 4096, .max = 1L << 30,
        .help = "Bytes per rank of one pipeline segment in the shared segment, a "
                "multiple of 64: small enough that a segment stays in the last-level "
                "cache between the ranks' steps",
        .offset = offsetof(loom_coll_config_t, shm_slot),
    },
    {
        .name = "shm_depth", .type = LOOM_CONFIG_INT, .default_value = "4",
        .min = 1, .max = 64,
        .help = "Pipeline segments in flight in the shared segment (how far one rank "
                "may run ahead of the slowest); the segment takes ranks x depth x "
                "shm_slot bytes",
        .offset = offsetof(loom_coll_config_t, shm_depth),
    },
    {
        .name = "hang_timeout", .type = LOOM_CONFIG_INT, .default_value = "60",
        .min = 0, .max = 86400,
        .help = "Seconds a collective may go without completing a step before "
                "Loom prints what it waits for (communicator, sequence number, "
                "collective, algorithm, pending steps and their peers), and again "
                "after each further period; 0 never reports",
        .offset = offsetof(loom_coll_config_t, hang_timeout),
    },
    {
        .name = "hang_abort", .type = LOOM_CONFIG_INT, .default_value = "0",
        .min = 0, .max = 1000000,
        .help = "After this many hang reports in a row of one collective call "
                "(each one hang_timeout without progress), abort the job with "
                "the last report, so that a batch job whose ranks stopped "
                "calling collectives in the same order ends instead of waiting "
                "for ever; 0 never aborts",
        .offset = offsetof(loom_coll_config_t, hang_abort),
    },
    {
        .name = "bcast_algorithm", .type = LOOM_CONFIG_ENUM,
        .default_value = "auto", .enum_names = loom_bcast_alg_names,
        .help = "Bcast algorithm: auto lets the cost model choose by size and "
                "rank count; binomial (fewest rounds, small messages), chain "
                "(pipelined chain, medium and large messages on few ranks) or "
                "scatter_allgather (binomial scatter then ring allgather, large "
                "messages) or hierarchical (pipelined chains across racks, "
                "nodes and ranks; auto takes it across nodes where the cost "
                "model's link classes favour it) forces that algorithm",
        .offset = offsetof(loom_coll_config_t, bcast_algorithm),
        .runtime = 1,
    },
    {
        .name = "bcast_segment", .type = LOOM_CONFIG_SIZE, .default_value = "0",
        .min = 0, .max = 1L << 30,
        .help = "Pipeline segment size in bytes for the chain bcast; 0 lets "
                "the cost model choose",
        .offset = offsetof(loom_coll_config_t, bcast_segment),
    },
    {
        .name = "bcast_handoff", .type = LOOM_CONFIG_SIZE, .default_value = "512",
        .min = 0, .max = 1L << 30,
        .help = "Bcasts of fewer bytes than this on a communicator that lives on "
                "one node go to the module Open MPI chose before Loom, as "
                "allreduce_handoff does; 0 keeps every size in Loom",
        .offset = offsetof(loom_coll_config_t, bcast_handoff),
    },
    {
        .name = "bcast_pair_handoff", .type = LOOM_CONFIG_SIZE, .default_value = "2048",
        .min = 0, .max = 1L << 30,
        .help = "On a communicator of two ranks on one node, bcasts of fewer "
                "bytes than this go to the module Open MPI chose before Loom "
                "(when this is larger than bcast_handoff): a bcast is then one "
                "message, which that module's shared-memory fast boxes carry "
                "with lower latency than UCX; from this size on the node "
                "segment takes it; 0 leaves two ranks to bcast_handoff",
        .offset = offsetof(loom_coll_config_t, bcast_pair_handoff),
    },
    {
        .name = "reduce_algorithm", .type = LOOM_CONFIG_ENUM,
        .default_value = "auto", .enum_names = loom_reduce_alg_names,
        .help = "Reduce algorithm: auto lets the cost model choose by size and "
                "rank count; binomial (fewest rounds, small messages), "
                "reduce_scatter_gather (recursive halving then binomial gather, "
                "large messages on many ranks), chain (pipelined in segments, "
                "large messages), reproducible (the canonical order "
                "coll_loom_reproducible picks) or hierarchical (pipelined "
                "chains across ranks, nodes and racks; commutative ops, taken "
                "by auto across nodes where the link classes favour it) forces "
                "that algorithm.  All but "
                "hierarchical reduce non-commutative ops in rank order; it "
                "hands them to binomial",
        .offset = offsetof(loom_coll_config_t, reduce_algorithm),
        .runtime = 1,
    },
    {
        .name = "reduce_segment", .type = LOOM_CONFIG_SIZE, .default_value = "0",
        .min = 0, .max = 1L << 30,
        .help = "Pipeline segment size in bytes for the chain reduce; 0 lets "
                "the cost model choose (16 KiB to 1 MiB)",
        .offset = offsetof(loom_coll_config_t, reduce_segment),
    },
    {
        .name = "reduce_handoff", .type = LOOM_CONFIG_SIZE, .default_value = "4096",
        .min = 0, .max = 1L << 30,
        .help = "Reduces of fewer bytes than this on a communicator that lives on "
                "one node go to the module Open MPI chose before Loom, as "
                "allreduce_handoff does; 0 keeps every size in Loom",
        .offset = offsetof(loom_coll_config_t, reduce_handoff),
    },
    {
        .name = "cost_alpha_ns", .type = LOOM_CONFIG_INT, .default_value = "3000",
        .min = 0, .max = 100000000,
        .help = "Cost model: time per message in nanoseconds (alpha)",
        .offset = offsetof(loom_coll_config_t, cost_alpha_ns),
    },
    {
        .name = "cost_bandwidth_mbs", .type = LOOM_CONFIG_INT, .default_value = "4000",
        .min = 1, .max = 100000000,
        .help = "Cost model: link bandwidth per rank in MB/s (1/beta)",
        .offset = offsetof(loom_coll_config_t, cost_bandwidth_mbs),
    },
    {
        .name = "cost_reduce_mbs", .type = LOOM_CONFIG_INT, .default_value = "6000",
        .min = 1, .max = 100000000,
        .help = "Cost model: reduction rate in MB/s of input (1/gamma)",
        .offset = offsetof(loom_coll_config_t, cost_reduce_mbs),
    },
    {
        .name = "cost_rack_alpha_ns", .type = LOOM_CONFIG_INT, .default_value = "5000",
        .min = 0, .max = 100000000,
        .help = "Cost model: time per message between two nodes of one rack, in "
                "nanoseconds; a topology file's rack latency replaces it",
        .offset = offsetof(loom_coll_config_t, cost_rack_alpha_ns),
    },
    {
        .name = "cost_rack_bandwidth_mbs", .type = LOOM_CONFIG_INT, .default_value = "12500",
        .min = 1, .max = 100000000,
        .help = "Cost model: each node's network link in MB/s per direction (default "
                "100 Gbit/s), shared by the node's ranks; a topology file's rack "
                "bandwidth replaces it",
        .offset = offsetof(loom_coll_config_t, cost_rack_bandwidth_mbs),
    },
    {
        .name = "cost_spine_alpha_ns", .type = LOOM_CONFIG_INT, .default_value = "7000",
        .min = 0, .max = 100000000,
        .help = "Cost model: time per message between racks, in nanoseconds; a "
                "topology file's spine latency replaces it",
        .offset = offsetof(loom_coll_config_t, cost_spine_alpha_ns),
    },
    {
        .name = "cost_spine_bandwidth_mbs", .type = LOOM_CONFIG_INT, .default_value = "0",
        .min = 0, .max = 100000000,
        .help = "Cost model: each rack's uplink to the spine in MB/s per direction, "
                "shared by the rack's nodes; 0: as fast as the rack's node links "
                "together (no oversubscription); a topology file's spine bandwidth "
                "replaces it",
        .offset = offsetof(loom_coll_config_t, cost_spine_bandwidth_mbs),
    },
    LOOM_CONFIG_LAST
};

loom_status_t loom_coll_config_init(loom_coll_config_t *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    return loom_config_set_defaults(loom_coll_config_table, cfg);
}
