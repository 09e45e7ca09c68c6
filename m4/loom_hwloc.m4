# LOOM_CHECK_HWLOC: hwloc describes NUMA nodes and sockets for the topology
# layer; required now so that every build has it when topo/ lands.
AC_DEFUN([LOOM_CHECK_HWLOC], [
    PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0], [],
        [AC_MSG_ERROR([hwloc >= 2.0 not found ($HWLOC_PKG_ERRORS). On Debian: apt-get install libhwloc-dev])])
    loom_hwloc_version=`$PKG_CONFIG --modversion hwloc`
    AC_SUBST([HWLOC_CFLAGS])
    AC_SUBST([HWLOC_LIBS])
])
