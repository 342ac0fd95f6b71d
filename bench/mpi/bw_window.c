/* osu_bw-style MPI bandwidth between ranks 0 and 1: `rounds` times, rank 0 posts a
 * window of `window` MPI_Isend of `size` bytes, rank 1 as many MPI_Irecv, and rank 1
 * answers each window with a 4-byte message. Rank 0 prints the bandwidth in MB/s
 * (10^6 bytes per second of MPI_Wtime: simulated time in the simulator).
 *
 *   bw_window [size=65536] [window=64] [rounds=20]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long size = argc > 1 ? atol(argv[1]) : 65536;
  const int window = argc > 2 ? atoi(argv[2]) : 64;
  const int rounds = argc > 3 ? atoi(argv[3]) : 20;
  char* buf = malloc((size_t)size * (size_t)window + 1);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)window);
  int ack = 0;
  double start = 0;
  for (int r = -1; r < rounds; ++r) {  /* round -1 warms up (connections, caches) */
    if (r == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    if (rank == 0) {
      for (int i = 0; i < window; ++i)
        MPI_Isend(buf + (size_t)i * (size_t)size, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &requests[i]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      for (int i = 0; i < window; ++i)
        MPI_Irecv(buf + (size_t)i * (size_t)size, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &requests[i]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0)
    printf("bandwidth: %.1f MB/s (%ld-byte messages, window %d, %d rounds, %.3f ms)\n",
           (double)size * window * rounds / elapsed / 1e6, size, window, rounds, elapsed * 1e3);
  free(requests);
  free(buf);
  MPI_Finalize();
  return 0;
}
