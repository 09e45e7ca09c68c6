# LOOM_CHECK_JANSSON: the topology layer reads and writes Loom topology
# files (JSON) with Debian's libjansson rather than a hand-written parser;
# jansson reports the line and column of a syntax error, which the
# topology loader passes on to the user.
AC_DEFUN([LOOM_CHECK_JANSSON], [
    PKG_CHECK_MODULES([JANSSON], [jansson >= 2.10], [],
        [AC_MSG_ERROR([jansson 2.10 or newer not found ($JANSSON_PKG_ERRORS). On Debian: apt-get install libjansson-dev])])
    loom_jansson_version=`$PKG_CONFIG --modversion jansson`
    AC_SUBST([JANSSON_CFLAGS])
    AC_SUBST([JANSSON_LIBS])
])
