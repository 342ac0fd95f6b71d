/* A handle of another MPI's encoding: MPICH's MPI_INT (0x4c000405), as a program compiled
 * with MPICH's mpi.h would pass it. The error names MPICH's encoding and says to rebuild. */
#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int v = 0;
  MPI_Send(&v, 1, (MPI_Datatype)0x4c000405, 0, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
