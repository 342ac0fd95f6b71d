/* OSU-style point-to-point figures between ranks 0 and 1 (osu_latency, osu_bw,
 * osu_bibw's method): `osu_pt2pt latency|bw|bibw BYTES [ITERATIONS]`.
 *   latency: ping-pong, half the mean round trip after a warm-up;
 *   bw:      rank 0 sends windows of 64 messages, rank 1 answers each window with a
 *            4-byte ack; bytes moved / time;
 *   bibw:    both send a window to each other at once; bytes moved both ways / time.
 * Prints `result test=T bytes=B value=V` (us for latency, MB/s = 10^6 B/s otherwise). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Warm-up rounds before timing. Latency: 100, as osu_latency's skip for small
 * messages, so that an adaptive path (the RDMA fast path after 10 packets from a peer)
 * is set up before the clock starts. Bandwidth: 10 windows. */
enum { kWindow = 64, kWarmup = 10, kLatencyWarmup = 100 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || size != 2) {
    if (rank == 0) fprintf(stderr, "usage: osu_pt2pt latency|bw|bibw BYTES [ITERATIONS] (2 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* test = argv[1];
  const int bytes = atoi(argv[2]);
  const int iterations = argc > 3 ? atoi(argv[3]) : 100;
  const int peer = 1 - rank;
  char* out = malloc((size_t)bytes * kWindow + 1);
  char* in = malloc((size_t)bytes * kWindow + 1);
  memset(out, rank + 1, (size_t)bytes * kWindow + 1);
  MPI_Request requests[2 * kWindow];
  double start = 0, value = 0;
  if (strcmp(test, "latency") == 0) {
    for (int i = 0; i < kLatencyWarmup + iterations; ++i) {
      if (i == kLatencyWarmup) start = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(out, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(in, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(in, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      }
    }
    value = (MPI_Wtime() - start) * 1e6 / (2.0 * iterations);
  } else if (strcmp(test, "bw") == 0 || strcmp(test, "bibw") == 0) {
    const int both = strcmp(test, "bibw") == 0;
    for (int i = 0; i < kWarmup + iterations; ++i) {
      if (i == kWarmup) {
        MPI_Barrier(MPI_COMM_WORLD);
        start = MPI_Wtime();
      }
      int n = 0;
      if (rank == 1 || both)
        for (int w = 0; w < kWindow; ++w)
          MPI_Irecv(in + (size_t)w * bytes, bytes, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[n++]);
      if (rank == 0 || both)
        for (int w = 0; w < kWindow; ++w)
          MPI_Isend(out + (size_t)w * bytes, bytes, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[n++]);
      MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
      if (!both) {  /* the window's end, as osu_bw: the receiver acknowledges */
        if (rank == 1) MPI_Send(out, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
        else MPI_Recv(in, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
    const double seconds = MPI_Wtime() - start;
    value = (double)bytes * kWindow * iterations * (both ? 2 : 1) / seconds / 1e6;
  } else {
    if (rank == 0) fprintf(stderr, "osu_pt2pt: unknown test '%s' (latency, bw, bibw)\n", test);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) printf("result test=%s bytes=%d value=%.3f\n", test, bytes, value);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
