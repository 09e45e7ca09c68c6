# LOOM_CHECK_CHECK: the Check framework runs the unit tests of `make check`.
# Missing Check does not stop the build; it stops `make check` with a message.
AC_DEFUN([LOOM_CHECK_CHECK], [
    PKG_CHECK_MODULES([CHECK], [check >= 0.11],
        [loom_check=yes; loom_check_summary="yes (`$PKG_CONFIG --modversion check`)"],
        [loom_check=no; loom_check_summary="no: make check needs it (apt-get install check)"])
    AM_CONDITIONAL([HAVE_CHECK], [test "x$loom_check" = xyes])
])
