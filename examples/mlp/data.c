/*
 * IDX reading.  An IDX file is a big-endian header (magic 0x000008TD: type
 * T=8 for unsigned bytes, D dimensions, then D sizes) followed by the data.
 */
#include "data.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define IDX_UBYTE 0x08

typedef struct idx_file {
    gzFile      gz;
    char        path[4096];
    int         dims[3];
    int         num_dims;
} idx_file_t;

static mlp_status_t idx_open(const char *dir, const char *prefix, const char *kind,
                             idx_file_t *f, mlp_error_t *err)
{
    int fd;

    snprintf(f->path, sizeof(f->path), "%s/%s-%s-ubyte.gz", dir, prefix, kind);
    /* open() rather than gzopen(): zlib does not promise errno. */
    fd = open(f->path, O_RDONLY);
    if (fd < 0) {
        return mlp_fail(err, MLP_ERR_IO, "cannot open %s: %s; install Debian's "
                        "dataset-fashion-mnist or pass --data DIR", f->path, strerror(errno));
    }
    f->gz = gzdopen(fd, "rb");
    if (f->gz == NULL) {
        close(fd);
        return mlp_fail(err, MLP_ERR_NOMEM, "cannot start reading %s: out of memory", f->path);
    }
    return MLP_OK;
}

static mlp_status_t idx_read(idx_file_t *f, void *buf, size_t len, mlp_error_t *err)
{
    size_t done = 0, piece;
    int n, errnum;

    /* gzread takes an unsigned int: read in pieces. */
    while (done < len) {
        piece = len - done < ((size_t)1 << 30) ? len - done : (size_t)1 << 30;
        n = gzread(f->gz, (char *)buf + done, (unsigned)piece);
        if (n <= 0) {
            return mlp_fail(err, MLP_ERR_IO, "%s: %s after %zu of %zu bytes; the file is "
                            "damaged (reinstall dataset-fashion-mnist)", f->path,
                            n < 0 ? gzerror(f->gz, &errnum) : "unexpected end", done, len);
        }
        done += (size_t)n;
    }
    return MLP_OK;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Check the magic and read the sizes; expect_dims is 3 for images, 1 for
 * labels. */
static mlp_status_t idx_header(idx_file_t *f, int expect_dims, mlp_error_t *err)
{
    uint8_t head[4 + 4 * 3];
    mlp_status_t st;
    int i;

    st = idx_read(f, head, 4 + 4 * (size_t)expect_dims, err);
    if (st != MLP_OK) {
        return st;
    }
    if (head[0] != 0 || head[1] != 0 || head[2] != IDX_UBYTE || head[3] != expect_dims) {
        return mlp_fail(err, MLP_ERR_IO, "%s is not an IDX file of unsigned bytes with %d "
                        "dimension(s) (magic %02x%02x%02x%02x)", f->path, expect_dims,
                        head[0], head[1], head[2], head[3]);
    }
    for (i = 0; i < expect_dims; ++i) {
        uint32_t d = be32(head + 4 + 4 * i);

        if (d == 0 || d > (1u << 28)) {
            return mlp_fail(err, MLP_ERR_IO, "%s: dimension %d is %u, not a plausible size",
                            f->path, i, d);
        }
        f->dims[i] = (int)d;
    }
    f->num_dims = expect_dims;
    return MLP_OK;
}

static void idx_close(idx_file_t *f)
{
    if (f->gz != NULL) {
        gzclose(f->gz);
        f->gz = NULL;
    }
}

static mlp_status_t dataset_alloc(int count, int pixels, mlp_dataset_t **ds_p, mlp_error_t *err)
{
    mlp_dataset_t *ds = calloc(1, sizeof(*ds));

    if (ds != NULL) {
        ds->count = count;
        ds->pixels = pixels;
        ds->images = malloc((size_t)count * (size_t)pixels);
        ds->labels = malloc((size_t)count);
    }
    if (ds == NULL || ds->images == NULL || ds->labels == NULL) {
        mlp_dataset_destroy(ds);
        return mlp_fail(err, MLP_ERR_NOMEM, "cannot allocate %d images of %d pixels", count,
                        pixels);
    }
    *ds_p = ds;
    return MLP_OK;
}

static mlp_status_t check_labels(const idx_file_t *f, const mlp_dataset_t *ds, mlp_error_t *err)
{
    int i;

    for (i = 0; i < ds->count; ++i) {
        if (ds->labels[i] >= MLP_NUM_CLASSES) {
            return mlp_fail(err, MLP_ERR_IO, "%s: label %d of image %d is not a class 0-9",
                            f->path, ds->labels[i], i);
        }
    }
    return MLP_OK;
}

/* Both headers read: allocate and read the first `count` records. */
static mlp_status_t dataset_read(idx_file_t *img, idx_file_t *lab, long limit,
                                 mlp_dataset_t **ds_p, mlp_error_t *err)
{
    mlp_dataset_t *ds;
    mlp_status_t st;
    int count = img->dims[0];

    if (lab->dims[0] != img->dims[0]) {
        return mlp_fail(err, MLP_ERR_IO, "%s holds %d labels but %s holds %d images", lab->path,
                        lab->dims[0], img->path, img->dims[0]);
    }
    if (limit > 0 && limit < count) {
        count = (int)limit;
    }
    st = dataset_alloc(count, img->dims[1] * img->dims[2], &ds, err);
    if (st != MLP_OK) {
        return st;
    }
    st = idx_read(img, ds->images, (size_t)count * (size_t)ds->pixels, err);
    if (st == MLP_OK) {
        st = idx_read(lab, ds->labels, (size_t)count, err);
    }
    if (st == MLP_OK) {
        st = check_labels(lab, ds, err);
    }
    if (st != MLP_OK) {
        mlp_dataset_destroy(ds);
        return st;
    }
    *ds_p = ds;
    return MLP_OK;
}

mlp_status_t mlp_dataset_load(const char *dir, const char *prefix, long limit,
                              mlp_dataset_t **ds_p, mlp_error_t *err)
{
    idx_file_t img = { 0 }, lab = { 0 };
    mlp_status_t st;

    st = idx_open(dir, prefix, "images-idx3", &img, err);
    if (st == MLP_OK) {
        st = idx_open(dir, prefix, "labels-idx1", &lab, err);
    }
    if (st == MLP_OK) {
        st = idx_header(&img, 3, err);
    }
    if (st == MLP_OK) {
        st = idx_header(&lab, 1, err);
    }
    if (st == MLP_OK) {
        st = dataset_read(&img, &lab, limit, ds_p, err);
    }
    idx_close(&img);
    idx_close(&lab);
    return st;
}

mlp_status_t mlp_dataset_bcast(mlp_dataset_t **ds_p, int root, MPI_Comm comm, mlp_error_t *err)
{
    int rank, shape[2] = { 0, 0 };
    mlp_dataset_t *ds = *ds_p;
    mlp_status_t st;

    MPI_Comm_rank(comm, &rank);
    if (rank == root) {
        shape[0] = ds->count;
        shape[1] = ds->pixels;
    }
    MPI_Bcast(shape, 2, MPI_INT, root, comm);
    if (rank != root) {
        st = dataset_alloc(shape[0], shape[1], &ds, err);
        if (st != MLP_OK) {
            return st;  /* out of memory on one rank: the job ends anyway */
        }
    }
    /* 47 MB at most: below MPI's int count limit. */
    MPI_Bcast(ds->images, shape[0] * shape[1], MPI_UINT8_T, root, comm);
    MPI_Bcast(ds->labels, shape[0], MPI_UINT8_T, root, comm);
    *ds_p = ds;
    return MLP_OK;
}

void mlp_dataset_destroy(mlp_dataset_t *ds)
{
    if (ds != NULL) {
        free(ds->images);
        free(ds->labels);
        free(ds);
    }
}

void mlp_dataset_pixel_stats(const mlp_dataset_t *ds, double *mean_p, double *std_p)
{
    size_t i, n = (size_t)ds->count * (size_t)ds->pixels;
    unsigned long long hist[256] = { 0 };
    double sum = 0, sq = 0, mean;

    /* A histogram keeps the sums exact and the order irrelevant. */
    for (i = 0; i < n; ++i) {
        ++hist[ds->images[i]];
    }
    for (i = 0; i < 256; ++i) {
        sum += (double)hist[i] * (double)i;
    }
    mean = sum / (double)n;
    for (i = 0; i < 256; ++i) {
        sq += (double)hist[i] * ((double)i - mean) * ((double)i - mean);
    }
    *mean_p = mean;
    *std_p = sqrt(sq / (double)n);
}
