/* A one-sided target that dies must end the job with an error, not leave its origin
 * waiting (issue 30, bad input): rank 1 exits (exit(3), no MPI_Finalize) once the
 * window exists, while rank 0 locks its window and puts into it in a loop ("lock"),
 * or enters a fence epoch with it ("fence"). On hardware the process manager (mpirun)
 * ends the job; in the simulator the launcher does. The run is expected to fail, and
 * quickly (hwlist `fails`: within 120 s; testlist exit=3), whatever the lock design
 * (TWINFAB_RMA_LOCK: the thread and event designs wait on agents at the target).
 *
 *   rma_target_dies lock|fence */
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(argc > 1 && (strcmp(argv[1], "lock") == 0 || strcmp(argv[1], "fence") == 0),
        "usage: rma_target_dies lock|fence");
  const int fence = strcmp(argv[1], "fence") == 0;
  long long* base = NULL;
  MPI_Win win;
  OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) exit(3);
  const long long value = 42;
  if (rank == 0) {
    /* Without the target this never completes; the job must be ended around it. */
    for (long i = 0; i < 1000000; ++i) {
      if (fence) {
        MPI_Win_fence(0, win);
        MPI_Put(&value, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, win);
        MPI_Win_fence(0, win);
      } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&value, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, win);
        MPI_Win_unlock(1, win);
      }
    }
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
