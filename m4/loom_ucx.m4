# LOOM_CHECK_UCX: UCX's UCP tag API is the engine's real transport.
# Found with pkg-config, or under --with-ucx=DIR.  The minimum version is
# compared field by field (1.10 < 1.13), never as a string.
AC_DEFUN([LOOM_CHECK_UCX], [
    loom_ucx_min=1.10.0
    AC_ARG_WITH([ucx],
        [AS_HELP_STRING([--with-ucx=DIR], [UCX installation prefix (default: pkg-config)])],
        [], [with_ucx=])
    AS_IF([test -n "$with_ucx" && test "x$with_ucx" != xyes], [
        UCX_CFLAGS="-I$with_ucx/include"
        UCX_LIBS="-L$with_ucx/lib -Wl,-rpath,$with_ucx/lib -lucp -lucs"
        loom_ucx_version=`sed -n 's/^#define UCP_API_MAJOR *\([[0-9]]*\).*/\1/p' "$with_ucx/include/ucp/api/ucp_version.h" 2>/dev/null`.`sed -n 's/^#define UCP_API_MINOR *\([[0-9]]*\).*/\1/p' "$with_ucx/include/ucp/api/ucp_version.h" 2>/dev/null`
    ], [
        PKG_CHECK_MODULES([UCX], [ucx >= $loom_ucx_min], [],
            [AC_MSG_ERROR([UCX >= $loom_ucx_min not found with pkg-config ($UCX_PKG_ERRORS).
On Debian: apt-get install libucx-dev, or give --with-ucx=DIR.])])
        UCX_LIBS="$UCX_LIBS -lucs"
        loom_ucx_version=`$PKG_CONFIG --modversion ucx`
    ])
    AX_COMPARE_VERSION([$loom_ucx_version], [lt], [$loom_ucx_min],
        [AC_MSG_ERROR([UCX $loom_ucx_version is too old: Loom needs >= $loom_ucx_min])])
    loom_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $UCX_CFLAGS"
    AC_CHECK_HEADER([ucp/api/ucp.h], [],
        [AC_MSG_ERROR([ucp/api/ucp.h not found (UCX_CFLAGS=$UCX_CFLAGS). On Debian: apt-get install libucx-dev])])
    CPPFLAGS=$loom_save_CPPFLAGS
    AC_SUBST([UCX_CFLAGS])
    AC_SUBST([UCX_LIBS])
])

# AX_COMPARE_VERSION(A, OP, B, IF-TRUE): numeric, dot-separated comparison.
AC_DEFUN([AX_COMPARE_VERSION], [
    AS_IF([awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
            n = split(a, x, "."); m = split(b, y, ".");
            k = (n > m) ? n : m;
            c = 0;
            for (i = 1; i <= k && c == 0; i++) {
                xi = (i <= n) ? x[[i]] + 0 : 0; yi = (i <= m) ? y[[i]] + 0 : 0;
                if (xi < yi) c = -1; else if (xi > yi) c = 1;
            }
            if (op == "lt") exit !(c < 0);
            if (op == "ge") exit !(c >= 0);
            exit 1 }'], [$4], [$5])
])
