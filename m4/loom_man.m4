# LOOM_CHECK_HELP2MAN: the tools' man pages are help2man's rendering of
# their --help, made at build time so they cannot drift from it.  Without
# help2man the pages are not built (and not installed); the summary says so.
AC_DEFUN([LOOM_CHECK_HELP2MAN], [
    AC_PATH_PROG([HELP2MAN], [help2man], [])
    AS_IF([test -n "$HELP2MAN"], [loom_man_summary=yes],
        [loom_man_summary="no (apt-get install help2man)"])
    AM_CONDITIONAL([HAVE_HELP2MAN], [test -n "$HELP2MAN"])
])
