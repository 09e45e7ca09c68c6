# LOOM_CHECK_ZSTD: libloom-ckpt compresses checkpoint chunks on request
# with Debian's libzstd rather than a hand-written compressor.
AC_DEFUN([LOOM_CHECK_ZSTD], [
    PKG_CHECK_MODULES([ZSTD], [libzstd >= 1.4], [],
        [AC_MSG_ERROR([zstd 1.4 or newer not found: apt-get install libzstd-dev])])
    AC_SUBST([ZSTD_CFLAGS])
    AC_SUBST([ZSTD_LIBS])
])
