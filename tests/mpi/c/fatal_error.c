/* Under the default MPI_ERRORS_ARE_FATAL an argument error ends the job with the
 * error class as exit status and a message naming the call and the argument. */
#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == size - 1) MPI_Send(&v, 1, MPI_INT, size + 4, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
