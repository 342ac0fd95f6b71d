/* alltoall_stats: every rank sends one 8-byte message to every other rank (MPI_Alltoall),
 * `rounds` times, so that a fully connected pattern's resources are in place; rank 0
 * prints one line:
 *   result ranks=<n> seconds=<simulated time of the rounds>
 * Usage: alltoall_stats [ROUNDS=2]. The memory figures are the simulator's counters. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 2;
  long* out = calloc((size_t)size, sizeof(long));
  long* in = calloc((size_t)size, sizeof(long));
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int r = 0; r < rounds; ++r) MPI_Alltoall(out, 1, MPI_LONG, in, 1, MPI_LONG, MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("result ranks=%d seconds=%.9f\n", size, elapsed);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
