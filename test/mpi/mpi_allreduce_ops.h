/*
 * What the two halves of the mpi_allreduce_ops program share: the world,
 * and the bookkeeping of which calls Loom should take.
 */
#ifndef LOOM_TEST_MPI_ALLREDUCE_OPS_H
#define LOOM_TEST_MPI_ALLREDUCE_OPS_H

#include "loom_test.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern int world_rank, world_size;

typedef struct tally {
    unsigned long long calls, fallbacks;
} tally_t;

/* Whether Loom takes count elements of type (contiguous from the address). */
bool loom_takes(MPI_Datatype type, int count);

/* Count one call on world: what Loom should do with it. */
void tally_call(tally_t *tally, MPI_Datatype type, int count, bool commutative);

/* A 64-bit mixer, and the seed of one rank's input for (type, op). */
uint64_t mix(uint64_t x);
uint64_t input_seed(int rank, int ti, int oi);

/* malloc that aborts the job with a message when memory runs out. */
char *alloc_buf(size_t bytes);

/* User-defined ops and derived datatypes (mpi_allreduce_ops_user.c). */
void check_user_setup(void);
void check_user_commutative(void);
void check_user_noncommutative(void);
void check_derived(void);
void check_user_teardown(void);

#endif
