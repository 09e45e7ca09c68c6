#!/bin/bash
# Install the Debian packages Loom needs, only those that are missing.
set -euo pipefail
pkgs=(autoconf automake libtool pkg-config make gcc
      libopenmpi-dev openmpi-bin libucx-dev libhwloc-dev libjansson-dev libxxhash-dev libzstd-dev check libsubunit-dev
      libmpich-dev mpich hpcc
      libopenblas-dev zlib1g-dev dataset-fashion-mnist python3-mpi4py python3-numpy
      gnuplot-nox
      help2man groff-base debhelper chrpath)
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

# Open MPI stays the system's MPI with MPICH installed beside it: Loom's
# component is Open MPI code and the build finds mpicc, mpirun and mpi.h
# through these alternatives.  On Debian 12 amd64 Open MPI's priority (50)
# beats MPICH's (40), so installing MPICH changes nothing; where MPICH
# ranks higher (Debian's default MPI differs by architecture) or an
# alternative was set by hand, put Open MPI back and say so.
ma=$(gcc -print-multiarch)
openmpi_default() {  # NAME OPEN_MPI_PATH
    local now
    now=$(update-alternatives --query "$1" 2>/dev/null | sed -n 's/^Value: //p')
    if [ "$now" != "$2" ]; then
        echo "deps.sh: alternative $1 is '${now:-unset}', not Open MPI's $2: setting it back"
        update-alternatives --set "$1" "$2"
    fi
}
openmpi_default mpi /usr/bin/mpicc.openmpi
openmpi_default mpirun /usr/bin/mpirun.openmpi
openmpi_default "mpi-$ma" "/usr/lib/$ma/openmpi/include"
mpicc --showme:version 2>&1 | grep -q 'Open MPI' ||
    { echo "deps.sh: mpicc is not Open MPI's wrapper after all" >&2; exit 1; }
mpirun --version 2>&1 | grep -q 'Open MPI' ||
    { echo "deps.sh: mpirun is not Open MPI's after all" >&2; exit 1; }
