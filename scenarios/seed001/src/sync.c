/* Seed 001 sec. 3.4.4, Figure 3.9: synchronization overhead. Only synchronization calls,
 * for ITERS iterations; the time per iteration is reported.
 *
 *   sync pscw [ITERS]    rank 0 is the target (post, wait), every other rank an origin
 *                        (start, complete) with rank 0 in its group: N-1 origins
 *   sync fence [ITERS]   every rank calls MPI_Win_fence
 * Rows: sync,<design>,<lock>,pscw_origins_<n>|fence_ranks_<n>,<us>,us */
#include "common.h"

#define USAGE "sync pscw|fence [ITERS]"

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  int rank, nranks;
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  if (argc < 2 || nranks < 2 || (strcmp(argv[1], "pscw") != 0 && strcmp(argv[1], "fence") != 0)) usage_exit(rank, USAGE);
  const int pscw = strcmp(argv[1], "pscw") == 0;
  const long iters = argc > 2 ? parse_positive(argv[2], "ITERS", rank, USAGE) : 200;
  char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Group target = group_range(0, 0), origins = group_range(1, nranks - 1);
  const long warmup = iters / 10 + 2;
  double t0 = 0;
  if (!pscw) OK(MPI_Win_fence(0, win));
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) {
      OK(MPI_Barrier(MPI_COMM_WORLD));
      t0 = MPI_Wtime();
    }
    if (!pscw) {
      OK(MPI_Win_fence(0, win));
    } else if (rank == 0) {
      OK(MPI_Win_post(origins, 0, win));
      OK(MPI_Win_wait(win));
    } else {
      OK(MPI_Win_start(target, 0, win));
      OK(MPI_Win_complete(win));
    }
  }
  const double t = MPI_Wtime() - t0;
  if (rank == 0) {
    char param[64];
    snprintf(param, sizeof param, pscw ? "pscw_origins_%d" : "fence_ranks_%d", pscw ? nranks - 1 : nranks);
    row("sync", param, t * 1e6 / (double)iters, "us");
  }
  OK(MPI_Group_free(&target));
  OK(MPI_Group_free(&origins));
  OK(MPI_Win_free(&win));
  OK(MPI_Finalize());
  return 0;
}
