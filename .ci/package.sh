#!/bin/bash
# CI: build Loom's Debian packages from the distribution tarball (make deb;
# the suite already ran, so nocheck), fail on any lintian error, install
# them, check that Open MPI loads Loom with no setting at all and that the
# preloaded profiler writes a right profile, then purge them and check
# that no file of theirs is left.  Run as root from a configured source
# tree where make check has built examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
# Nothing may point Open MPI at a build tree: the installed package alone
# must bring Loom in.
while read -r v; do unset "$v"; done < <(env | sed -n 's/^\(OMPI_MCA_[^=]*\)=.*/\1/p')
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

fail() { echo "package.sh: FAIL: $*" >&2; exit 1; }

DEB_BUILD_OPTIONS=nocheck make deb

# lintian (needed only here, like clang for the fuzz step): any error
# fails; warnings are printed for whoever reads the log.
if ! dpkg-query -W -f='${Status}' lintian 2>/dev/null | grep -q 'install ok installed'; then
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends lintian >/dev/null
fi
lint=$(lintian --fail-on none debian-out/*.changes 2>&1)
[ -z "$lint" ] || echo "$lint"
! grep -q '^E: ' <<<"$lint" || fail "lintian reports errors (E: lines above)"

pkgs=(loom-openmpi loom-tools libloom-ckpt0 libloom-filter0 libloom-dev libloom-pmpi0
      libloom-pmpi-mpich0 libloom-slownode0)
arch=$(dpkg --print-architecture)
debs=()
for p in "${pkgs[@]}"; do debs+=("./debian-out/${p}_"*_"$arch".deb); done
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${debs[@]}"
files=$(mktemp)
prof=$(mktemp -d)
trap 'rm -rf "$files" "$prof"' EXIT
dpkg -L "${pkgs[@]}" | sort -u >"$files"
compdir=$(dirname "$(grep '/mca_coll_loom\.so$' "$files")")
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

# The installed profiler, preloaded into the same 2-rank job, must write a
# profile that the installed schema accepts and that counts loom_mpit's
# allreduces: 10 of 4096 doubles per rank.
profile_check() {  # LIBRARY openmpi|mpich PROGRAM
    local lib=$1 prog=$3 out
    out=$prof/$(basename "$lib")
    grep -qx "$lib" "$files" || fail "$lib is not in the packages"
    case $2 in
    openmpi) timeout 120 mpirun -np 2 -x LD_PRELOAD="$lib" -x LOOM_PMPI_OUT="$out" "$prog" ;;
    mpich) timeout 120 mpiexec.mpich -n 2 -genv LD_PRELOAD "$lib" -genv LOOM_PMPI_OUT "$out" "$prog" ;;
    esac >/dev/null || fail "$prog under $lib failed"
    [ -s "$out.json" ] || fail "$lib preloaded wrote no $out.json"
    python3 - "$out.json" /usr/share/loom/profile.schema.json <<'PY' || fail "$lib: wrong profile $out.json"
import json, sys
import jsonschema
prof, schema = (json.load(open(f)) for f in sys.argv[1:])
jsonschema.validate(prof, schema)
sites = [s for s in prof["sites"] if s["function"] == "MPI_Allreduce" and s["communicator"]["size"] == 2]
got = (sum(s["calls"] for s in sites), sum(s["bytes"] for s in sites))
want = (2 * 10, 2 * 10 * 4096 * 8)
if got != want:
    sys.exit("MPI_Allreduce on 2 ranks: calls, bytes = %s; loom_mpit made %s" % (got, want))
PY
    echo "package.sh: $lib profiled a 2-rank job: 20 allreduces, $((2 * 10 * 4096 * 8)) bytes"
}
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
profile_check "/usr/lib/$ma/libloom-pmpi.so.0" openmpi examples/loom_mpit
profile_check "/usr/lib/$ma/libloom-pmpi-mpich.so.0" mpich examples/mpich/loom_mpit

# The installed slow-node library, preloaded into the same job (with the
# profiler, as users stack them), must leave it working and write its record.
sn=/usr/lib/$ma/libloom-slownode.so.0
grep -qx "$sn" "$files" || fail "$sn is not in the packages"
timeout 120 mpirun -np 2 -x LD_PRELOAD="$sn:/usr/lib/$ma/libloom-pmpi.so.0" \
    -x LOOM_PMPI_OUT="$prof/stacked" -x LOOM_SLOWNODE_JSON="$prof/slownode.json" \
    examples/loom_mpit >/dev/null || fail "loom_mpit under $sn failed"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$prof/slownode.json" ||
    fail "$sn wrote no readable $prof/slownode.json"
[ -s "$prof/stacked.json" ] || fail "libloom-pmpi stacked under $sn wrote no profile"
echo "package.sh: $sn ran a 2-rank job stacked with libloom-pmpi and wrote its record"

DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}"
left=$(while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done <"$files" || true)
[ -z "$left" ] || fail "purged, but these files remain: $left"
[ -z "$(find "$compdir" -name '*loom*')" ] || fail "a Loom file remains in $compdir"
echo "package.sh: purged; nothing of the packages left, $compdir holds no Loom file"
