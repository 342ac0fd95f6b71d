/* A ring exchange with MPI_Sendrecv: each rank sends a long to its right neighbour
 * and receives from its left, `iterations` times (argv[1], default 100), checking
 * every value. Rank 0 prints the simulated (MPI_Wtime) time per iteration. With more
 * than 64 ranks twinfab connects on demand, so each rank connects to 2 peers only:
 * this is the scale test (1024 ranks on fat-tree-4096) and bench/smpi_compare.sh's
 * ring. */
#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 100;
  CHECK(iterations > 0, "iterations '%s' must be a positive integer", argv[1]);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    long out = (long)rank * 1000000 + i, in = -1;
    MPI_Status status;
    OK(MPI_Sendrecv(&out, 1, MPI_LONG, right, i % 32768, &in, 1, MPI_LONG, left, i % 32768, MPI_COMM_WORLD,
                    &status));
    CHECK(in == (long)left * 1000000 + i, "iteration %d: got %ld from rank %d", i, in, left);
    CHECK(status.MPI_SOURCE == left, "iteration %d: status names rank %d, not %d", i, status.MPI_SOURCE, left);
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0)
    printf("ring: %d ranks x %d iterations ok, %.3f us per iteration (MPI_Wtime: simulated time in the simulator)\n", size, iterations,
           elapsed * 1e6 / iterations);
  MPI_Finalize();
  return 0;
}
