/* Seed 001 sec. 3.4.2, Figure 3.6: bi-directional latency. Both ranks send SIZE bytes to
 * each other in every iteration: one-sided with MPI_Put between two MPI_Win_fence calls,
 * two-sided with MPI_Isend, MPI_Irecv and MPI_Waitall. The time per iteration is reported.
 *
 *   bidir SIZES [ITERS]        (2 ranks)
 * Rows: bidir,<design>,<lock>,put_fence_<size>,<us>,us and
 *       bidir,twosided,<lock>,isend_irecv_<size>,<us>,us */
#include "common.h"

/* a size of 0 times the synchronization alone (no put/get is issued) */

#define USAGE "bidir SIZES [ITERS]"

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  int rank, size;
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (argc < 2 || size != 2) usage_exit(rank, USAGE " on 2 ranks");
  long sizes[64];
  const int nsizes = parse_list(argv[1], sizes, 64, "SIZES", rank, USAGE);
  const long iters = argc > 2 ? parse_positive(argv[2], "ITERS", rank, USAGE) : 100;
  long max = 1;
  for (int i = 0; i < nsizes; ++i) max = sizes[i] > max ? sizes[i] : max;
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  char* sbuf = malloc((size_t)max);
  char* rbuf = malloc((size_t)max);
  memset(sbuf, rank + 1, (size_t)max);
  const int peer = 1 - rank;
  const long warmup = iters / 10 + 2;
  for (int s = 0; s < nsizes; ++s) {
    const int n = (int)sizes[s];
    char param[64];
    /* one-sided */
    memset(mem, 0, (size_t)max);
    OK(MPI_Win_fence(0, win));
    double t0 = 0;
    for (long i = 0; i < warmup + iters; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
      if (n > 0) OK(MPI_Put(sbuf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win));
      OK(MPI_Win_fence(0, win));
    }
    double t = MPI_Wtime() - t0;
    if (n > 0 && mem[n - 1] != peer + 1) {
      fprintf(stderr, "bidir: rank %d's window holds %d, not %d\n", rank, mem[n - 1], peer + 1);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0) {
      snprintf(param, sizeof param, "put_fence_%d", n);
      row("bidir", param, t * 1e6 / (double)iters, "us");
    }
    /* two-sided */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (long i = 0; i < warmup + iters; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
      MPI_Request r[2];
      OK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &r[0]));
      OK(MPI_Isend(sbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &r[1]));
      OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    }
    t = MPI_Wtime() - t0;
    if (rank == 0) {
      snprintf(param, sizeof param, "isend_irecv_%d", n);
      row_as("bidir", "twosided", param, t * 1e6 / (double)iters, "us");
    }
    OK(MPI_Win_fence(0, win));
  }
  free(sbuf);
  free(rbuf);
  OK(MPI_Win_free(&win));
  OK(MPI_Finalize());
  return 0;
}
