/* Simulated time of one collective: `coll_time COLLECTIVE BYTES [ITERATIONS]` runs
 * COLLECTIVE (barrier, allreduce, allgather, bcast, alltoall) on MPI_COMM_WORLD with
 * BYTES per rank's contribution (allreduce and bcast: the vector; allgather and
 * alltoall: one block), a few warm-up calls (connections, registrations), then
 * ITERATIONS timed calls between barriers, and prints the mean time per call in
 * microseconds of the slowest rank: "COLLECTIVE BYTES US". Under `twinfab sim`,
 * MPI_Wtime is the simulated clock, so the figure is the model's, deterministic.
 * Used by bench/coll_select.sh and bench/node_aware.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run(const char* coll, char* a, char* b, int bytes, int n) {
  if (strcmp(coll, "barrier") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(coll, "allreduce") == 0) {
    MPI_Allreduce(a, b, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(coll, "allgather") == 0) {
    MPI_Allgather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, MPI_COMM_WORLD);
  } else if (strcmp(coll, "bcast") == 0) {
    MPI_Bcast(a, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  } else if (strcmp(coll, "alltoall") == 0) {
    MPI_Alltoall(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, MPI_COMM_WORLD);
  } else {
    fprintf(stderr, "coll_time: unknown collective '%s' (barrier, allreduce, allgather, bcast, alltoall)\n", coll);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  (void)n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: coll_time COLLECTIVE BYTES [ITERATIONS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* coll = argv[1];
  const int bytes = atoi(argv[2]);
  const int iterations = argc > 3 ? atoi(argv[3]) : 10;
  /* allgather and alltoall need n blocks. */
  const size_t size = (size_t)(bytes > 0 ? bytes : 1) * (size_t)n;
  char* a = malloc(size);
  char* b = malloc(size);
  memset(a, 1, size);
  memset(b, 0, size);
  for (int i = 0; i < 3; ++i) run(coll, a, b, bytes, n);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) run(coll, a, b, bytes, n);
  double mine = (MPI_Wtime() - start) / iterations, slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%s %d %.2f\n", coll, bytes, slowest * 1e6);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
