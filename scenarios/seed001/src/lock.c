/* Seed 001 sec. 4.4, Figures 4.4-4.8: passive-target synchronization (MPI_Win_lock and
 * MPI_Win_unlock, exclusive) for the lock design TWINFAB_RMA_LOCK selects. Rank 0 is the
 * target; it waits in MPI calls (a barrier, a receive) while the origins work, so the
 * `progress` design is served, except in `busy`.
 *
 *   lock overhead [ITERS]             (2 ranks) Fig. 4.4: time of lock, of unlock, of both
 *   lock delay [HOLD_US [ITERS]]      (3 ranks) Fig. 4.5: ranks 1 and 2 take turns asking
 *                                     first; each holds the lock HOLD_US (default 100);
 *                                     the time from the first holder's MPI_Win_unlock call
 *                                     to the return of the second's MPI_Win_lock
 *   lock concurrency [ITERS]          (N ranks) Fig. 4.6: N-1 windows; origin i locks and
 *                                     unlocks window i at rank 0: time per iteration
 *   lock messages [HOLD_US [ITERS]]   (N ranks) Fig. 4.7: N-1 origins contend for one lock
 *                                     (holding it HOLD_US, default 0): messages per
 *                                     lock+unlock between an origin and the target, from
 *                                     the MPI_T counters twinfab_channel_packets_sent and
 *                                     twinfab_channel_rdma_posted (RDMA operations
 *                                     including remote atomics) of both sides
 *   lock busy COMPUTE_US_LIST [ITERS] (2 ranks) Fig. 4.8's question (does a busy target
 *                                     slow the lock?) as the simulator can ask it: the
 *                                     target computes COMPUTE_US between MPI calls
 *                                     (MPI_Iprobe) instead of having threads compete
 * Rows: lock,<design>,<lock>,overhead_lock|overhead_unlock|overhead_total,<us>,us
 *       lock,...,delay_hold_<HOLD_US>,<us>,us   lock,...,concurrency_origins_<n>,<us>,us
 *       lock,...,messages_hold_<HOLD_US>_origins_<n>,<msgs>,msgs (and _origin_side, _target_side)
 *       lock,...,busy_compute_<us>,<us>,us */
#include "common.h"

#define USAGE                                                                              \
  "lock overhead [ITERS] | delay [HOLD_US [ITERS]] | concurrency [ITERS] | messages [HOLD_US [ITERS]] | " \
  "busy COMPUTE_US_LIST [ITERS]"

static int rank, nranks;

static void overhead(long iters) {
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  if (rank == 1) {
    double t_lock = 0, t_unlock = 0;
    const long warmup = iters / 10 + 2;
    for (long i = 0; i < warmup + iters; ++i) {
      const double a = MPI_Wtime();
      OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      const double b = MPI_Wtime();
      OK(MPI_Win_unlock(0, win));
      const double c = MPI_Wtime();
      if (i >= warmup) {
        t_lock += b - a;
        t_unlock += c - b;
      }
    }
    row("lock", "overhead_lock", t_lock * 1e6 / (double)iters, "us");
    row("lock", "overhead_unlock", t_unlock * 1e6 / (double)iters, "us");
    row("lock", "overhead_total", (t_lock + t_unlock) * 1e6 / (double)iters, "us");
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Win_free(&win));
}

static void delay(double hold_us, long iters) {
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  /* per iteration: when this origin called unlock and when its lock returned */
  double* unlock_call = calloc((size_t)iters, sizeof(double));
  double* lock_back = calloc((size_t)iters, sizeof(double));
  const long warmup = 2;
  for (long i = 0; i < warmup + iters; ++i) {
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) continue;
    const int first = 1 + (int)(i % 2);
    /* the second asker comes 1 us later, when the first's attempt is on its way */
    if (rank != first) compute_us(1.0);
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    const double got = MPI_Wtime();
    compute_us(hold_us);
    const double release = MPI_Wtime();
    OK(MPI_Win_unlock(0, win));
    if (i >= warmup) {
      lock_back[i - warmup] = got;
      unlock_call[i - warmup] = release;
    }
  }
  /* rank 1 collects rank 2's times and pairs each iteration's release with the grant */
  if (rank == 2) {
    OK(MPI_Send(unlock_call, (int)iters, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
    OK(MPI_Send(lock_back, (int)iters, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD));
  } else if (rank == 1) {
    double* other_unlock = calloc((size_t)iters, sizeof(double));
    double* other_lock = calloc((size_t)iters, sizeof(double));
    OK(MPI_Recv(other_unlock, (int)iters, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Recv(other_lock, (int)iters, MPI_DOUBLE, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    double sum = 0;
    for (long k = 0; k < iters; ++k) {
      /* whoever got the lock first released it before the other got it */
      const int mine_first = lock_back[k] < other_lock[k];
      const double d = mine_first ? other_lock[k] - unlock_call[k] : lock_back[k] - other_unlock[k];
      if (d < 0) {
        fprintf(stderr, "lock delay: iteration %ld granted the lock before it was released (%g us)\n", k, d * 1e6);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      sum += d;
    }
    char param[64];
    snprintf(param, sizeof param, "delay_hold_%g", hold_us);
    row("lock", param, sum * 1e6 / (double)iters, "us");
    free(other_unlock);
    free(other_lock);
  }
  free(unlock_call);
  free(lock_back);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Win_free(&win));
}

static void concurrency(long iters) {
  const int origins = nranks - 1;
  MPI_Win* wins = calloc((size_t)origins, sizeof(MPI_Win));
  for (int w = 0; w < origins; ++w) {
    char* mem;
    OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &wins[w]));
  }
  double t = 0;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank != 0) {
    MPI_Win win = wins[rank - 1];
    const long warmup = iters / 10 + 2;
    double t0 = 0;
    for (long i = 0; i < warmup + iters; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
      OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      OK(MPI_Win_unlock(0, win));
    }
    t = MPI_Wtime() - t0;
  }
  double sum = 0;
  OK(MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    char param[64];
    snprintf(param, sizeof param, "concurrency_origins_%d", origins);
    row("lock", param, sum / origins * 1e6 / (double)iters, "us");
  }
  for (int w = 0; w < origins; ++w) OK(MPI_Win_free(&wins[w]));
  free(wins);
}

static void messages(double hold_us, long iters) {
  const int origins = nranks - 1;
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  counter_t packets, rdma;
  counter_open(&packets, "twinfab_channel_packets_sent");
  counter_open(&rdma, "twinfab_channel_rdma_posted");
  OK(MPI_Barrier(MPI_COMM_WORLD));
  const unsigned long long p0 = counter_read(&packets), r0 = counter_read(&rdma);
  unsigned long long mine = 0;
  if (rank == 0) {
    /* serve the origins until each says it is done (a receive: progress is made) */
    for (int k = 0; k < origins; ++k) {
      int done;
      OK(MPI_Recv(&done, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    mine = (counter_read(&packets) - p0) + (counter_read(&rdma) - r0);
  } else {
    for (long i = 0; i < iters; ++i) {
      OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      compute_us(hold_us);
      OK(MPI_Win_unlock(0, win));
    }
    mine = (counter_read(&packets) - p0) + (counter_read(&rdma) - r0);
    int done = 1;
    OK(MPI_Send(&done, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
  }
  unsigned long long origin_side = 0, all = 0;
  unsigned long long as_origin = rank == 0 ? 0 : mine;
  OK(MPI_Reduce(&as_origin, &origin_side, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  OK(MPI_Reduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    const double pairs = (double)origins * (double)iters;
    char param[80];
    snprintf(param, sizeof param, "messages_hold_%g_origins_%d", hold_us, origins);
    row("lock", param, (double)all / pairs, "msgs");
    snprintf(param, sizeof param, "messages_hold_%g_origins_%d_origin_side", hold_us, origins);
    row("lock", param, (double)origin_side / pairs, "msgs");
    snprintf(param, sizeof param, "messages_hold_%g_origins_%d_target_side", hold_us, origins);
    row("lock", param, (double)(all - origin_side) / pairs, "msgs");
  }
  counter_close(&packets);
  counter_close(&rdma);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Win_free(&win));
}

static void busy(const long* compute, int ncompute, long iters) {
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int c = 0; c < ncompute; ++c) {
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
      /* compute, look at MPI once, compute again, until the origin says it is done */
      int done = 0, flag = 0;
      MPI_Request r;
      OK(MPI_Irecv(&done, 1, MPI_INT, 1, 98, MPI_COMM_WORLD, &r));
      while (!flag) {
        compute_us((double)compute[c]);
        OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
      }
    } else {
      const long warmup = iters / 10 + 2;
      double t0 = 0;
      for (long i = 0; i < warmup + iters; ++i) {
        if (i == warmup) t0 = MPI_Wtime();
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        OK(MPI_Win_unlock(0, win));
      }
      const double t = MPI_Wtime() - t0;
      int done = 1;
      OK(MPI_Send(&done, 1, MPI_INT, 0, 98, MPI_COMM_WORLD));
      char param[64];
      snprintf(param, sizeof param, "busy_compute_%ld", compute[c]);
      row("lock", param, t * 1e6 / (double)iters, "us");
    }
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  if (argc < 2 || nranks < 2) usage_exit(rank, USAGE);
  const char* mode = argv[1];
  if (strcmp(mode, "overhead") == 0) {
    if (nranks != 2) usage_exit(rank, USAGE " (overhead: 2 ranks)");
    overhead(argc > 2 ? parse_positive(argv[2], "ITERS", rank, USAGE) : 200);
  } else if (strcmp(mode, "delay") == 0) {
    if (nranks != 3) usage_exit(rank, USAGE " (delay: 3 ranks)");
    const double hold = argc > 2 ? parse_double(argv[2], "HOLD_US", rank, USAGE) : 100;
    const long iters = argc > 3 ? parse_positive(argv[3], "ITERS", rank, USAGE) : 50;
    if (iters < 1) usage_exit(rank, USAGE);
    delay(hold, iters);
  } else if (strcmp(mode, "concurrency") == 0) {
    concurrency(argc > 2 ? parse_positive(argv[2], "ITERS", rank, USAGE) : 200);
  } else if (strcmp(mode, "messages") == 0) {
    const double hold = argc > 2 ? parse_double(argv[2], "HOLD_US", rank, USAGE) : 0;
    messages(hold, argc > 3 ? parse_positive(argv[3], "ITERS", rank, USAGE) : 100);
  } else if (strcmp(mode, "busy") == 0) {
    if (argc < 3 || nranks != 2) usage_exit(rank, USAGE " (busy: 2 ranks)");
    long compute[64];
    const int n = parse_list(argv[2], compute, 64, "COMPUTE_US_LIST", rank, USAGE);
    busy(compute, n, argc > 3 ? parse_positive(argv[3], "ITERS", rank, USAGE) : 100);
  } else {
    usage_exit(rank, USAGE);
  }
  OK(MPI_Finalize());
  return 0;
}
