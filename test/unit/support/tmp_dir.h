/* A scratch directory for a checkpoint test, removed with everything in
 * it afterwards.  The including file defines _GNU_SOURCE first (nftw). */
#ifndef LOOM_TEST_TMP_DIR_H
#define LOOM_TEST_TMP_DIR_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char tmpdir[256];

/* tmpdir becomes a new directory $TMPDIR/<prefix>-XXXXXX. */
static inline void loom_tmp_dir_make(const char *prefix)
{
    snprintf(tmpdir, sizeof(tmpdir), "%s/%s-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", prefix);
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static inline int loom_tmp_dir_rm_one(const char *path, const struct stat *st, int flag,
                                      struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static inline void loom_tmp_dir_remove(void)
{
    nftw(tmpdir, loom_tmp_dir_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
