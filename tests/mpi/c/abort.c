/* MPI_Abort ends the whole job with its error code, even with other ranks blocked. */
#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, v;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 42);
  MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
