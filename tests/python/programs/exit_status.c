/* Test program for tests/python: `exit_status MODE`
 *   ok        every rank prints "result rank=R size=N" and exits 0
 *   fail      rank 1 returns 3 from main after MPI_Finalize
 *   abort     rank 0 calls MPI_Abort(MPI_COMM_WORLD, 7)
 *   deadlock  every rank posts a receive nobody sends (the simulator detects it)
 *   hang      rank 0 spins forever outside MPI (only a timeout ends it) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "ok";
  if (strcmp(mode, "abort") == 0 && rank == 0) MPI_Abort(MPI_COMM_WORLD, 7);
  if (strcmp(mode, "deadlock") == 0) {
    int x;
    MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (strcmp(mode, "hang") == 0 && rank == 0) {
    volatile unsigned long spin = 0;
    for (;;) ++spin;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("result rank=%d size=%d\n", rank, size);
  MPI_Finalize();
  return strcmp(mode, "fail") == 0 && rank == 1 ? 3 : 0;
}
