/* IMB-style timing of one collective (seed 003 sec. 4.4 used the Intel MPI Benchmarks):
 * after a barrier and WARMUP untimed calls, ITERATIONS calls back to back; each rank's
 * time per call, and IMB's t_avg (mean over ranks), t_min and t_max, as one line
 *   result collective=allreduce bytes=8 t_avg_us=... t_min_us=... t_max_us=...
 * Under `twinfab sim` MPI_Wtime is the simulated clock: the figures are the model's.
 *
 *   imb_coll barrier|allreduce|allgather BYTES [ITERATIONS=1000] [WARMUP=10]
 * allreduce: BYTES of floats summed (IMB's default type); allgather: BYTES per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char* coll = argc > 1 ? argv[1] : "";
  const int kind = strcmp(coll, "barrier") == 0 ? 0 : strcmp(coll, "allreduce") == 0 ? 1
                   : strcmp(coll, "allgather") == 0 ? 2 : -1;
  if (kind < 0 || argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: imb_coll barrier|allreduce|allgather BYTES [ITERATIONS] [WARMUP]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int bytes = atoi(argv[2]);
  const int iterations = argc > 3 ? atoi(argv[3]) : 1000;
  const int warmup = argc > 4 ? atoi(argv[4]) : 10;
  const size_t size = (size_t)(bytes > 0 ? bytes : 1) * (size_t)n;
  char* a = calloc(size, 1);
  char* b = calloc(size, 1);
  double t = 0;
  for (int i = -warmup; i < iterations; ++i) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t = MPI_Wtime();
    }
    if (kind == 0) MPI_Barrier(MPI_COMM_WORLD);
    else if (kind == 1) MPI_Allreduce(a, b, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else MPI_Allgather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, MPI_COMM_WORLD);
  }
  const double mine = (MPI_Wtime() - t) / iterations * 1e6;
  double sum = 0, lo = 0, hi = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("result collective=%s bytes=%d t_avg_us=%.3f t_min_us=%.3f t_max_us=%.3f\n", coll, bytes, sum / n, lo, hi);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
