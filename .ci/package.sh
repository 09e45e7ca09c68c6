#!/bin/bash
# CI: build Loom's Debian packages from the distribution tarball (make deb;
# the suite already ran, so nocheck), install them, check that Open MPI
# loads Loom with no setting at all, then purge them and check that no
# file of theirs is left.  Run from a configured source tree, as root.
set -euo pipefail
cd "$(dirname "$0")/.."
# Nothing may point Open MPI at a build tree: the installed package alone
# must bring Loom in.
while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(OMPI_MCA_[^=]*\)=.*/\1/p')
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

DEB_BUILD_OPTIONS=nocheck make deb
pkgs=(loom-openmpi loom-tools libloom-ckpt0 libloom-filter0 libloom-dev)
debs=()
for p in "${pkgs[@]}"; do debs+=("./debian-out/${p}_"*_"$(dpkg --print-architecture)".deb); done
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${debs[@]}"
files=$(mktemp)
trap 'rm -f "$files"' EXIT
dpkg -L "${pkgs[@]}" | sort -u >"$files"
compdir=$(dirname "$(grep '/mca_coll_loom\.so$' "$files")")

fail() { echo "package.sh: FAIL: $*" >&2; exit 1; }
ompi_info | grep -q 'MCA coll: loom ' || fail "ompi_info does not list coll/loom"
ompi_info | grep -q 'MCA coll: loomfilter ' || fail "ompi_info does not list coll/loomfilter"
[ "$(ompi_info --param coll loom --level 9 --parsable |
     sed -n 's/^mca:coll:loom:param:coll_loom_priority:value://p')" = 40 ] ||
    fail "coll_loom_priority is not 40 by default"
# A 2-rank job: Loom's own MPI_T counter must count its allreduces.
calls=$(timeout 120 mpirun -np 2 examples/loom_mpit |
        sed -n 's/^coll_loom_allreduce_calls  *//p')
[ "${calls:-0}" -gt 0 ] || fail "a 2-rank allreduce did not go through Loom (coll_loom_allreduce_calls: ${calls:-none})"
for page in man7/loom.7.gz man1/loom-bench.1.gz man1/loom-sim.1.gz man1/loom-topo.1.gz man1/loom-ckpt.1.gz; do
    grep -qx "/usr/share/man/$page" "$files" || fail "man page $page not installed"
done
echo "package.sh: installed; ompi_info lists loom; $calls allreduces through Loom"

DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}"
left=$(while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done <"$files" || true)
[ -z "$left" ] || fail "purged, but these files remain: $left"
[ -z "$(find "$compdir" -name '*loom*')" ] || fail "a Loom file remains in $compdir"
echo "package.sh: purged; nothing of the packages left, $compdir holds no Loom file"
