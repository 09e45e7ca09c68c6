/*
 * Debian's Open MPI development package omits this header, which
 * ompi/op/op.h includes.  Loom needs only its two conversions, which are
 * identities when a Fortran INTEGER is as wide as a C int; refuse to build
 * anywhere that is not so rather than convert wrongly.
 */
#ifndef LOOM_COMPAT_FINT_2_INT_H
#define LOOM_COMPAT_FINT_2_INT_H

#include "ompi_config.h"

#if OMPI_SIZEOF_FORTRAN_INTEGER != SIZEOF_INT
#error "Loom's fint_2_int.h supports only Fortran INTEGER of C int size"
#endif

#define OMPI_FINT_2_INT(a) (a)
#define OMPI_INT_2_FINT(a) (a)

#endif
