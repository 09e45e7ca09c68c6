# LOOM_CHECK_SANITIZERS: --enable-sanitizers builds everything Loom builds
# (libloom, mca_coll_loom.so, tests, examples) with AddressSanitizer and
# UndefinedBehaviorSanitizer.
#
# The flags go into CFLAGS and LDFLAGS, not into per-target variables, so
# that no target can miss them: every compile and every link, libtool's
# included (libtool passes -fsanitize=* through to the linker).
#   -fsanitize=address,undefined   out-of-bounds, use-after-free, leaks
#                                  (LeakSanitizer), and undefined behaviour
#   -fno-omit-frame-pointer        whole stack traces in the reports
#   -fno-sanitize-recover=undefined  UB stops the program with an error,
#                                  so that make check fails on it instead
#                                  of printing a line nobody reads
# The executables that load mca_coll_loom.so are linked with the same
# flags, which puts the ASan runtime first in their library list, as ASan
# requires; test/sanitize.am says how the tests run.
AC_DEFUN([LOOM_CHECK_SANITIZERS], [
    AC_ARG_ENABLE([sanitizers],
        [AS_HELP_STRING([--enable-sanitizers],
            [build with AddressSanitizer and UndefinedBehaviorSanitizer
             (make check-sanitize runs the tests that this build supports)])],
        [], [enable_sanitizers=no])
    AS_CASE([$enable_sanitizers], [yes|no], [],
        [AC_MSG_ERROR([--enable-sanitizers takes yes or no, not '$enable_sanitizers'])])
    LOOM_SANITIZE_FLAGS=""
    loom_sanitize_summary="no"
    AS_IF([test "x$enable_sanitizers" = xyes], [
        LOOM_SANITIZE_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
        AC_MSG_CHECKING([whether $CC compiles and links with $LOOM_SANITIZE_FLAGS])
        CFLAGS="$CFLAGS $LOOM_SANITIZE_FLAGS"
        LDFLAGS="$LDFLAGS $LOOM_SANITIZE_FLAGS"
        AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
            [AC_MSG_RESULT([yes])],
            [AC_MSG_RESULT([no])
             AC_MSG_ERROR([$CC cannot build with $LOOM_SANITIZE_FLAGS.
With GCC on Debian the runtimes come with the compiler (libasan8, libubsan1).])])
        dnl The flags stay in CFLAGS and LDFLAGS: they reach every target.
        loom_sanitize_summary="yes ($LOOM_SANITIZE_FLAGS)"
    ])
    AC_SUBST([LOOM_SANITIZE_FLAGS])
    AM_CONDITIONAL([LOOM_SANITIZE], [test "x$enable_sanitizers" = xyes])
])
