/* Seed 001 secs. 3.4.3 and 3.4.5-3.4.7, Figures 3.7, 3.8, 3.10, 3.11 and 3.12: the
 * bandwidth test and the tests built on it. Each epoch is MPI_Win_start, W operations of
 * SIZE bytes, MPI_Win_complete at the origin(s) and MPI_Win_post, MPI_Win_wait at the
 * target (rank 0 is the target, the other ranks are origins).
 *
 *   bandwidth bw put|get SIZES [W [ITERS]]              bandwidth by size (2 ranks)
 *   bandwidth overlap SIZE LOOPS [LOOP_US [W [ITERS]]]  LOOPS computation loops of LOOP_US
 *                                                       (default 1) after each put: time per
 *                                                       epoch (2 ranks)
 *   bandwidth skew SIZE LOOPS [LOOP_US [W [ITERS]]]     LOOPS loops of LOOP_US (default 10)
 *                                                       at the target between post and wait:
 *                                                       bandwidth (2 ranks)
 *   bandwidth multi SIZE [W [ITERS]]                    every rank but 0 puts into its own
 *                                                       part of rank 0's window: aggregate
 *                                                       bandwidth into rank 0 (N ranks)
 * LOOPS is a list (0,5,10). MB = 10^6 bytes, as in the seed. Rows:
 *   bandwidth,<design>,<lock>,put_<size>|get_<size>,<MB/s>,MB/s
 *   overlap,<design>,<lock>,loops_<n>,<us>,us      skew,<...>,loops_<n>,<MB/s>,MB/s
 *   multi_origin,<design>,<lock>,origins_<n>,<MB/s>,MB/s */
#include "common.h"

/* a size of 0 times the synchronization alone (no put/get is issued) */

#define USAGE                                                                          \
  "bandwidth bw put|get SIZES [W [ITERS]] | overlap SIZE LOOPS [LOOP_US [W [ITERS]]] | " \
  "skew SIZE LOOPS [LOOP_US [W [ITERS]]] | multi SIZE [W [ITERS]]"

static int rank, nranks;

/* One measured run: returns the seconds per epoch at rank 0 (the target). */
static double run(MPI_Win win, char* buf, int n, int w, long iters, int is_put, double compute_after_op,
                  double target_skew) {
  MPI_Group target = group_range(0, 0), origins = group_range(1, nranks - 1);
  const long warmup = iters / 10 + 2;
  double t0 = 0;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) {
      OK(MPI_Barrier(MPI_COMM_WORLD));
      t0 = MPI_Wtime();
    }
    if (rank == 0) {
      OK(MPI_Win_post(origins, 0, win));
      compute_us(target_skew);
      OK(MPI_Win_wait(win));
    } else {
      const MPI_Aint disp = (MPI_Aint)(rank - 1) * n;
      OK(MPI_Win_start(target, 0, win));
      for (int k = 0; k < w; ++k) {
        if (n > 0 && is_put)
          OK(MPI_Put(buf, n, MPI_BYTE, 0, disp, n, MPI_BYTE, win));
        else if (n > 0)
          OK(MPI_Get(buf + (size_t)k * n, n, MPI_BYTE, 0, disp, n, MPI_BYTE, win));
        compute_us(compute_after_op);
      }
      OK(MPI_Win_complete(win));
    }
  }
  /* rank 0 ends an epoch last (its wait returns after every origin's complete) */
  const double t = MPI_Wtime() - t0;
  OK(MPI_Group_free(&target));
  OK(MPI_Group_free(&origins));
  return t / (double)iters;
}

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  if (argc < 3 || nranks < 2) usage_exit(rank, USAGE);
  const char* mode = argv[1];
  long sizes[64], loops[64];
  int nsizes = 1, nloops = 1, is_put = 1, a = 2;
  double loop_us = 0;
  if (strcmp(mode, "bw") == 0) {
    if (argc < 4 || nranks != 2 || (strcmp(argv[2], "put") != 0 && strcmp(argv[2], "get") != 0)) usage_exit(rank, USAGE);
    is_put = strcmp(argv[2], "put") == 0;
    nsizes = parse_list(argv[3], sizes, 64, "SIZES", rank, USAGE);
    a = 4;
    loops[0] = 0;
  } else if (strcmp(mode, "overlap") == 0 || strcmp(mode, "skew") == 0) {
    if (argc < 4 || nranks != 2) usage_exit(rank, USAGE);
    sizes[0] = parse_count(argv[2], "SIZE", rank, USAGE);
    nloops = parse_list(argv[3], loops, 64, "LOOPS", rank, USAGE);
    loop_us = strcmp(mode, "overlap") == 0 ? 1.0 : 10.0;
    if (argc > 4) loop_us = parse_double(argv[4], "LOOP_US", rank, USAGE);
    a = 5;
  } else if (strcmp(mode, "multi") == 0) {
    sizes[0] = parse_count(argv[2], "SIZE", rank, USAGE);
    a = 3;
    loops[0] = 0;
  } else {
    usage_exit(rank, USAGE);
  }
  const int w = argc > a ? (int)parse_positive(argv[a], "W", rank, USAGE) : 16;
  const long iters = argc > a + 1 ? parse_positive(argv[a + 1], "ITERS", rank, USAGE) : 20;
  if (w < 1 || iters < 1) usage_exit(rank, USAGE);
  long max = 1;
  for (int i = 0; i < nsizes; ++i) max = sizes[i] > max ? sizes[i] : max;
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(rank == 0 ? max * (nranks - 1) : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  char* buf = malloc((size_t)max * (size_t)w);
  memset(buf, rank, (size_t)max * (size_t)w);
  for (int s = 0; s < nsizes; ++s)
    for (int l = 0; l < nloops; ++l) {
      const int n = (int)sizes[s];
      const double per_epoch = run(win, buf, n, w, iters, is_put, strcmp(mode, "overlap") == 0 ? loops[l] * loop_us : 0,
                                   strcmp(mode, "skew") == 0 ? loops[l] * loop_us : 0);
      const double mbps = (double)n * w * (nranks - 1) / per_epoch / 1e6;
      char param[64];
      if (rank != 0) continue;
      if (is_put && n > 0 && mem[(size_t)(nranks - 2) * n + n - 1] != nranks - 1) {
        fprintf(stderr, "bandwidth: the last origin's data did not arrive\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      if (strcmp(mode, "bw") == 0) {
        snprintf(param, sizeof param, "%s_%d", argv[2], n);
        row("bandwidth", param, mbps, "MB/s");
      } else if (strcmp(mode, "overlap") == 0) {
        snprintf(param, sizeof param, "loops_%ld", loops[l]);
        row("overlap", param, per_epoch * 1e6, "us");
      } else if (strcmp(mode, "skew") == 0) {
        snprintf(param, sizeof param, "loops_%ld", loops[l]);
        row("skew", param, mbps, "MB/s");
      } else {
        snprintf(param, sizeof param, "origins_%d", nranks - 1);
        row("multi_origin", param, mbps, "MB/s");
      }
    }
  free(buf);
  OK(MPI_Win_free(&win));
  OK(MPI_Finalize());
  return 0;
}
