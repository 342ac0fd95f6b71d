/* ring: every rank sends 8 bytes to its right neighbour and receives from its left
 * with MPI_Sendrecv, ITERATIONS times; rank 0 checks what it received and prints
 *   result pattern=ring time_per_iteration_us=<simulated time per iteration>
 * Usage: ring ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 1 ? atol(argv[1]) : 0;
  if (iterations < 1) {
    if (rank == 0) fprintf(stderr, "usage: ring ITERATIONS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long out, in = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long i = 0; i < iterations; ++i) {
    out = rank + i;
    MPI_Sendrecv(&out, 1, MPI_LONG, right, 0, &in, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in != left + i) {
      fprintf(stderr, "ring: rank %d: iteration %ld received %ld, expected %ld\n", rank, i, in, left + i);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("result pattern=ring time_per_iteration_us=%.4f\n", elapsed * 1e6 / (double)iterations);
  MPI_Finalize();
  return 0;
}
