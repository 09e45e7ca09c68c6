# LOOM_CHECK_LIBDW: libloom-pmpi names call sites by file:line with
# elfutils' libdw (dwfl) where the program has debug information.
# Optional: without it, sites are named by dladdr's nearest symbol.
AC_DEFUN([LOOM_CHECK_LIBDW], [
    PKG_CHECK_MODULES([LIBDW], [libdw], [
        loom_libdw=yes
        AC_DEFINE([HAVE_LIBDW], [1], [Define to 1 when libdw (elfutils) names call sites by line])
    ], [
        loom_libdw=no
        AC_MSG_WARN([libdw not found: libloom-pmpi names call sites without file:line (apt-get install libdw-dev)])
    ])
    AC_SUBST([LIBDW_CFLAGS])
    AC_SUBST([LIBDW_LIBS])
])
