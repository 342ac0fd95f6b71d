/* Seed 001 sec. 3.4.2, Figure 3.5: one-sided "ping-pong" latency, and seed 003 sec. 4.2/4.3
 * (MPI_Put and MPI_Get latency on iWARP).
 *
 *   latency put|get SIZES [ITERS]       (2 ranks; SIZES like 8,1024,65536)
 *
 * put, as the seed: each iteration is two epochs of post/start/complete/wait; in the
 * first rank 0 puts SIZE bytes into rank 1, in the second rank 1 into rank 0. The time
 * per epoch (half an iteration) is the latency.
 * get: rank 0 gets SIZE bytes from rank 1 in one start/get/complete epoch that rank 1
 * exposes with post/wait; the time per epoch is the latency (the data has arrived when
 * MPI_Win_complete returns).
 * put-calls: as put, but rank 0 reports instead the average time per iteration (two
 * epochs) it spent in each call (rows put_<size>_in_start, _in_put, _in_complete,
 * _in_post, _in_wait): where an epoch's time goes.
 * Rows: latency,<design>,<lock>,put_<size>|get_<size>,<us>,us */
#include "common.h"

/* a size of 0 times the synchronization alone (no put/get is issued) */

#define USAGE "latency put|get|put-calls SIZES [ITERS]"

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  int rank, size;
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (argc < 3 || size != 2 ||
      (strcmp(argv[1], "put") != 0 && strcmp(argv[1], "get") != 0 && strcmp(argv[1], "put-calls") != 0))
    usage_exit(rank, USAGE " on 2 ranks");
  const int calls = strcmp(argv[1], "put-calls") == 0;
  const int is_put = calls || strcmp(argv[1], "put") == 0;
  static const char* call_names[5] = {"start", "put", "complete", "post", "wait"};
  long sizes[64];
  const int nsizes = parse_list(argv[2], sizes, 64, "SIZES", rank, USAGE);
  const long iters = argc > 3 ? parse_positive(argv[3], "ITERS", rank, USAGE) : 100;
  long max = 1;
  for (int i = 0; i < nsizes; ++i) max = sizes[i] > max ? sizes[i] : max;
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  char* buf = malloc((size_t)max);
  memset(buf, rank + 1, (size_t)max);
  memset(mem, rank + 1, (size_t)max);
  const int peer = 1 - rank;
  MPI_Group other = group_range(peer, peer);
  const long warmup = iters / 10 + 2;
  for (int s = 0; s < nsizes; ++s) {
    const int n = (int)sizes[s];
    double t0 = 0, in_call[5] = {0, 0, 0, 0, 0};
    for (long i = 0; i < warmup + iters; ++i) {
      if (i == warmup) {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        t0 = MPI_Wtime();
        memset(in_call, 0, sizeof in_call);
      }
      if (is_put) {
        if (rank == 0) {
          double c[6];
          c[0] = MPI_Wtime();
          OK(MPI_Win_start(other, 0, win));
          c[1] = MPI_Wtime();
          if (n > 0) OK(MPI_Put(buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win));
          c[2] = MPI_Wtime();
          OK(MPI_Win_complete(win));
          c[3] = MPI_Wtime();
          OK(MPI_Win_post(other, 0, win));
          c[4] = MPI_Wtime();
          OK(MPI_Win_wait(win));
          c[5] = MPI_Wtime();
          for (int k = 0; k < 5; ++k) in_call[k] += c[k + 1] - c[k];
        } else {
          OK(MPI_Win_post(other, 0, win));
          OK(MPI_Win_wait(win));
          OK(MPI_Win_start(other, 0, win));
          if (n > 0) OK(MPI_Put(buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win));
          OK(MPI_Win_complete(win));
        }
      } else if (rank == 0) {
        OK(MPI_Win_start(other, 0, win));
        if (n > 0) OK(MPI_Get(buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win));
        OK(MPI_Win_complete(win));
      } else {
        OK(MPI_Win_post(other, 0, win));
        OK(MPI_Win_wait(win));
      }
    }
    const double t = MPI_Wtime() - t0;
    if (rank == 0) {
      /* the data must be there: rank 1 filled its buffer with 2s */
      const char expect = 2;
      if (n > 0 && (is_put ? mem[n - 1] : buf[n - 1]) != expect) {
        fprintf(stderr, "latency: %s of %d bytes delivered %d, not %d\n", argv[1], n, is_put ? mem[n - 1] : buf[n - 1], expect);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      char param[64];
      snprintf(param, sizeof param, "%s_%d", is_put ? "put" : "get", n);
      if (!calls) row("latency", param, t * 1e6 / (double)(is_put ? 2 * iters : iters), "us");
      for (int k = 0; calls && k < 5; ++k) {
        snprintf(param, sizeof param, "put_%d_in_%s", n, call_names[k]);
        row("latency", param, in_call[k] * 1e6 / (double)iters, "us");
      }
    }
  }
  OK(MPI_Group_free(&other));
  free(buf);
  OK(MPI_Win_free(&win));
  OK(MPI_Finalize());
  return 0;
}
