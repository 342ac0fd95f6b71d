/* One-sided figures to set beside perftest's on the same device (bench/vm_rma_perftest.sh),
 * between ranks 0 and 1 in a lock_all epoch on an MPI_Win_allocate window:
 *   put-flush N      8-byte MPI_Put + MPI_Win_flush, N times: the time per pair (us)
 *   put-pingpong N   ib_write_lat's pattern: each rank puts an 8-byte counter into the
 *                    other's window and polls its own window (MPI_Win_sync) for the
 *                    other's: half the round trip (us)
 *   get-flush N      8-byte MPI_Get + MPI_Win_flush: the time per pair (us), ib_read_lat's
 *   fetch-add N      MPI_Fetch_and_op (MPI_SUM on MPI_INT64_T) + MPI_Win_flush: the time
 *                    per pair (us); TWINFAB_RMA_ACCUMULATE says how it is applied
 *   put-bw N         N epochs of 16 MPI_Put of 1 MiB + MPI_Win_flush: MB/s (10^6 B/s)
 * Rank 0 prints "<mode> <value>", and for the latencies "<mode> <mean> <median>": the
 * mean over the N operations, and the median of their times measured one by one (what
 * perftest reports as t_typical, beside t_avg). Plain MPI: builds with any mpicc. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median of n values (sorted in place), in us. */
static double median_us(double* v, long n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) * 1e6;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: rma_lat put-flush|put-pingpong|get-flush|fetch-add|put-bw N\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* mode = argv[1];
  const long n = atol(argv[2]);
  if (n < 1) {
    if (rank == 0) fprintf(stderr, "rma_lat: N must be a positive count, not '%s'\n", argv[2]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int bw = strcmp(mode, "put-bw") == 0;
  const MPI_Aint bytes = bw ? (1 << 20) : 64;
  char* base;
  MPI_Win win;
  MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, 0, (size_t)bytes);
  char* buf = malloc((size_t)bytes);
  memset(buf, 1, (size_t)bytes);
  const int peer = 1 - rank;
  MPI_Win_lock_all(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  double value = 0, median = -1;
  double* times = malloc((size_t)n * sizeof *times);
  if (strcmp(mode, "put-pingpong") == 0) {
    volatile int64_t* mine = (volatile int64_t*)base;
    double t0 = 0, last = 0;
    for (int64_t i = 1; i <= n + 10; ++i) {  // 10 warm-up rounds
      if (i == 11) t0 = last = MPI_Wtime();
      if (rank == 0) {
        MPI_Put(&i, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, win);
        MPI_Win_flush_local(peer, win);
        while (*mine < i) MPI_Win_sync(win);
      } else {
        while (*mine < i) MPI_Win_sync(win);
        MPI_Put(&i, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, win);
        MPI_Win_flush_local(peer, win);
      }
      if (i > 10) {  // half of this round trip
        const double now = MPI_Wtime();
        times[i - 11] = (now - last) / 2;
        last = now;
      }
    }
    value = (MPI_Wtime() - t0) / (2.0 * (double)n) * 1e6;
    median = median_us(times, n);
  } else if (rank == 0) {
    const long warmup = 10;
    double t0 = 0, start = 0;
    for (long i = 0; i < n + warmup; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
      if (i >= warmup) start = MPI_Wtime();
      if (strcmp(mode, "put-flush") == 0) {
        MPI_Put(buf, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win);
      } else if (strcmp(mode, "get-flush") == 0) {
        MPI_Get(buf, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win);
      } else if (strcmp(mode, "fetch-add") == 0) {
        const int64_t one = 1;
        MPI_Fetch_and_op(&one, buf, MPI_INT64_T, peer, 0, MPI_SUM, win);
      } else if (bw) {
        for (int w = 0; w < 16; ++w) MPI_Put(buf, (int)bytes, MPI_BYTE, peer, 0, (int)bytes, MPI_BYTE, win);
      } else {
        fprintf(stderr, "rma_lat: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      MPI_Win_flush(peer, win);
      if (i >= warmup) times[i - warmup] = MPI_Wtime() - start;
    }
    const double seconds = MPI_Wtime() - t0;
    value = bw ? 16.0 * (double)bytes * (double)n / seconds / 1e6 : seconds / (double)n * 1e6;
    if (!bw) median = median_us(times, n);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    if (median >= 0)
      printf("%s %.3f %.3f\n", mode, value, median);
    else
      printf("%s %.3f\n", mode, value);
  }
  free(times);
  MPI_Win_free(&win);
  free(buf);
  MPI_Finalize();
  return 0;
}
