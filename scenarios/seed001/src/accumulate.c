/* Seed 001 sec. 3.4.8, Figure 3.13: time of one MPI_Accumulate (MPI_SUM of COUNT ints)
 * by operand size. Rank 0 accumulates into rank 1 in one start/accumulate/complete epoch
 * that rank 1 exposes with post/wait; the time per epoch is reported. twinfab applies
 * accumulates in the target's progress engine in both designs (docs/rma.md), the
 * counterpart of the seed's "event driven" accumulate, not of its RDMA read-modify-write.
 *
 *   accumulate COUNTS [ITERS]      (2 ranks; COUNTS like 1,64,512,4096)
 * Rows: accumulate,<design>,<lock>,ints_<count>,<us>,us */
#include "common.h"

#define USAGE "accumulate COUNTS [ITERS]"

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  int rank, nranks;
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  if (argc < 2 || nranks != 2) usage_exit(rank, USAGE " on 2 ranks");
  long counts[64];
  const int ncounts = parse_list(argv[1], counts, 64, "COUNTS", rank, USAGE);
  const long iters = argc > 2 ? parse_positive(argv[2], "ITERS", rank, USAGE) : 50;
  long max = 1;
  for (int i = 0; i < ncounts; ++i) max = counts[i] > max ? counts[i] : max;
  int* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(max * (long)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  int* ones = malloc((size_t)max * sizeof(int));
  for (long i = 0; i < max; ++i) ones[i] = 1;
  MPI_Group other = group_range(1 - rank, 1 - rank);
  const long warmup = iters / 10 + 2;
  for (int c = 0; c < ncounts; ++c) {
    const int n = (int)counts[c];
    memset(mem, 0, (size_t)max * sizeof(int));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = 0;
    for (long i = 0; i < warmup + iters; ++i) {
      if (i == warmup) {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        t0 = MPI_Wtime();
      }
      if (rank == 0) {
        OK(MPI_Win_start(other, 0, win));
        OK(MPI_Accumulate(ones, n, MPI_INT, 1, 0, n, MPI_INT, MPI_SUM, win));
        OK(MPI_Win_complete(win));
      } else {
        OK(MPI_Win_post(other, 0, win));
        OK(MPI_Win_wait(win));
      }
    }
    const double t = MPI_Wtime() - t0;
    if (rank == 1 && n > 0 && mem[n - 1] != warmup + iters) {
      fprintf(stderr, "accumulate: the target holds %d, not %ld\n", mem[n - 1], warmup + iters);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0) {
      char param[64];
      snprintf(param, sizeof param, "ints_%d", n);
      row("accumulate", param, t * 1e6 / (double)iters, "us");
    }
  }
  OK(MPI_Group_free(&other));
  free(ones);
  OK(MPI_Win_free(&win));
  OK(MPI_Finalize());
  return 0;
}
