// libtwinfab-mpi.so.0: the MPI C API. The bindings come from twinfab_mpi_capi (linked
// whole); this file only gives the shared library a source of its own.
#include "mpi/capi/mpi.h"
