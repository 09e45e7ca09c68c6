#!/bin/sh
# Part of make check-cluster: the emulated cluster's options do what
# test/cluster/cluster.sh says, or refuse with a message naming them.
#   1. bad values for --cwnd, --gso-max and --nodes: exit 2 (usage) or 1
#      (the kernel refused), the option named on stderr;
#   2. a 2-node rig with --cwnd 64 --burst 20kb --gso-max 16384 (the
#      validation rig, docs/loom-sim.md): every node's route to the
#      others clamps TCP's window at 64 segments, its eth0 builds
#      offload packets of at most 16 KiB, and its link's token bucket
#      holds 20 KiB;
#   3. without those options, no clamp and the default 80 KiB bucket;
#   4. ranks yield when idle exactly when the cluster's slots outnumber
#      the machine's cores, and the caller's own setting wins.
# Needs what cluster.sh needs; exits 77 when that is missing and
# LOOM_ALLOW_SKIP_CLUSTER=1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/cluster.sh
fail=0

# refuses WANT_RC 'WORDS' OPTIONS...: cluster.sh exits WANT_RC and says WORDS.
refuses() {
    want_rc=$1 words=$2; shift 2
    err=$($cluster "$@" -- true 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 77 ]; then
        echo "check-rig: SKIPPED: $err"
        exit 77
    fi
    if [ $rc -ne "$want_rc" ] || ! echo "$err" | grep -q -- "$words"; then
        echo "FAIL: cluster.sh $*: exit $rc, expected $want_rc and a message with '$words'; it said:" >&2
        echo "$err" >&2
        fail=1
    else
        echo "PASS: cluster.sh $* refused: $(echo "$err" | grep -- "$words" | head -n 1)"
    fi
}
refuses 2 "--cwnd 'x': expected a positive number" --cwnd x
refuses 2 "--cwnd '0': expected a positive number" --cwnd 0
refuses 2 "'0': expected a positive integer for --nodes" --nodes 0
refuses 1 "--gso-max abc: expected a packet size in bytes" --nodes 2 --racks 1 --gso-max abc

# What each node of this cluster looks like from inside (through the
# cluster's own launch agent, so that namespaces another run left behind
# are not counted): its route, its eth0, its cap.
probe='for n in $(cut -d" " -f1 "$LOOM_CLUSTER_DIR/hostfile"); do
    on="$LOOM_CLUSTER_DIR/agent $n"
    echo "$n route: $($on ip route show 10.213.0.0/24)"
    echo "$n gso: $($on ip -d link show eth0 | grep -o "gso_max_size [0-9]*")"
    echo "$n tbf: $($on tc qdisc show dev eth0 | grep -o "burst [0-9a-zA-Z]*")"
done'
# expect OUTPUT PATTERN COUNT WHAT: COUNT lines of OUTPUT match PATTERN.
expect() {
    got=$(echo "$1" | grep -E -c -- "$2")
    if [ "$got" -ne "$3" ]; then
        echo "FAIL: $4: $got lines match '$2', expected $3; the nodes:" >&2
        echo "$1" >&2
        fail=1
    else
        echo "PASS: $4"
    fi
}
out=$($cluster --nodes 2 --racks 1 --cwnd 64 --burst 20kb --gso-max 16384 -- sh -c "$probe" 2>/dev/null)
rc=$?
[ $rc -ne 77 ] || { echo "check-rig: SKIPPED (LOOM_ALLOW_SKIP_CLUSTER=1)"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: the validation rig did not come up (exit $rc)" >&2; exit 1; }
expect "$out" "route: .*cwnd lock 64( |$)" 2 "--cwnd 64: both nodes' routes clamp the window at 64 segments"
expect "$out" "gso: gso_max_size 16384$" 2 "--gso-max 16384: both nodes' offload packets are at most 16 KiB"
# tc prints the bucket as the kernel keeps it, in its clock's ticks: 20Kb,
# or 20375b for 20kb when the ticks do not divide it.
expect "$out" "tbf: burst (20Kb|(19|20)[0-9]{3}b)$" 2 "--burst 20kb: both nodes' links have a 20 KiB bucket"
out=$($cluster --nodes 2 --racks 1 -- sh -c "$probe" 2>/dev/null)
expect "$out" "route: .*cwnd" 0 "no --cwnd: no clamp"
expect "$out" "route: 10.213.0.0/24 dev eth0" 2 "no --cwnd: both nodes still route the subnet"
expect "$out" "tbf: burst (80Kb|8[01][0-9]{3}b)$" 2 "no --burst: both nodes' links have the default 80 KiB bucket"

# 4. What each rank's environment says about yielding (mpirun forwards
# OMPI_MCA_* to the ranks; the command line overrides the environment).
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
yields='"$LOOM_CLUSTER_MPIRUN" -np 2 env | grep "^OMPI_MCA_mpi_yield_when_idle=" | sed "s/^/rank: /"
echo "caller 0: $(OMPI_MCA_mpi_yield_when_idle=0 "$LOOM_CLUSTER_MPIRUN" -np 2 env | grep -c "^OMPI_MCA_mpi_yield_when_idle=0$")"
echo "command line 0: $("$LOOM_CLUSTER_MPIRUN" -np 2 --mca mpi_yield_when_idle 0 env | grep -c "^OMPI_MCA_mpi_yield_when_idle=0$")"'
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset OMPI_MCA_mpi_yield_when_idle
slots=$((cores + 1))
out=$($cluster --nodes 1 --racks 1 --slots "$slots" -- sh -c "$yields" 2>/dev/null)
expect "$out" "^rank: OMPI_MCA_mpi_yield_when_idle=1$" 2 "$slots slots on $cores cores: both ranks yield when idle"
expect "$out" "^caller 0: 2$" 1 "oversubscribed, OMPI_MCA_mpi_yield_when_idle=0 from the caller: both ranks keep it"
expect "$out" "^command line 0: 2$" 1 "oversubscribed, --mca mpi_yield_when_idle 0: both ranks keep it"
if [ "$cores" -ge 2 ]; then  # two ranks must fit
    out=$($cluster --nodes 1 --racks 1 --slots "$cores" -- sh -c "$yields" 2>/dev/null)
    expect "$out" "^rank: " 0 "$cores slots on $cores cores: the rig leaves yielding to Open MPI"
fi

[ $fail -eq 0 ] && echo "check-rig: all passed"
exit $fail
