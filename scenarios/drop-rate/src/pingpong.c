/* pingpong: blocking MPI_Send/MPI_Recv round trips between ranks 0 and 1 for each
 * size given, `iterations` timed rounds after 10 warm-up rounds; rank 0 prints one
 * line per size:
 *   result bytes=<n> latency_us=<half the mean round trip> max_us=<slowest half round trip>
 * Usage: pingpong ITERATIONS SIZE... (sizes in bytes, 1 .. 16 MiB). Times are MPI_Wtime
 * (simulated time under twinfab sim). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 1 ? atol(argv[1]) : 0;
  if (size != 2 || argc < 3 || iterations < 1) {
    if (rank == 0) fprintf(stderr, "usage: pingpong ITERATIONS SIZE... (2 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int a = 2; a < argc; ++a) {
    const long n = atol(argv[a]);
    if (n < 1 || n > (16L << 20)) {
      if (rank == 0) fprintf(stderr, "pingpong: size %s is outside 1 .. 16 MiB\n", argv[a]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char* buf = calloc((size_t)n, 1);
    double slowest = 0, start = 0;
    for (long i = -10; i < iterations; ++i) {
      if (i == 0) start = MPI_Wtime();
      const double t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buf, (int)n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)n, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, (int)n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)n, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      }
      const double round = MPI_Wtime() - t0;
      if (i >= 0 && round > slowest) slowest = round;
    }
    const double elapsed = MPI_Wtime() - start;
    if (rank == 0)
      printf("result bytes=%ld latency_us=%.4f max_us=%.4f\n", n, elapsed * 1e6 / (2.0 * (double)iterations),
             slowest * 1e6 / 2.0);
    free(buf);
  }
  MPI_Finalize();
  return 0;
}
