# LOOM_CHECK_XXHASH: the engine hashes its selection rules (every rank must
# hold the same) and the checkpoint library its chunks with xxHash's XXH3,
# from Debian's libxxhash-dev rather than a hand-written hash.
AC_DEFUN([LOOM_CHECK_XXHASH], [
    PKG_CHECK_MODULES([XXHASH], [libxxhash >= 0.8], [],
        [AC_MSG_ERROR([xxHash 0.8 or newer not found: apt-get install libxxhash-dev])])
    AC_SUBST([XXHASH_CFLAGS])
    AC_SUBST([XXHASH_LIBS])
])
