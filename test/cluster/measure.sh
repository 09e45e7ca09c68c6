#!/bin/sh
# Link bandwidths of the emulated cluster, measured with MPI ping-pong
# from rank 0 (node0) to a rank on the same node, in the same rack and in
# the other rack: 4 nodes x 2 ranks in 2 racks, node links and rack
# uplinks as cluster.sh's defaults (or as given: options go to
# cluster.sh).  The cross-rack figure is the uplink capacity that the
# allreduce lower bound of issue 8 divides by.  Run from the top build
# directory (make measure-cluster).
set -u
top=${abs_top_builddir:-$PWD}
here=$(cd "$(dirname "$0")" && pwd)
exe=$top/test/cluster/pingpong
[ -x "$exe" ] || { echo "measure.sh: $exe is not built (make test/cluster/pingpong)" >&2; exit 2; }
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Ranks by slot: 0,1 on node0 and 2,3 on node1 (rack0), 4,5 on node2.
# Open MPI's TCP path with 8 MiB socket buffers: with the default ones a
# 4 MiB message leaves the 1 Gbit/s link idle for part of each round trip
# (same-rack at most about 80 MB/s instead of up to about 95 MB/s on this
# project's loaded 2-core host); the 300 Mbit/s uplink is not affected.
exec "$here/cluster.sh" --nodes 4 --racks 2 --slots 2 "$@" -- sh -c '
    timeout 300 "$LOOM_CLUSTER_MPIRUN" -np 8 --oversubscribe --mca mpi_yield_when_idle 1 \
        --mca pml ob1 --mca btl self,vader,tcp \
        --mca btl_tcp_sndbuf 8388608 --mca btl_tcp_rcvbuf 8388608 \
        "$0" -s 4194304 -n 10 1:same-node 2:same-rack 4:cross-rack' "$exe"
