# LOOM_CHECK_OMPI: Open MPI with its internal headers, for mca_coll_loom.
# mpicc --showme names the include directories; the component also needs
# their openmpi/ subfolders, where ompi_config.h and ompi/mca/coll/coll.h live.
AC_DEFUN([LOOM_CHECK_OMPI], [
    AC_ARG_WITH([ompi],
        [AS_HELP_STRING([--with-ompi=DIR], [Open MPI installation prefix (default: mpicc on PATH)])],
        [], [with_ompi=])
    AS_IF([test -n "$with_ompi" && test "x$with_ompi" != xyes],
        [loom_mpicc="$with_ompi/bin/mpicc"; loom_ompi_bindir="$with_ompi/bin"],
        [AC_PATH_PROG([loom_mpicc], [mpicc], [])
         loom_ompi_bindir=`dirname "$loom_mpicc" 2>/dev/null`])
    AS_IF([test -z "$loom_mpicc" || test ! -x "$loom_mpicc"],
        [AC_MSG_ERROR([mpicc not found. Loom needs Open MPI 4.1 with its development headers.
On Debian: apt-get install libopenmpi-dev openmpi-bin, or give --with-ompi=DIR.])])
    loom_ompi_version=`"$loom_mpicc" --showme:version 2>&1 | sed -n 's/.*Open MPI \([[0-9.]]*\).*/\1/p'`
    AS_IF([test -z "$loom_ompi_version"],
        [AC_MSG_ERROR([$loom_mpicc is not Open MPI's wrapper (mca_coll_loom is an Open MPI component)])])
    AX_COMPARE_VERSION([$loom_ompi_version], [lt], [4.1.0],
        [AC_MSG_ERROR([Open MPI $loom_ompi_version is too old: mca_coll_loom is built for 4.1])])
    OMPI_INTERNAL_CPPFLAGS=""
    for d in `"$loom_mpicc" --showme:incdirs`; do
        OMPI_INTERNAL_CPPFLAGS="$OMPI_INTERNAL_CPPFLAGS -I$d"
        AS_IF([test -d "$d/openmpi"], [OMPI_INTERNAL_CPPFLAGS="$OMPI_INTERNAL_CPPFLAGS -I$d/openmpi"])
    done
    OMPI_LIBS=""
    for d in `"$loom_mpicc" --showme:libdirs`; do
        OMPI_LIBS="$OMPI_LIBS -L$d -Wl,-rpath,$d"
    done
    OMPI_LIBS="$OMPI_LIBS -lmpi -lopen-pal"
    loom_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $OMPI_INTERNAL_CPPFLAGS"
    AC_CHECK_HEADER([ompi/mca/coll/coll.h], [],
        [AC_MSG_ERROR([Open MPI's internal header ompi/mca/coll/coll.h was not found under
$OMPI_INTERNAL_CPPFLAGS. On Debian it ships in libopenmpi-dev.])],
        [#include "ompi_config.h"])
    CPPFLAGS=$loom_save_CPPFLAGS
    AC_PATH_PROG([loom_mpirun], [mpirun], [], [$loom_ompi_bindir$PATH_SEPARATOR$PATH])
    MPICC=$loom_mpicc
    MPIRUN=$loom_mpirun
    AC_SUBST([MPICC])
    AC_SUBST([MPIRUN])
    AC_SUBST([OMPI_INTERNAL_CPPFLAGS])
    AC_SUBST([OMPI_LIBS])
])

# LOOM_CHECK_MPI_APP: flags for programs that call MPI (tests, examples,
# later the PMPI tools), as Open MPI's wrapper would pass them.
AC_DEFUN([LOOM_CHECK_MPI_APP], [
    MPI_APP_CFLAGS=`"$loom_mpicc" --showme:compile`
    MPI_APP_LIBS=`"$loom_mpicc" --showme:link`
    AC_SUBST([MPI_APP_CFLAGS])
    AC_SUBST([MPI_APP_LIBS])
])
