/* Rank 2 returns 3 from main after a clean MPI_Finalize: the job's status is 3 and
 * twinfab sim names the rank. */
#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return rank == 2 ? 3 : 0;
}
