/* The functions bench/mpich/harness.h maps MPICH's test utilities' intercommunicator
 * calls onto (see there), and MTestGetIntercomm and MTestGetComm: no
 * intercommunicators in twinfab. */
#include <mpi.h>

int MTestGetIntracomm(MPI_Comm* comm, int min_size); /* MPICH's, in util/mtest.c */

int twinfab_harness_no_intercomm(MPI_Comm local_comm, MPI_Comm* newintercomm) {
  /* A communicator the caller can free as it frees the intercommunicator: a dup of
   * its local group (collective over it, as MPI_Intercomm_create is). Only
   * MTestGetIntracommGeneral's "merged intercommunicator" case calls this, and the
   * merge that follows gives MPI_COMM_NULL. */
  return MPI_Comm_dup(local_comm, newintercomm);
}

int twinfab_harness_null_comm(MPI_Comm* newcomm) {
  *newcomm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

/* MPICH's signature (test/mpi/include/mpitest.h). */
int MTestGetIntercomm(MPI_Comm* comm, int* isLeftGroup, int min_size) {
  (void)min_size;
  *comm = MPI_COMM_NULL;
  *isLeftGroup = 0;
  return 0; /* no (more) intercommunicators */
}

/* MPICH's MTestGetComm goes through the intracommunicators, then the
 * intercommunicators; here there are only the first. */
int MTestGetComm(MPI_Comm* comm, int min_size) {
  return MTestGetIntracomm(comm, min_size);
}
