# LOOM_CHECK_BLAS: the training example's matrix products use CBLAS
# (Debian's OpenBLAS).  Only the examples need it; without it they are
# not built and configure says so.
AC_DEFUN([LOOM_CHECK_BLAS], [
    PKG_CHECK_MODULES([BLAS], [openblas], [loom_blas=yes],
        [PKG_CHECK_MODULES([BLAS], [cblas], [loom_blas=yes], [loom_blas=no])])
    AS_IF([test "x$loom_blas" = xyes], [
        loom_save_CPPFLAGS=$CPPFLAGS
        CPPFLAGS="$CPPFLAGS $BLAS_CFLAGS"
        AC_CHECK_HEADER([cblas.h], [], [loom_blas=no])
        CPPFLAGS=$loom_save_CPPFLAGS
    ])
    AS_IF([test "x$loom_blas" = xyes],
        [loom_blas_summary="yes ($BLAS_LIBS)"],
        [loom_blas_summary="no: training examples not built (apt-get install libopenblas-dev)"])
    AC_SUBST([BLAS_CFLAGS])
    AC_SUBST([BLAS_LIBS])
    AM_CONDITIONAL([HAVE_BLAS], [test "x$loom_blas" = xyes])
])
