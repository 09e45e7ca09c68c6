# AX_PTHREAD_SIMPLE: the engine guards its endpoint cache with a mutex and
# the tests start threads; glibc needs -pthread for both.
AC_DEFUN([AX_PTHREAD_SIMPLE], [
    PTHREAD_CFLAGS=-pthread
    PTHREAD_LIBS=-pthread
    AC_SUBST([PTHREAD_CFLAGS])
    AC_SUBST([PTHREAD_LIBS])
])
