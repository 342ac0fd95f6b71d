/* The smallest MPI program: the install test builds it three ways (twinfab-mpicc,
 * pkg-config, find_package) and runs it under the installed twinfab sim. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("hello from %d ranks, sum %d\n", size, sum);
  MPI_Finalize();
  return sum == size * (size - 1) / 2 ? 0 : 1;
}
