# LOOM_CHECK_MPICH: a second MPI, MPICH, beside Open MPI, for the programs
# that must run on both MPIs Debian ships (the examples' MPICH flavor,
# examples/mpich/; the PMPI profiler).  Debian installs MPICH's wrapper as
# mpicc.mpich and its launcher as mpiexec.mpich while Open MPI stays the
# default mpicc and mpirun, so nothing else in the build changes.
#
# Automake cannot give one target another compiler, so the MPICH programs
# are compiled by $CC with MPICH_CFLAGS and linked with MPICH_LIBS: what
# `mpicc.mpich -show` says the wrapper adds to gcc.  Optional: without
# MPICH (or with --without-mpich) everything else builds as before and the
# MPICH tests skip.
#
# Sets HAVE_MPICH (automake conditional) and substitutes MPICH_CC,
# MPICH_CFLAGS, MPICH_LIBS, MPIEXEC_MPICH and loom_mpich (yes or no).
AC_DEFUN([LOOM_CHECK_MPICH], [
    AC_ARG_WITH([mpich],
        [AS_HELP_STRING([--with-mpich=DIR|no],
            [MPICH installation prefix for the MPICH builds of the examples
             (default: mpicc.mpich and mpiexec.mpich on PATH, when present)])],
        [], [with_mpich=check])
    loom_mpich=no
    loom_mpich_where=
    MPICH_CC=
    MPIEXEC_MPICH=
    AS_CASE([$with_mpich],
        [no], [loom_mpich_summary="no (--without-mpich)"],
        [check|yes], [
            AC_PATH_PROGS([MPICH_CC], [mpicc.mpich], [])
            AC_PATH_PROGS([MPIEXEC_MPICH], [mpiexec.mpich mpiexec.hydra], [])],
        [
            AC_PATH_PROGS([MPICH_CC], [mpicc.mpich mpicc], [], [$with_mpich/bin])
            loom_mpich_where=" in $with_mpich/bin"
            AC_PATH_PROGS([MPIEXEC_MPICH], [mpiexec.mpich mpiexec.hydra mpiexec], [],
                [$with_mpich/bin])])
    AS_IF([test "x$with_mpich" != xno], [_LOOM_MPICH_FLAGS])
    AS_IF([test "x$loom_mpich" = xno && test "x$with_mpich" != xno],
        [loom_mpich_summary="no: $loom_mpich_why; MPICH builds and tests skipped"])
    AS_IF([test "x$loom_mpich" = xno && test "x$with_mpich" != xno &&
           test "x$with_mpich" != xcheck],
        [AC_MSG_ERROR([--with-mpich=$with_mpich: $loom_mpich_why])])
    AC_SUBST([MPICH_CC])
    AC_SUBST([MPICH_CFLAGS])
    AC_SUBST([MPICH_LIBS])
    AC_SUBST([MPIEXEC_MPICH])
    AC_SUBST([loom_mpich])
    AM_CONDITIONAL([HAVE_MPICH], [test "x$loom_mpich" = xyes])
])

# _LOOM_MPICH_FLAGS: split the wrapper's `-show` line (compiler first, then
# its flags) into compile flags (-I, -D) and link flags (the rest), give
# each -L directory outside the system's own an rpath as LOOM_CHECK_OMPI
# does (a system rpath would only reorder the search), then prove that the
# pair compiles an MPICH program (mpi.h defines MPICH_VERSION, which Open
# MPI's does not) and links it.  Sets loom_mpich, and either
# loom_mpich_summary (found) or loom_mpich_why (what is missing).
AC_DEFUN([_LOOM_MPICH_FLAGS], [
    MPICH_CFLAGS=
    MPICH_LIBS=
    AS_IF([test -z "$MPICH_CC"],
        [loom_mpich_why="no mpicc.mpich$loom_mpich_where (apt-get install libmpich-dev mpich)"],
        [test -z "$MPIEXEC_MPICH"],
        [loom_mpich_why="$MPICH_CC found but no mpiexec.mpich$loom_mpich_where (apt-get install mpich)"],
        [
        loom_mpich_show=`"$MPICH_CC" -show 2>/dev/null`
        loom_mpich_word=compiler
        for f in $loom_mpich_show; do
            AS_CASE([$loom_mpich_word$f],
                [compiler*], [loom_mpich_word=],
                [-I*|-D*], [MPICH_CFLAGS="$MPICH_CFLAGS $f"],
                [-L/usr/lib|-L/usr/lib64|-L/usr/lib/*-linux-*], [MPICH_LIBS="$MPICH_LIBS $f"],
                [-L*], [MPICH_LIBS="$MPICH_LIBS $f -Wl,-rpath,`echo "$f" | sed 's/^-L//'`"],
                [MPICH_LIBS="$MPICH_LIBS $f"])
        done
        AC_MSG_CHECKING([whether $MPICH_CC's flags build an MPICH program])
        loom_save_CFLAGS=$CFLAGS
        loom_save_LIBS=$LIBS
        CFLAGS="$CFLAGS $MPICH_CFLAGS"
        LIBS="$MPICH_LIBS $LIBS"
        AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifndef MPICH_VERSION
#error mpi.h is not MPICH's
#endif]], [[MPI_Init(0, 0); MPI_Finalize();]])],
            [loom_mpich=yes], [loom_mpich=no])
        AS_IF([test "x$loom_mpich" = xyes],
            [loom_mpich_version=`echo MPICH_VERSION | $CC -E $CPPFLAGS $MPICH_CFLAGS -include mpi.h - 2>/dev/null | sed -n 's/^"\(.*\)"$/\1/p' | tail -1`])
        CFLAGS=$loom_save_CFLAGS
        LIBS=$loom_save_LIBS
        AC_MSG_RESULT([$loom_mpich])
        AS_IF([test "x$loom_mpich" = xyes], [_LOOM_MPICH_STATUSES_IGNORE])
        AS_IF([test "x$loom_mpich" = xyes],
            [loom_mpich_summary="$loom_mpich_version ($MPICH_CC, $MPIEXEC_MPICH)"],
            [loom_mpich_why="$MPICH_CC -show gave flags that do not build an MPICH program (see config.log)"])
        ])
])

# _LOOM_MPICH_STATUSES_IGNORE: MPICH defines MPI_STATUSES_IGNORE as
# (MPI_Status *)1 and declares the statuses parameter of MPI_Waitall and
# its kin as an array, so GCC 11 and later warn at every call that passes
# it ("accessing 20 bytes in a region of size 0", -Wstringop-overflow),
# at every optimization level; MPICH keeps it so (pmodels/mpich#5687).
# Where that happens, the MPICH builds are compiled without that warning;
# their Open MPI builds, from the same sources, still get it.
AC_DEFUN([_LOOM_MPICH_STATUSES_IGNORE], [
    AC_MSG_CHECKING([whether MPICH's MPI_STATUSES_IGNORE trips -Wstringop-overflow])
    loom_mpich_save=$CFLAGS
    CFLAGS="$CFLAGS $MPICH_CFLAGS -Werror"
    AC_COMPILE_IFELSE([_LOOM_MPICH_WAITALL], [loom_mpich_trips=no], [
        CFLAGS="$CFLAGS -Wno-stringop-overflow"
        AC_COMPILE_IFELSE([_LOOM_MPICH_WAITALL],
            [loom_mpich_trips=yes; MPICH_CFLAGS="$MPICH_CFLAGS -Wno-stringop-overflow"],
            [loom_mpich_trips="yes, and -Wno-stringop-overflow does not help: see config.log"])])
    CFLAGS=$loom_mpich_save
    AC_MSG_RESULT([$loom_mpich_trips])
])
m4_define([_LOOM_MPICH_WAITALL], [AC_LANG_SOURCE([[#include <mpi.h>
int loom_waitall(int n, MPI_Request *reqs);
int loom_waitall(int n, MPI_Request *reqs)
{
    return MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}]])])
