#!/bin/sh
# Run one MPI test case under mpirun: automake's log compiler for .mpitest.
#
#   test/mpi/run.sh [DIR/]<program>[.defaults].np<N>.<shm|tcp>.mpitest
#
# The case name is not a file: it names the program (built in
# test/mpi/ of the build tree), the number of ranks, and the transport of
# Loom's own UCX context (shm: UCX's default choice, which is shared memory
# on one host, and large blocking calls through Loom's node segment; tcp:
# LOOM_UCX_TLS=tcp and no node segment, so every size goes as messages).  Run from the top build directory,
# as make check does, or with abs_top_builddir set.
#
# Exit status: the program's (77: skipped), or 1 when the run printed a UCX
# error or warning or a Loom error or warning, e.g. an endpoint that did
# not close cleanly at finalize over TCP, though every check passed.

set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 <program>.np<N>.<shm|tcp>.mpitest" >&2
    exit 2
fi

case_name=$(basename "$1")
case_name=${case_name%.mpitest}
transport=${case_name##*.}
rest=${case_name%.*}
np=${rest##*.np}
program=${rest%.np*}
# .defaults: the program runs at Loom's default hand-offs (see below).
handoffs=zero
case $program in
    *.defaults) program=${program%.defaults}; handoffs=defaults ;;
esac

case $np in
    ''|*[!0-9]*) echo "$0: no rank count in '$1'" >&2; exit 2 ;;
esac
case $transport in
    shm) unset LOOM_UCX_TLS ;;
    tcp) LOOM_UCX_TLS=tcp; export LOOM_UCX_TLS ;;
    *) echo "$0: transport '$transport' in '$1' is neither shm nor tcp" >&2; exit 2 ;;
esac

# Loom hands small messages on one node to Open MPI's module; the tests
# exercise Loom's own path at every size, except the ones about the hand-off
# and the cases named .defaults.
case $handoffs.$program in
    defaults.*|*.mpi_allreduce_handoff|*.mpi_handoff) set -- ;;
    *)
        set --
        for coll in allreduce bcast bcast_pair reduce allgather allgather_pair reduce_scatter; do
            set -- "$@" --mca "coll_loom_${coll}_handoff" 0
        done
        ;;
esac
case $transport in
    tcp) set -- "$@" --mca coll_loom_shm 0 ;;
esac
# The progress thread is off by default; its own test turns it on.
case $program in
    mpi_progress_thread) set -- "$@" --mca coll_loom_progress_thread 1 ;;
esac
# mca_coll_loomfilter's tests: its priority above loom's 100 here (but
# for the case that checks the warning when it is below), and the MCA
# parameter that opts every communicator in (mpi_filter.c).
case $program in
    mpi_filter|mpi_filter_mca|mpi_filter_mca_bad)
        set -- "$@" --mca coll_loomfilter_priority 110 ;;
    mpi_filter_below) set -- "$@" --mca coll_loomfilter_priority 90 ;;
esac
case $program in
    mpi_filter_mca) set -- "$@" --mca coll_loomfilter_filter topk:0.01 ;;
    mpi_filter_mca_bad) set -- "$@" --mca coll_loomfilter_filter topk:2 ;;
esac

# A sanitizer build (test/sanitize.am) sets the sanitizers' options, and
# in LOOM_MPITEST_ASAN_OPTIONS those for the ranks alone; the ranks get
# them with -x (mpirun does not forward other variables to ranks on other
# hosts).
if [ -n "${ASAN_OPTIONS:-}" ] && [ -n "${LOOM_MPITEST_ASAN_OPTIONS:-}" ]; then
    ASAN_OPTIONS=$ASAN_OPTIONS:$LOOM_MPITEST_ASAN_OPTIONS
fi
for var in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
    if eval "[ -n \"\${$var+set}\" ]"; then
        set -- "$@" -x "$var"
    fi
done

builddir=${abs_top_builddir:-$PWD}
exe=$builddir/test/mpi/$program
if [ ! -x "$exe" ]; then
    echo "$0: $exe is not built (run from the top build directory)" >&2
    exit 2
fi

OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_mca_base_component_path=SYS_DEFAULT:$builddir/.libs
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_mca_base_component_path

# stderr is kept apart to be searched, then shown after stdout.
errfile=$(mktemp "${TMPDIR:-/tmp}/loom-mpitest.XXXXXX") || exit 2
trap 'rm -f "$errfile"' EXIT

run_ranks() {
    timeout 300 "${MPIRUN:-mpirun}" -np "$np" --oversubscribe \
        --mca mpi_yield_when_idle 1 --mca coll_loom_priority 100 --bind-to none \
        "$@" \
        "$exe" </dev/null 2>"$errfile"
}

echo "$case_name: ranks $np, transport $transport, hand-offs $handoffs, $exe"
run_ranks "$@"
status=$?
cat "$errfile" >&2

# LeakSanitizer's report (keep_modules.c prints it without touching the
# exit status): a leak fails the case when a frame of its allocation stack
# is Loom's code -- the component, the engine, the common layer or the
# test program itself.  Leaks whose stacks are Open MPI, PMIx, hwloc and
# UCX alone are memory those libraries keep for themselves; which of them
# show depends on the machine (its network interfaces, hwloc's plugins),
# so lsan.supp names the usual ones and the rest are counted here, not
# failed.
if grep 'ERROR: LeakSanitizer: detected memory leaks' "$errfile" >/dev/null; then
    # Every stack ends in the test's main(); what counts is the part of
    # the stack inside the MPI call that allocated (above the outermost
    # MPI_ or PMPI_ entry point, where Loom's component runs), or the
    # whole stack when it holds no MPI entry point.
    loom_leaks=$(awk '
        function flush() {
            if (head != "" && first_loom > 0 && (last_entry == 0 || first_loom < last_entry)) print head
            head = ""; n = first_loom = last_entry = 0
        }
        /^(Direct|Indirect) leak of/ { flush(); head = $0; next }
        /^ *#[0-9]+ / {
            if (head == "") next
            n++
            if ($0 ~ / in P?MPI_[A-Za-z_]+ /) last_entry = n
            else if (first_loom == 0 && $0 ~ /mca_coll_loom|libloom|coll\/core\/|coll\/ompi\/|common\/[a-z_]+\.[ch]|test\/mpi\/|in loom_/) first_loom = n
            next
        }
        /^$/ { flush() }
        END { flush() }' "$errfile")
    if [ -n "$loom_leaks" ]; then
        echo "$case_name: leaks allocated through Loom's code (stacks above):" >&2
        echo "$loom_leaks" >&2
        status=1
    else
        echo "$case_name: LeakSanitizer's report above names only memory of Open MPI, PMIx, hwloc or UCX (no frame of Loom's code): not counted" >&2
    fi
fi

if [ $status -eq 124 ]; then
    echo "$case_name: timed out after 300 s" >&2
    exit 1
fi
if grep -E 'UCX  (ERROR|WARN)|^\[loom[^]]*\] (error|warn) ' "$errfile" >/dev/null; then
    echo "$case_name: UCX or Loom reported errors or warnings (above)" >&2
    if [ $status -eq 0 ] || [ $status -eq 77 ]; then
        status=1
    fi
fi
exit $status
