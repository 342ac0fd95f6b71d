/* peers: rank 0 exchanges 8-byte ping-pongs with ranks 1 .. P in turn (round robin),
 * so its HCA serves P connections; with more connections than the HCA caches QP
 * contexts for, every message misses (seed 004 sec. 3.2.1). One untimed round first
 * makes every connection (on demand; see main). Rank 0 prints
 *   result peers=<P> latency_us=<half the mean round trip>
 * Usage: peers ROUNDS [BYTES] (run with P + 1 ranks, one per host) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void round_robin(int rank, int size, char* buf, int bytes) {
  if (rank == 0) {
    for (int p = 1; p < size; ++p) {
      MPI_Send(buf, bytes, MPI_CHAR, p, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_CHAR, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else {
    MPI_Recv(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long rounds = argc > 1 ? atol(argv[1]) : 0;
  const int bytes = argc > 2 ? atoi(argv[2]) : 8;
  if (size < 2 || rounds < 1 || bytes < 1 || bytes > 65536) {
    if (rank == 0) fprintf(stderr, "usage: peers ROUNDS [BYTES 1..65536] (at least 2 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char buf[65536] = {0};
  // Connections first, the barrier's too: with on-demand connections (the default above
  // 64 ranks) a barrier's new connections finish their hand-shakes after it returns,
  // which cost the first timed round 9 us a message instead of 3 (32 ranks). Hence a
  // barrier, the untimed round, and a barrier over connections that exist.
  MPI_Barrier(MPI_COMM_WORLD);
  round_robin(rank, size, buf, bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long r = 0; r < rounds; ++r) round_robin(rank, size, buf, bytes);
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0)
    printf("result peers=%d latency_us=%.4f\n", size - 1, elapsed * 1e6 / (2.0 * (double)rounds * (size - 1)));
  MPI_Finalize();
  return 0;
}
