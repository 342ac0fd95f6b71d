/* Calling MPI before MPI_Init aborts with a clear message (checked by the test's
 * expected output: "MPI_Send called before MPI_Init"). */
#include "mpitest.h"

int main(int argc, char** argv) {
  int v = 1;
  MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
