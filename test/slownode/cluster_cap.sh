# Sourced by the slow-link scripts (test/slownode/cluster_*.sh), under
# test/cluster/cluster.sh: cap_node NODE RATE caps both directions of one
# node's link, the one thing that makes that node slow.

# cluster.sh names its namespaces <prefix>-node<i> and <prefix>-fab, the
# prefix per run; its launch agent is the one place that names it.
cap_node() {  # NODE RATE
    [ -n "${LOOM_CLUSTER_DIR:-}" ] || { echo "cap_node: run under test/cluster/cluster.sh" >&2; return 2; }
    pfx=$(sed -n 's/.*ip netns exec "\(lc[0-9]*\)-.*/\1/p' "$LOOM_CLUSTER_DIR/agent" | head -n 1)
    [ -n "$pfx" ] || { echo "cap_node: no namespace prefix in $LOOM_CLUSTER_DIR/agent" >&2; return 1; }
    cap_rate=$2
    for spec in "$pfx-node$1 eth0" "$pfx-fab pn$1"; do
        # shellcheck disable=SC2086  # namespace and device
        set -- $spec "$cap_rate"
        # The qdisc cluster.sh put there is a tbf at the root, or a tbf
        # under netem (handle 2:) with --delay.
        tc -n "$1" qdisc change dev "$2" root tbf rate "$3" burst 80kb latency 20ms 2>/dev/null ||
            tc -n "$1" qdisc change dev "$2" parent 1: handle 2: tbf rate "$3" burst 80kb latency 20ms ||
            { echo "cap_node: cannot cap $2 in $1" >&2; return 1; }
    done
}
