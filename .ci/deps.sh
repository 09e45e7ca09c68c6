#!/bin/bash
# Install the Debian packages Loom needs, only those that are missing.
set -euo pipefail
pkgs=(autoconf automake libtool pkg-config make gcc
      libopenmpi-dev openmpi-bin libucx-dev libhwloc-dev libjansson-dev libxxhash-dev libzstd-dev check libsubunit-dev
      libopenblas-dev zlib1g-dev dataset-fashion-mnist python3-mpi4py python3-numpy
      gnuplot-nox)
# libloom-pmpi: libdw names call sites by file:line; its tests validate the JSON schema.
pkgs+=(libdw-dev python3-jsonschema)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
