# LOOM_CHECK_COMPONENT_DIR: where make install puts mca_coll_loom.so and
# mca_coll_loomfilter.so.  The default stays $(pkglibdir), out of Open MPI's
# way; --with-ompi-component-dir puts them where Open MPI itself looks, so
# that every job on the machine sees Loom with no environment setting.
# Open MPI's directory is the first entry of its default component path
# (ompi_info), which on Debian carries the multiarch triplet and the
# library's soname (openmpi3), so it is asked for, never spelled out.
AC_DEFUN([LOOM_CHECK_COMPONENT_DIR], [
    AC_REQUIRE([LOOM_CHECK_OMPI])
    AC_ARG_WITH([ompi-component-dir],
        [AS_HELP_STRING([--with-ompi-component-dir@<:@=DIR@:>@],
            [install the Open MPI components in DIR; with no DIR, in Open MPI's
             own component directory, so that jobs load Loom without any
             setting (default: $(pkglibdir), added by the user to the path)])],
        [], [with_ompi_component_dir=no])
    AS_CASE([$with_ompi_component_dir],
        [no], [loomcompdir='$(pkglibdir)'],
        [yes], [
            AC_PATH_PROG([loom_ompi_info], [ompi_info], [],
                [$loom_ompi_bindir$PATH_SEPARATOR$PATH])
            AS_IF([test -z "$loom_ompi_info"],
                [AC_MSG_ERROR([--with-ompi-component-dir needs ompi_info to find Open MPI's component directory; give the directory instead: --with-ompi-component-dir=DIR])])
            loomcompdir=`"$loom_ompi_info" --all --parsable 2>/dev/null | \
                sed -n 's/^mca:mca:base:param:mca_component_path:value:"\{0,1\}\([[^:"]]*\).*/\1/p'`
            AS_IF([test -z "$loomcompdir" || test ! -d "$loomcompdir"],
                [AC_MSG_ERROR([$loom_ompi_info did not name an existing component directory (got '$loomcompdir'); give it: --with-ompi-component-dir=DIR])])],
        [/*], [loomcompdir=$with_ompi_component_dir],
        [AC_MSG_ERROR([--with-ompi-component-dir takes an absolute directory or nothing, not '$with_ompi_component_dir'])])
    AC_MSG_CHECKING([where to install the Open MPI components])
    AC_MSG_RESULT([$loomcompdir])
    AC_SUBST([loomcompdir])
])
