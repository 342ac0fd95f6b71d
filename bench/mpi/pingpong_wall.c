/* MPI_Send/MPI_Recv ping-pong between ranks 0 and 1: `iterations` round trips
 * (argv[1], default 10000) of `bytes` bytes (argv[2], default 8). Plain MPI, built by
 * both twinfab-mpicc and SimGrid's smpicc so that bench/smpi_compare.sh can time both
 * simulators on the same program. Rank 0 prints
 * the simulated one-way latency (MPI_Wtime), which should be similar on equivalent
 * platforms. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long iterations = argc > 1 ? atol(argv[1]) : 10000;
  const long bytes = argc > 2 ? atol(argv[2]) : 8;
  if (iterations < 0 || bytes < 0 || bytes > (1L << 30)) {
    if (rank == 0) fprintf(stderr, "usage: pingpong_wall [ITERATIONS >= 0] [BYTES 0..2^30]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* buf = calloc((size_t)bytes + 1, 1);
  const double start = MPI_Wtime();
  for (long i = 0; i < iterations; ++i) {
    if (rank == 0) {
      MPI_Send(buf, (int)bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0 && iterations > 0)
    printf("simulated one-way latency (%ld B): %.3f us\n", bytes, elapsed * 1e6 / (2.0 * (double)iterations));
  free(buf);
  MPI_Finalize();
  return 0;
}
