#!/bin/sh
# An emulated cluster on one machine (root): N nodes in M racks, each node
# a network namespace, wired through a fabric namespace (a bridge per rack,
# a spine bridge, capped links), then COMMAND runs with an mpirun that
# launches across the nodes.  Everything is torn down on exit, whatever
# happens.  Why it is built this way: docs/topology.md, "The emulated
# cluster".
#
#   test/cluster/cluster.sh [options] -- COMMAND [ARGS...]
#
#   --nodes N          nodes (default 4)
#   --racks M          racks; node i is in rack i*M/N (default 2)
#   --slots S          ranks per node (default 2)
#   --layout A,B,...   ranks per node, one number per node (overrides
#                      --nodes and --slots), e.g. 2,2,2,1 for 7 ranks
#   --node-rate R      each node's link, each direction (default 1gbit)
#   --uplink-rate R    each rack's uplink to the spine (default 300mbit)
#   --delay D          added one-way delay per link (e.g. 50us) where the
#                      kernel has netem; without netem, a note and none
#   --burst B          each cap's token bucket (default 80kb): more than
#                      the 64 KiB of a segmentation-offload packet and its
#                      headers, or tbf cuts every such packet into 45
#                      frames that the bridges and veths behind it then
#                      carry one by one; not much more, since a full
#                      bucket lets that much through at once
#                      (docs/topology.md)
#   --gso-max BYTES    the nodes' largest segmentation-offload packet
#                      (default the kernel's, 64 KiB): with, say, 16384
#                      the bucket can shrink to 20kb; a smaller burst for
#                      more packets, that is more CPU (docs/loom-sim.md,
#                      "Validation")
#   --cwnd SEGMENTS    clamp every TCP connection's congestion window at
#                      SEGMENTS (e.g. 64): flows that share a link then
#                      share its queue, and so its rate, evenly at once
#                      instead of first come, first served
#                      (docs/loom-sim.md, "Validation")
#
# Every node's ranks run on this machine's cores.  When the cluster's slots
# outnumber them, the mpirun below makes waiting ranks yield
# (OMPI_MCA_mpi_yield_when_idle=1, unless the caller's environment or
# command line sets it): Open MPI does that itself on a node it knows to
# be oversubscribed, and the hostfile's slots hide it here.  Without it,
# ranks that spin in a collective hold the cores from the ranks they wait
# for, and every exchange waits out scheduler time slices (tens of ms;
# docs/topology.md, "Where the mid-size floor came from").
#
# COMMAND sees:
#   LOOM_CLUSTER_MPIRUN    an mpirun for the cluster (hostfile, launch
#                          agent, interfaces, no binding, yielding when
#                          oversubscribed): use it as mpirun
#   LOOM_CLUSTER_NP        the number of slots
#   LOOM_CLUSTER_TOPOLOGY  the cluster's topology.conf (loom-topo reads it)
#   LOOM_CLUSTER_DIR       the run's scratch directory
#
# Exit status: COMMAND's; 77 when the kernel lacks a feature and
# LOOM_ALLOW_SKIP_CLUSTER=1 (otherwise 1); 2 for bad usage.
set -u

nodes=4 racks=2 slots=2 layout= node_rate=1gbit uplink_rate=300mbit delay= burst=80kb gso_max= cwnd=
usage() {
    sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
        --nodes) nodes=$2; shift 2 ;;
        --racks) racks=$2; shift 2 ;;
        --slots) slots=$2; shift 2 ;;
        --layout) layout=$2; shift 2 ;;
        --node-rate) node_rate=$2; shift 2 ;;
        --uplink-rate) uplink_rate=$2; shift 2 ;;
        --delay) delay=$2; shift 2 ;;
        --burst) burst=$2; shift 2 ;;
        --gso-max) gso_max=$2; shift 2 ;;
        --cwnd) cwnd=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "cluster.sh: unknown option '$1'" >&2; usage ;;
    esac
done
[ $# -gt 0 ] || { echo "cluster.sh: expected -- COMMAND" >&2; usage; }
if [ -n "$layout" ]; then
    case $layout in
        *[!0-9,]*|,*|*,|*,,*|'') echo "cluster.sh: --layout '$layout': expected ranks per node such as 2,2,2,1" >&2; exit 2 ;;
    esac
    nodes=$(echo "$layout" | tr ',' '\n' | wc -l)
fi
for v in "$nodes" "$racks" "$slots"; do
    case $v in ''|*[!0-9]*|0) echo "cluster.sh: '$v': expected a positive integer for --nodes, --racks, --slots" >&2; exit 2 ;; esac
done
case $cwnd in
    '') ;;
    *[!0-9]*|0*) echo "cluster.sh: --cwnd '$cwnd': expected a positive number of TCP segments such as 64" >&2; exit 2 ;;
esac
[ "$racks" -le "$nodes" ] || { echo "cluster.sh: $racks racks for $nodes nodes; expected at most one rack per node" >&2; exit 2; }
[ "$nodes" -le 200 ] || { echo "cluster.sh: $nodes nodes; expected at most 200" >&2; exit 2; }

# ------------------------------------------------ what the kernel must have
missing() {
    if [ "${LOOM_ALLOW_SKIP_CLUSTER:-0}" = 1 ]; then
        echo "cluster.sh: SKIPPED (LOOM_ALLOW_SKIP_CLUSTER=1): $*" >&2
        exit 77
    fi
    echo "cluster.sh: FAILED: $* (set LOOM_ALLOW_SKIP_CLUSTER=1 to skip instead)" >&2
    exit 1
}
[ "$(id -u)" = 0 ] || missing "needs root for network namespaces"
for tool in ip tc unshare mount sysctl; do
    command -v $tool >/dev/null 2>&1 || missing "the '$tool' command is not installed"
done

# Names are global: prefix them with this run's process id.
pfx=lc$$
ns_fab=$pfx-fab ns_head=$pfx-head
subnet=10.213.0
if ip netns list | grep -q "^$pfx-"; then
    missing "namespaces named $pfx-* already exist (a crashed run?): ip netns list"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/loom-cluster.XXXXXX") || exit 1

child=
teardown() {
    t0=$(date +%s.%N)
    # COMMAND first (on a signal it is still running), then the nodes.
    [ -z "$child" ] || kill -TERM "$child" 2>/dev/null
    for ns in $(ip netns list | awk -v p="^$pfx-" '$1 ~ p { print $1 }'); do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            kill -9 "$pid" 2>/dev/null
        done
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$dir"
    t1=$(date +%s.%N)
    echo "cluster.sh: torn down in $(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }') s" >&2
}
trap 'teardown' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

t_start=$(date +%s.%N)
ip netns add "$ns_fab" 2>/dev/null || missing "cannot create a network namespace"
ip -n "$ns_fab" link add probe0 type veth peer name probe1 2>/dev/null ||
    missing "no veth support"
ip -n "$ns_fab" link del probe0
ip -n "$ns_fab" link add probebr type bridge 2>/dev/null || missing "no bridge support"
ip -n "$ns_fab" link del probebr
ip -n "$ns_fab" link set lo up
tc -n "$ns_fab" qdisc add dev lo root tbf rate 1gbit burst 64kb latency 20ms 2>/dev/null ||
    missing "no tbf queueing discipline (sch_tbf) to cap link rates"
tc -n "$ns_fab" qdisc del dev lo root
netem=no
if tc -n "$ns_fab" qdisc add dev lo root netem delay 1ms 2>/dev/null; then
    netem=yes
    tc -n "$ns_fab" qdisc del dev lo root
fi
if [ -n "$delay" ] && [ $netem = no ]; then
    echo "cluster.sh: the kernel has no netem: links get no added delay (--delay $delay ignored), only tbf rate caps" >&2
    delay=
fi

# cap DEV NS RATE: tbf at RATE on DEV's egress, under netem's delay if any.
cap() {
    if [ -n "$delay" ]; then
        tc -n "$2" qdisc add dev "$1" root handle 1: netem delay "$delay" &&
        tc -n "$2" qdisc add dev "$1" parent 1: handle 2: tbf rate "$3" burst "$burst" latency 20ms
    else
        tc -n "$2" qdisc add dev "$1" root tbf rate "$3" burst "$burst" latency 20ms
    fi
}

# --------------------------------------------------------------- the fabric
ip -n "$ns_fab" link add spine type bridge && ip -n "$ns_fab" link set spine up || exit 1
r=0
while [ $r -lt "$racks" ]; do
    ip -n "$ns_fab" link add rack$r type bridge &&
    ip -n "$ns_fab" link set rack$r up &&
    ip -n "$ns_fab" link add up$r type veth peer name down$r &&
    ip -n "$ns_fab" link set up$r master rack$r up &&
    ip -n "$ns_fab" link set down$r master spine up &&
    cap up$r "$ns_fab" "$uplink_rate" && cap down$r "$ns_fab" "$uplink_rate" || exit 1
    r=$((r + 1))
done

# ---------------------------------------------------------------- the nodes
# attach NS IP BRIDGE: NS's eth0 at IP, its peer on BRIDGE in the fabric.
attach() {
    ip netns add "$1" &&
    ip -n "$ns_fab" link add "p$4" type veth peer name eth0 netns "$1" &&
    ip -n "$ns_fab" link set "p$4" master "$3" up &&
    ip -n "$1" addr add "$2/24" dev eth0 &&
    { [ -z "$gso_max" ] || { ip -n "$1" link set eth0 gso_max_size "$gso_max" &&
        ip -n "$1" -d link show eth0 | grep -q "gso_max_size $gso_max "; } ||
        { echo "cluster.sh: --gso-max $gso_max: expected a packet size in bytes the kernel accepts (such as 16384)" >&2; false; }; } &&
    ip -n "$1" link set eth0 up &&
    { [ -z "$cwnd" ] || { ip -n "$1" route replace "$subnet.0/24" dev eth0 src "$2" cwnd lock "$cwnd" &&
        ip -n "$1" route show "$subnet.0/24" | grep -q "cwnd lock $cwnd"; } ||
        { echo "cluster.sh: --cwnd $cwnd: the kernel did not take the route's window clamp" >&2; false; }; } &&
    ip -n "$1" link set lo up &&
    ip netns exec "$1" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
}
attach "$ns_head" "$subnet.2" spine head || exit 1
printf '127.0.0.1 localhost\n%s.2 head\n' "$subnet" >"$dir/hosts"
: >"$dir/hostfile"
: >"$dir/topology.conf"
np=0 i=0
while [ $i -lt "$nodes" ]; do
    rack=$((i * racks / nodes))
    n_slots=$slots
    [ -z "$layout" ] || n_slots=$(echo "$layout" | cut -d, -f$((i + 1)))
    [ "$n_slots" -gt 0 ] || { echo "cluster.sh: node$i has 0 ranks in --layout '$layout'" >&2; exit 2; }
    attach "$pfx-node$i" "$subnet.$((10 + i))" rack$rack n$i &&
    cap eth0 "$pfx-node$i" "$node_rate" && cap "pn$i" "$ns_fab" "$node_rate" || exit 1
    echo "$subnet.$((10 + i)) node$i" >>"$dir/hosts"
    echo "node$i slots=$n_slots" >>"$dir/hostfile"
    np=$((np + n_slots))
    i=$((i + 1))
done
r=0
while [ $r -lt "$racks" ]; do
    members=$(i=0; while [ $i -lt "$nodes" ]; do
        [ $((i * racks / nodes)) -ne $r ] || printf 'node%d,' $i; i=$((i + 1)); done)
    echo "SwitchName=rack$r Nodes=${members%,}" >>"$dir/topology.conf"
    r=$((r + 1))
done
echo "SwitchName=spine Switches=rack[0-$((racks - 1))]" >>"$dir/topology.conf"
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
yield=
[ "$np" -le "$cores" ] || yield="# $np slots on $cores cores: waiting ranks yield, unless the caller says otherwise.
[ -n \"\${OMPI_MCA_mpi_yield_when_idle+set}\" ] || export OMPI_MCA_mpi_yield_when_idle=1"
printf 'hosts: files\n' >"$dir/nsswitch.conf"
mkdir "$dir/tmp"

# The launch agent mpirun calls as "agent HOST COMMAND...": the command
# runs in HOST's namespace with its own hostname, System V IPC and
# /dev/shm (shared memory between nodes would bypass the links), and the
# cluster's hosts file.
cat >"$dir/agent" <<AGENT
#!/bin/sh
host=\$1; shift
exec ip netns exec "$pfx-\$host" unshare --uts --ipc --mount sh -c "
mount -t tmpfs -o size=1g tmpfs /dev/shm &&
mount --bind '$dir/hosts' /etc/hosts &&
mount --bind '$dir/nsswitch.conf' /etc/nsswitch.conf &&
hostname \$host && \$*"
AGENT
# mpirun itself runs in the head namespace, resolving names the same way.
cat >"$dir/mpirun" <<MPIRUN
#!/bin/sh
$yield
exec ip netns exec "$ns_head" unshare --uts --mount sh -c '
mount --bind "$dir/hosts" /etc/hosts &&
mount --bind "$dir/nsswitch.conf" /etc/nsswitch.conf &&
hostname head && exec "\$0" "\$@"' "\${MPIRUN_REAL:-mpirun}" \\
    --hostfile "$dir/hostfile" \\
    --mca plm_rsh_agent "$dir/agent" --mca plm_rsh_no_tree_spawn 1 \\
    --mca oob_tcp_if_include $subnet.0/24 --mca btl_tcp_if_include $subnet.0/24 \\
    --mca hwloc_base_binding_policy none --mca orte_tmpdir_base "$dir/tmp" \\
    "\$@"
MPIRUN
chmod +x "$dir/agent" "$dir/mpirun"
t_up=$(date +%s.%N)

racks_text=$(tr '\n' ';' <"$dir/topology.conf")
echo "cluster.sh: $nodes nodes, $np slots, $racks racks ($racks_text) node links $node_rate, rack uplinks $uplink_rate, netem $netem${delay:+, delay $delay}, burst $burst${cwnd:+, cwnd $cwnd}${yield:+, $np slots on $cores cores so ranks yield when idle}; set up in $(echo "$t_up $t_start" | awk '{ printf "%.2f", $1 - $2 }') s" >&2

LOOM_CLUSTER_MPIRUN=$dir/mpirun LOOM_CLUSTER_NP=$np LOOM_CLUSTER_TOPOLOGY=$dir/topology.conf \
LOOM_CLUSTER_DIR=$dir
export LOOM_CLUSTER_MPIRUN LOOM_CLUSTER_NP LOOM_CLUSTER_TOPOLOGY LOOM_CLUSTER_DIR
# In the background so that a signal reaches the traps at once, and the
# tear-down can stop COMMAND too.
"$@" </dev/null &
child=$!
wait "$child"
status=$?
child=
exit $status
