/* 8-byte MPI_Put + MPI_Win_flush from rank 0 into rank 1's window under a shared
 * lock_all epoch, `iterations` times (argv[1]); rank 1 waits in MPI_Barrier meanwhile.
 * Plain MPI, built by both twinfab-mpicc and SimGrid's smpicc so that
 * bench/smpi_rma_compare.sh can time both simulators on the same one-sided program.
 * Rank 0 prints the simulated time per put+flush (MPI_Wtime). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long iterations = argc > 1 ? atol(argv[1]) : 10000;
  char* base;
  MPI_Win win;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  MPI_Win_lock_all(0, win);
  const double start = MPI_Wtime();
  if (rank == 0) {
    for (long i = 0; i < iterations; ++i) {
      MPI_Put(buf, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, win);
      MPI_Win_flush(1, win);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && iterations > 0)
    printf("simulated put+flush: %.3f us\n", elapsed * 1e6 / (double)iterations);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
