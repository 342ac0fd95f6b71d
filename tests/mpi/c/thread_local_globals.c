/* A program with thread-local variables. The linker relaxes its accesses to them to
 * offsets in a main program's thread block; in a rank's copy under twinfab sim they
 * would read and write the launcher's own thread-local data (this read 0, not 3, before
 * the launcher refused such programs). The testlist checks the refusal. */
#include "mpitest.h"

static _Thread_local int per_thread = 3;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(per_thread == 3, "thread-local initialised to %d", per_thread);
  per_thread = rank;
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(per_thread == rank, "thread-local is %d, expected %d", per_thread, rank);
  MPI_Finalize();
  return 0;
}
