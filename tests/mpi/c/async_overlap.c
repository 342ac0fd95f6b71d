/* Asynchronous progress (TWINFAB_ASYNC_PROGRESS): how much of a nonblocking
 * allreduce overlaps with computation (issue 32: >= 80 % with the progress agent on).
 *
 *   async_overlap [bytes=1048576] [expect=any|overlap|none] [rounds=3]
 *
 * The method of OSU's nonblocking collective benchmarks: t_comm is MPI_Iallreduce then
 * MPI_Wait alone (the least of `rounds`); t_total is MPI_Iallreduce, a computation of
 * t_comm (usleep: in the simulator the rank's CPU time, on hardware a sleep), then
 * MPI_Wait; overlap = 100 * (1 - (t_total - t_compute) / t_comm), clipped to [0, 100].
 * The result (sum of MPI_INT elements) is checked every round. With expect=overlap the
 * program fails below 80 %, with expect=none above 30 % (without an agent the
 * allreduce waits for MPI_Wait: every rank makes its first step at the call and the
 * rest after the computation). Rank 0 prints
 *   async_overlap: N ranks, B bytes: t_comm C us, t_compute P us, t_total T us, overlap O %
 */
#include "mpitest.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static double allreduce_once(int* in, int* out, int n, double compute_us) {
  for (int i = 0; i < n; ++i) in[i] = rank + i % 7;
  memset(out, 0, (size_t)n * sizeof(int));
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  MPI_Request request;
  MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
  if (compute_us > 0) usleep((useconds_t)compute_us);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  const double elapsed = MPI_Wtime() - start;
  const int ranks_sum = size * (size - 1) / 2;
  for (int i = 0; i < n; ++i)
    CHECK(out[i] == ranks_sum + size * (i % 7), "element %d is %d, expected %d", i, out[i],
          ranks_sum + size * (i % 7));
  /* The slowest rank's time: the collective is over when every rank's is. */
  double slowest = 0;
  MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long bytes = argc > 1 ? atol(argv[1]) : 1048576;
  const char* expect = argc > 2 ? argv[2] : "any";
  const int rounds = argc > 3 ? atoi(argv[3]) : 3;
  CHECK(bytes >= (long)sizeof(int) && rounds > 0, "bytes and rounds must be positive");
  const int n = (int)(bytes / (long)sizeof(int));
  int* in = malloc((size_t)n * sizeof(int));
  int* out = malloc((size_t)n * sizeof(int));

  double t_comm = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const double t = allreduce_once(in, out, n, 0);
    if (t < t_comm) t_comm = t;
  }
  const double t_compute = t_comm;
  double t_total = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const double t = allreduce_once(in, out, n, t_compute * 1e6);
    if (t < t_total) t_total = t;
  }
  double overlap = 100.0 * (1.0 - (t_total - t_compute) / t_comm);
  if (overlap < 0) overlap = 0;
  if (overlap > 100) overlap = 100;
  if (rank == 0)
    printf("async_overlap: %d ranks, %ld bytes: t_comm %.1f us, t_compute %.1f us, t_total %.1f us, overlap %.0f %%\n",
           size, bytes, t_comm * 1e6, t_compute * 1e6, t_total * 1e6, overlap);
  if (strcmp(expect, "overlap") == 0)
    CHECK(overlap >= 80, "overlap %.0f %% is below 80 %% (is TWINFAB_ASYNC_PROGRESS set?)", overlap);
  else if (strcmp(expect, "none") == 0)
    CHECK(overlap <= 30, "overlap %.0f %% without asynchronous progress: something progressed outside MPI", overlap);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
