/* Built by Open MPI's mpicc (tests/mpi/c/CMakeLists.txt), not twinfab-mpicc: twinfab sim
 * must refuse it as "built against another MPI (Open MPI?)", not fail later on a handle. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("rank %d\n", rank);
  MPI_Finalize();
  return 0;
}
