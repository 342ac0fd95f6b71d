/* A collective's latency over message sizes, with the loop structure and default
 * iteration counts of the OSU micro-benchmarks' collective tests (osu_alltoall and
 * its siblings, OMB 5.x): for each size from MIN to MAX bytes (powers of two),
 * SKIP untimed and then ITERATIONS timed calls, each followed by MPI_Barrier;
 * 200 + 1000 calls up to 8 KiB, 10 + 100 above. Prints "size avg_us min_us max_us"
 * over the ranks' means, as OSU's full output does.
 *
 *   coll_sweep COLLECTIVE [MIN_BYTES=1] [MAX_BYTES=1048576] [ITERATIONS_SCALE=1]
 *
 * COLLECTIVE: alltoall, allgather, allreduce, bcast, barrier (sizes ignored).
 * ITERATIONS_SCALE divides both counts (a quicker run, same shape). Used by
 * bench/coll_sweep.sh to time the simulator itself (issue 32, item 5): the sweep's
 * wall time, with the full default iterations, is the figure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kSkipSmall = 200, kLoopSmall = 1000, kSkipLarge = 10, kLoopLarge = 100, kLargeMessage = 8192 };

static void run(const char* coll, char* a, char* b, int bytes) {
  if (strcmp(coll, "alltoall") == 0) {
    MPI_Alltoall(a, bytes, MPI_CHAR, b, bytes, MPI_CHAR, MPI_COMM_WORLD);
  } else if (strcmp(coll, "allgather") == 0) {
    MPI_Allgather(a, bytes, MPI_CHAR, b, bytes, MPI_CHAR, MPI_COMM_WORLD);
  } else if (strcmp(coll, "allreduce") == 0) {
    MPI_Allreduce(a, b, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(coll, "bcast") == 0) {
    MPI_Bcast(a, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char* known[] = {"alltoall", "allgather", "allreduce", "bcast", "barrier"};
  int ok = argc >= 2;
  for (int i = 0; ok && i < 5; ++i) {
    if (strcmp(argv[1], known[i]) == 0) break;
    if (i == 4) ok = 0;
  }
  if (!ok) {
    if (rank == 0)
      fprintf(stderr, "usage: coll_sweep alltoall|allgather|allreduce|bcast|barrier [MIN] [MAX] [SCALE]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* coll = argv[1];
  const long min = argc > 2 ? atol(argv[2]) : 1;
  const long max = argc > 3 ? atol(argv[3]) : 1 << 20;
  const int scale = argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 1;
  const int blocks = strcmp(coll, "alltoall") == 0 || strcmp(coll, "allgather") == 0 ? n : 1;
  const size_t size = (size_t)(max > 0 ? max : 1) * (size_t)blocks;
  char* a = malloc(size);
  char* b = malloc(size);
  if (!a || !b) {
    fprintf(stderr, "coll_sweep: cannot allocate 2 x %zu bytes\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(a, 1, size);
  memset(b, 0, size);
  if (rank == 0) printf("# %s, %d ranks (OSU's loop: %d+%d calls to %d B, %d+%d above)\n", coll, n,
                        kSkipSmall / scale, kLoopSmall / scale, kLargeMessage, kSkipLarge / scale,
                        kLoopLarge / scale);
  const int sizeless = strcmp(coll, "barrier") == 0;
  for (long bytes = sizeless ? 0 : (min > 0 ? min : 1); bytes <= max; bytes *= 2) {
    const int large = bytes > kLargeMessage;
    const int skip = (large ? kSkipLarge : kSkipSmall) / scale;
    const int loop = (large ? kLoopLarge : kLoopSmall) / scale > 0 ? (large ? kLoopLarge : kLoopSmall) / scale : 1;
    double total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + loop; ++i) {
      const double start = MPI_Wtime();
      run(coll, a, b, (int)bytes);
      if (i >= skip) total += MPI_Wtime() - start;
      MPI_Barrier(MPI_COMM_WORLD);
    }
    double mine = total * 1e6 / loop, lo = 0, hi = 0, sum = 0;
    MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("%ld %.2f %.2f %.2f\n", bytes, sum / n, lo, hi);
      fflush(stdout);
    }
    if (sizeless) break;
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
