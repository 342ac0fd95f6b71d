/* Force-included (-include) into MPICH's test utilities util/mtest.c and
 * util/mtest_common.c when bench/mpich_tests.sh builds them against twinfab: maps
 * the calls those utilities make to MPI features twinfab does not have onto
 * outcomes the utilities already handle, so that they build unmodified.
 *
 * - Intercommunicators (MPI_Intercomm_create/merge): twinfab has none.
 *   MTestGetIntercomm and MTestGetComm (renamed here, with the call between them;
 *   harness.c gives the real names) then give no intercommunicator: the first says
 *   "no more intercommunicators" at once, the second goes through the
 *   intracommunicators only. The intracommunicator that
 *   MTestGetIntracommGeneral would make by merging an intercommunicator, and the one
 *   it would make with MPI_Comm_create_group, come out as MPI_COMM_NULL, which every
 *   test using these loops skips (as MPICH's own utilities do for a world too small).
 * - MPI_UNIVERSE_SIZE: only MTestSpawnPossible reads it, for the spawn tests, which
 *   are not run.
 * None of this is part of twinfab's library: a program that calls these functions
 * does not build against twinfab's mpi.h, which is what the script reports for the
 * tests that do. */
#ifndef TWINFAB_MPICH_HARNESS_H
#define TWINFAB_MPICH_HARNESS_H

#include <mpi.h>

int twinfab_harness_no_intercomm(MPI_Comm local_comm, MPI_Comm* newintercomm);
int twinfab_harness_null_comm(MPI_Comm* newcomm);

#define MPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm) \
  twinfab_harness_no_intercomm(local_comm, newintercomm)
#define MPI_Intercomm_merge(intercomm, high, newintracomm) twinfab_harness_null_comm(newintracomm)
#define MPI_Comm_create_group(comm, group, tag, newcomm) twinfab_harness_null_comm(newcomm)
#define MTestGetIntercomm mpich_MTestGetIntercomm_needs_intercommunicators
#define MTestGetComm mpich_MTestGetComm_needs_intercommunicators
#ifndef MPI_UNIVERSE_SIZE
#define MPI_UNIVERSE_SIZE MPI_KEYVAL_INVALID
#endif
#ifndef MPI_KEYVAL_INVALID
#define MPI_KEYVAL_INVALID 0x24000000
#endif

#endif
