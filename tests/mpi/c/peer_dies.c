/* A peer that dies must end the job with an error, not leave the others waiting:
 * rank 1 exits (exit(3), no MPI_Finalize) while rank 0 waits for a message from it.
 * On hardware the process manager (mpirun) ends the job; in the simulator the
 * launcher does. The run is expected to fail, and quickly (run_on_hardware.sh
 * --expect-failure; testlist exit=). */
#include <unistd.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) exit(3);
  if (rank == 0) {
    int value = 0;
    MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
