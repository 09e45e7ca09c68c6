# LOOM_CHECK_ZLIB: Debian ships Fashion-MNIST as gzip-compressed IDX files;
# the training example reads them with zlib's gzread.
AC_DEFUN([LOOM_CHECK_ZLIB], [
    PKG_CHECK_MODULES([ZLIB], [zlib], [loom_zlib=yes], [loom_zlib=no])
    AS_IF([test "x$loom_zlib" = xyes],
        [loom_zlib_summary="yes"],
        [loom_zlib_summary="no: training examples not built (apt-get install zlib1g-dev)"])
    AC_SUBST([ZLIB_CFLAGS])
    AC_SUBST([ZLIB_LIBS])
    AM_CONDITIONAL([HAVE_ZLIB], [test "x$loom_zlib" = xyes])
])
