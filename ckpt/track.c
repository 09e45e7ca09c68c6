/*
 * Change tracking for incremental saves (track.h).
 *
 * Without it a save must hash every chunk to learn which ones changed: a
 * 1 GiB state costs ~150 ms of hashing on the caller's thread even when 5%
 * changed.  With it a save hashes only the chunks that may have changed.
 *
 * Modes (LOOM_CKPT_TRACK, loom_ckpt_options_t.track):
 *
 *  - writes: the kernel reports which pages were written.  Each region's
 *    whole pages are registered with a userfaultfd in write-protect mode
 *    with UFFD_FEATURE_WP_ASYNC (Linux 6.7+): a write to a protected page
 *    takes a minor fault that the kernel resolves itself (no handler
 *    thread) by unprotecting the page, which marks it written.  A save's
 *    PAGEMAP_SCAN ioctl on /proc/self/pagemap returns the written pages and
 *    protects them again in the same walk, under the page table lock, so a
 *    write racing with the scan is either reported now or next time, never
 *    lost.  Writes the kernel makes on the process's behalf (read() into a
 *    buffer, process_vm_writev, which is how shared-memory MPI receives
 *    land) fault the same way and are seen.  Unlike soft-dirty bits, which
 *    are cleared for the whole process at once (/proc/self/clear_refs),
 *    this is per range: two contexts, or another soft-dirty user, do not
 *    disturb each other.  (Soft-dirty needs CONFIG_MEM_SOFT_DIRTY, which
 *    the kernels we run on do not have.)  Not seen: pages discarded with
 *    madvise(MADV_DONTNEED or MADV_FREE), which change the bytes without a
 *    write; call loom_ckpt_touch for those.
 *    Partial pages at a region's ends may hold other data, so they are not
 *    protected and their chunks are always candidates; so is any region
 *    the kernel refuses (file-backed memory, a region overlapping another
 *    tracked one).
 *  - marks: only what the application declares with loom_ckpt_touch.
 *  - none: every chunk is a candidate at every save (hash everything).
 *  - auto: writes when the kernel can, else none.
 *
 * Cost: every first write to a page after a save takes a minor fault
 * (the application pays this while training, not during the save).
 */
#define _GNU_SOURCE
#include "ckpt/track.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/userfaultfd.h>

#include "common/log.h"

/* Newer than the kernel headers of Debian 12 (Linux 6.1); the kernel we
 * run says whether it knows them (UFFDIO_API, then a probe). */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1ull << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1ull << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
    uint64_t start;
    uint64_t end;
    uint64_t categories;
};
struct pm_scan_arg {
    uint64_t size;
    uint64_t flags;
    uint64_t start;
    uint64_t end;
    uint64_t walk_end;
    uint64_t vec;
    uint64_t vec_len;
    uint64_t max_pages;
    uint64_t category_inverted;
    uint64_t category_mask;
    uint64_t category_anyof_mask;
    uint64_t return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN (1 << 1)
#endif

typedef struct track_region {
    uintptr_t ptr;
    size_t size;
    uint64_t chunk_size;
    size_t nchunks;
    uint8_t *changed;       /* since the last collect */
    uint8_t *cand;          /* candidates of this save (and of failed ones) */
    uintptr_t lo, hi;       /* the whole pages write-protected; lo == hi: none */
    int armed;              /* protected once: scans measure writes */
    unsigned unarmed;       /* dense: saves left before protecting again */
    unsigned backoff;       /* dense: the last such pause, in saves */
} track_region_t;

struct loom_ckpt_track {
    loom_ckpt_track_mode_t mode;
    pid_t pid;              /* the process whose pages are registered */
    track_region_t *regions;
    size_t nregions;
};

/* The kernel side, one per process: a VMA can belong to one userfaultfd
 * only, so every context shares it.  wp[] lists the ranges registered, so
 * that no two regions protect (and re-protect, hiding each other's
 * writes) the same page. */
static struct {
    pthread_mutex_t lock;
    pid_t pid;              /* uffd and pagemap belong to this process */
    int state;              /* 0: not tried, 1: works, -1: does not */
    int uffd;
    int pagemap;
    unsigned users;
    const char *why;        /* state -1: what failed */
    struct { uintptr_t lo, hi; } *wp;
    size_t nwp;
} kernel = { .lock = PTHREAD_MUTEX_INITIALIZER, .uffd = -1, .pagemap = -1 };

static long page_size(void)
{
    static long ps;
    if (ps == 0) {
        ps = sysconf(_SC_PAGESIZE);
    }
    return ps;
}

static int wp_register(uintptr_t lo, uintptr_t hi)
{
    struct uffdio_register reg = { .range = { .start = lo, .len = hi - lo },
                                   .mode = UFFDIO_REGISTER_MODE_WP };
    return ioctl(kernel.uffd, UFFDIO_REGISTER, &reg) == 0 ? 0 : -errno;
}

static void wp_unregister(uintptr_t lo, uintptr_t hi)
{
    struct uffdio_range range = { .start = lo, .len = hi - lo };
    (void)ioctl(kernel.uffd, UFFDIO_UNREGISTER, &range);
}

/* Written pages of [*start, hi) into vec, protecting them again; moves
 * *start past what was walked.  The count, or -errno. */
static long wp_scan(uintptr_t *start, uintptr_t hi, struct page_region *vec,
                    size_t len)
{
    struct pm_scan_arg arg = {
        .size = sizeof(arg),
        .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
        .start = *start, .end = hi,
        .vec = (uintptr_t)vec, .vec_len = len,
        .category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN,
    };
    long n = ioctl(kernel.pagemap, PAGEMAP_SCAN, &arg);
    if (n < 0) {
        return -errno;
    }
    if (arg.walk_end <= *start) {
        return -EPROTO;     /* no progress: never loop */
    }
    *start = (uintptr_t)arg.walk_end;
    return n;
}

/* Protects a page, writes it, and expects the scan to report it: the
 * whole path works in this kernel, or *why_p says what failed. */
static int kernel_probe(const char **why_p)
{
    const long ps = page_size();
    char *page = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        *why_p = "no memory for the probe";
        return -1;
    }
    uintptr_t lo = (uintptr_t)page, hi = lo + (uintptr_t)ps, at;
    struct page_region vec[2];
    long first = -1, clean = -1, written = -1;
    if (wp_register(lo, hi) != 0) {
        *why_p = "userfaultfd cannot write-protect anonymous memory";
    } else {
        at = lo;
        first = wp_scan(&at, hi, vec, 2);       /* protects */
        at = lo;
        clean = first >= 0 ? wp_scan(&at, hi, vec, 2) : -1;
        page[1] = 1;
        at = lo;
        written = clean >= 0 ? wp_scan(&at, hi, vec, 2) : -1;
        wp_unregister(lo, hi);
        *why_p = first < 0 ? "the kernel has no PAGEMAP_SCAN (Linux 6.7+)"
                 : clean != 0 || written != 1 ? "PAGEMAP_SCAN does not report writes"
                 : NULL;
    }
    munmap(page, (size_t)ps);
    return *why_p == NULL ? 0 : -1;
}

/* Opens the process's userfaultfd once; 0 when writes can be tracked. */
static int kernel_acquire(const char **why_p)
{
    pthread_mutex_lock(&kernel.lock);
    if (kernel.state != 0 && kernel.pid != getpid()) {
        /* A child after fork: the descriptors speak of the parent. */
        if (kernel.uffd >= 0) {
            close(kernel.uffd);
            close(kernel.pagemap);
        }
        free(kernel.wp);
        kernel.wp = NULL;
        kernel.nwp = 0;
        kernel.users = 0;
        kernel.uffd = kernel.pagemap = -1;
        kernel.state = 0;
    }
    if (kernel.state == 0) {
        kernel.pid = getpid();
        kernel.state = -1;
        *why_p = NULL;
        /* Kernel-mode faults need privilege (vm.unprivileged_userfaultfd);
         * asynchronous write-protect faults never reach a handler, so
         * user-mode-only is as good for us. */
        int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 && errno == EPERM) {
            fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
        }
        struct uffdio_api api = {
            .api = UFFD_API,
            .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED };
        if (fd < 0) {
            *why_p = "userfaultfd is not available";
        } else if (ioctl(fd, UFFDIO_API, &api) != 0) {
            *why_p = "the kernel has no asynchronous write-protect userfaultfd (Linux 6.7+)";
        } else if ((kernel.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0) {
            *why_p = "/proc/self/pagemap cannot be opened";
        }
        kernel.uffd = fd;
        if (*why_p == NULL && kernel_probe(why_p) == 0) {
            kernel.state = 1;
        } else {
            loom_debug("ckpt", "write tracking probe: %s (%m)", *why_p);
            if (fd >= 0) {
                close(fd);
            }
            if (kernel.pagemap >= 0) {
                close(kernel.pagemap);
            }
            kernel.uffd = kernel.pagemap = -1;
            kernel.why = *why_p;
        }
    }
    int ok = kernel.state == 1;
    if (ok) {
        kernel.users++;
    } else {
        *why_p = kernel.why;
    }
    pthread_mutex_unlock(&kernel.lock);
    return ok ? 0 : -1;
}

static void kernel_release(void)
{
    pthread_mutex_lock(&kernel.lock);
    if (kernel.state == 1 && kernel.pid == getpid() && --kernel.users == 0) {
        close(kernel.uffd);
        close(kernel.pagemap);
        free(kernel.wp);
        kernel.wp = NULL;
        kernel.nwp = 0;
        kernel.uffd = kernel.pagemap = -1;
        kernel.state = 0;
    }
    pthread_mutex_unlock(&kernel.lock);
}

/* Registers [lo, hi) unless another region protects any of it. */
static int kernel_protect(uintptr_t lo, uintptr_t hi)
{
    int rc = -EBUSY;
    pthread_mutex_lock(&kernel.lock);
    for (size_t i = 0; i < kernel.nwp; i++) {
        if (lo < kernel.wp[i].hi && kernel.wp[i].lo < hi) {
            goto out;
        }
    }
    void *grown = realloc(kernel.wp, (kernel.nwp + 1) * sizeof(*kernel.wp));
    if (grown == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    kernel.wp = grown;
    rc = wp_register(lo, hi);
    if (rc == 0) {
        kernel.wp[kernel.nwp].lo = lo;
        kernel.wp[kernel.nwp].hi = hi;
        kernel.nwp++;
    }
out:
    pthread_mutex_unlock(&kernel.lock);
    return rc;
}

static void kernel_unprotect(uintptr_t lo, uintptr_t hi)
{
    pthread_mutex_lock(&kernel.lock);
    for (size_t i = 0; i < kernel.nwp; i++) {
        if (kernel.wp[i].lo == lo && kernel.wp[i].hi == hi) {
            wp_unregister(lo, hi);
            kernel.wp[i] = kernel.wp[--kernel.nwp];
            break;
        }
    }
    pthread_mutex_unlock(&kernel.lock);
}

static const char *mode_name(loom_ckpt_track_mode_t mode)
{
    switch (mode) {
    case LOOM_CKPT_TRACK_WRITES: return "writes";
    case LOOM_CKPT_TRACK_MARKS: return "marks";
    case LOOM_CKPT_TRACK_NONE: return "none";
    default: return "auto";
    }
}

loom_status_t loom_ckpt_track_create(loom_ckpt_track_mode_t mode,
                                     loom_ckpt_track_t **track_p)
{
    loom_ckpt_track_t *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    t->pid = getpid();
    t->mode = mode;
    if (mode == LOOM_CKPT_TRACK_AUTO || mode == LOOM_CKPT_TRACK_WRITES) {
        const char *why = NULL;
        if (kernel_acquire(&why) == 0) {
            t->mode = LOOM_CKPT_TRACK_WRITES;
        } else {
            t->mode = LOOM_CKPT_TRACK_NONE;
            if (mode == LOOM_CKPT_TRACK_WRITES) {
                loom_warn("ckpt", "cannot track writes (%s): every save hashes "
                          "every chunk", why);
            } else {
                loom_info("ckpt", "cannot track writes (%s): every save hashes "
                          "every chunk", why);
            }
        }
    }
    loom_debug("ckpt", "change tracking: %s", mode_name(t->mode));
    *track_p = t;
    return LOOM_OK;
}

loom_ckpt_track_mode_t loom_ckpt_track_mode(const loom_ckpt_track_t *t)
{
    return t->mode;
}

loom_status_t loom_ckpt_track_add(loom_ckpt_track_t *t, void *ptr, size_t size,
                                  uint64_t chunk_size)
{
    track_region_t *grown = realloc(t->regions, (t->nregions + 1) * sizeof(*grown));
    if (grown == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    t->regions = grown;
    track_region_t *r = &t->regions[t->nregions];
    memset(r, 0, sizeof(*r));
    r->ptr = (uintptr_t)ptr;
    r->size = size;
    r->chunk_size = chunk_size;
    r->nchunks = (size_t)(size / chunk_size + (size % chunk_size != 0));
    r->changed = malloc(r->nchunks ? r->nchunks : 1);
    r->cand = calloc(r->nchunks ? r->nchunks : 1, 1);
    if (r->changed == NULL || r->cand == NULL) {
        free(r->changed);
        free(r->cand);
        return LOOM_ERR_NO_MEMORY;
    }
    memset(r->changed, 1, r->nchunks);
    if (t->mode == LOOM_CKPT_TRACK_WRITES) {
        const uintptr_t ps = (uintptr_t)page_size();
        uintptr_t lo = (r->ptr + ps - 1) / ps * ps, hi = (r->ptr + size) / ps * ps;
        int rc = lo < hi ? kernel_protect(lo, hi) : -ERANGE;
        if (rc == 0) {
            r->lo = lo;
            r->hi = hi;
        } else {
            loom_debug("ckpt", "region %zu: writes not tracked (%s); its chunks "
                       "are hashed at every save", t->nregions, strerror(-rc));
        }
    }
    t->nregions++;
    return LOOM_OK;
}

static void mark(track_region_t *r, uint64_t offset, uint64_t len)
{
    if (len == 0 || offset >= r->size) {
        return;
    }
    uint64_t end = len > r->size - offset ? r->size : offset + len;
    for (uint64_t c = offset / r->chunk_size; c <= (end - 1) / r->chunk_size; c++) {
        r->changed[c] = 1;
    }
}

void loom_ckpt_track_touch(loom_ckpt_track_t *t, size_t region, uint64_t offset,
                           uint64_t len)
{
    mark(&t->regions[region], offset, len);
}

void loom_ckpt_track_all(loom_ckpt_track_t *t)
{
    for (size_t i = 0; i < t->nregions; i++) {
        memset(t->regions[i].changed, 1, t->regions[i].nchunks);
        /* Our own writes (a restore) say nothing of the application's:
         * the next scan protects again without judging density. */
        t->regions[i].armed = 0;
        t->regions[i].unarmed = 0;
    }
}

/* The pages of r written since the last scan become changed chunks, and
 * are protected again; the count of pages written.  On any failure the
 * region stops being tracked and is all changed. */
static uint64_t collect_writes(track_region_t *r)
{
    struct page_region vec[256];
    uintptr_t at = r->lo;
    uint64_t pages = 0;
    while (at < r->hi) {
        long n = wp_scan(&at, r->hi, vec, sizeof(vec) / sizeof(vec[0]));
        if (n < 0) {
            loom_warn("ckpt", "cannot read which pages were written (%s): the "
                      "region at %p is hashed whole from now on", strerror((int)-n),
                      (void *)r->ptr);
            kernel_unprotect(r->lo, r->hi);
            r->lo = r->hi = 0;
            break;
        }
        for (long i = 0; i < n; i++) {
            mark(r, vec[i].start - r->ptr, vec[i].end - vec[i].start);
            pages += (vec[i].end - vec[i].start) / (uint64_t)page_size();
        }
    }
    return pages;
}

/* Ends the protection of r's pages until it is armed again. */
static void wp_pause(track_region_t *r)
{
    struct uffdio_writeprotect wp = { .range = { .start = r->lo, .len = r->hi - r->lo },
                                      .mode = 0 };
    pthread_mutex_lock(&kernel.lock);
    int rc = ioctl(kernel.uffd, UFFDIO_WRITEPROTECT, &wp);
    pthread_mutex_unlock(&kernel.lock);
    if (rc != 0) {
        r->unarmed = 0;     /* still protected: keep tracking */
    }
}

/* Tracking a region that the application rewrites whole between saves
 * costs a fault per page and saves no hashing: when more than half its
 * pages were written, it goes unprotected and hashed whole for 1, 2,
 * 4, ... up to 64 saves, then is protected for one interval to look
 * again.  A region that turns sparse is tracked from its next look on. */
enum { DENSE_BACKOFF_MAX = 64 };

static void collect_region(track_region_t *r)
{
    if (!r->armed) {
        /* Never protected: every page reads as written.  The first scan
         * protects them; the first save hashes everything anyway. */
        mark(r, 0, r->size);
        (void)collect_writes(r);
        r->armed = 1;
        return;
    }
    if (r->unarmed > 0) {
        /* Unprotected since the last save: any page may have changed.  The
         * scan at the last paused save protects everything again. */
        mark(r, 0, r->size);
        if (--r->unarmed == 0) {
            (void)collect_writes(r);
        }
        return;
    }
    uint64_t written = collect_writes(r);
    if (r->lo == r->hi) {
        mark(r, 0, r->size);    /* the scan failed */
        return;
    }
    /* The partial pages at either end are not protected. */
    mark(r, 0, r->lo - r->ptr);
    mark(r, r->hi - r->ptr, r->ptr + r->size - r->hi);
    if (written * 2 > (r->hi - r->lo) / (uintptr_t)page_size()) {
        r->backoff = r->backoff == 0 ? 1
                   : r->backoff * 2 > DENSE_BACKOFF_MAX ? DENSE_BACKOFF_MAX
                   : r->backoff * 2;
        r->unarmed = r->backoff;
        loom_debug("ckpt", "region at %p: %" PRIu64 " of %zu pages written; "
                   "hashed whole for the next %u saves", (void *)r->ptr, written,
                   (size_t)((r->hi - r->lo) / (uintptr_t)page_size()), r->backoff);
        wp_pause(r);
    } else {
        r->backoff = 0;
    }
}

void loom_ckpt_track_collect(loom_ckpt_track_t *t)
{
    if (t->mode == LOOM_CKPT_TRACK_WRITES && t->pid != getpid()) {
        /* A child after fork: the protection belongs to the parent. */
        t->mode = LOOM_CKPT_TRACK_NONE;
        for (size_t i = 0; i < t->nregions; i++) {
            t->regions[i].lo = t->regions[i].hi = 0;
        }
    }
    for (size_t i = 0; i < t->nregions; i++) {
        track_region_t *r = &t->regions[i];
        if (t->mode == LOOM_CKPT_TRACK_NONE ||
            (t->mode == LOOM_CKPT_TRACK_WRITES && r->lo == r->hi)) {
            mark(r, 0, r->size);
        } else if (t->mode == LOOM_CKPT_TRACK_WRITES) {
            collect_region(r);
        }
        for (size_t c = 0; c < r->nchunks; c++) {
            r->cand[c] |= r->changed[c];
        }
        memset(r->changed, 0, r->nchunks);
    }
}

int loom_ckpt_track_candidate(const loom_ckpt_track_t *t, size_t region,
                              size_t chunk)
{
    const track_region_t *r = &t->regions[region];
    return chunk >= r->nchunks || r->cand[chunk];
}

void loom_ckpt_track_settle(loom_ckpt_track_t *t, int committed)
{
    for (size_t i = 0; committed && i < t->nregions; i++) {
        memset(t->regions[i].cand, 0, t->regions[i].nchunks);
    }
}

void loom_ckpt_track_destroy(loom_ckpt_track_t *t)
{
    if (t == NULL) {
        return;
    }
    for (size_t i = 0; i < t->nregions; i++) {
        if (t->regions[i].lo != t->regions[i].hi && t->pid == getpid()) {
            kernel_unprotect(t->regions[i].lo, t->regions[i].hi);
        }
        free(t->regions[i].changed);
        free(t->regions[i].cand);
    }
    if (t->mode == LOOM_CKPT_TRACK_WRITES && t->pid == getpid()) {
        kernel_release();
    }
    free(t->regions);
    free(t);
}
