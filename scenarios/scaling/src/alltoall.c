/* alltoall: MPI_Alltoall of BYTES bytes per pair, ITERATIONS times; every rank checks
 * the data it received; rank 0 prints
 *   result pattern=alltoall time_per_iteration_us=<simulated time per iteration>
 * Usage: alltoall ITERATIONS BYTES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 2 ? atol(argv[1]) : 0;
  const long bytes = argc > 2 ? atol(argv[2]) : 0;
  if (iterations < 1 || bytes < 1 || bytes > (1L << 20)) {
    if (rank == 0) fprintf(stderr, "usage: alltoall ITERATIONS BYTES (1 .. 1 MiB)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  unsigned char* out = malloc((size_t)bytes * (size_t)size);
  unsigned char* in = malloc((size_t)bytes * (size_t)size);
  for (int p = 0; p < size; ++p)
    for (long b = 0; b < bytes; ++b) out[(size_t)p * (size_t)bytes + (size_t)b] = (unsigned char)(rank * 7 + p + b);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long i = 0; i < iterations; ++i)
    MPI_Alltoall(out, (int)bytes, MPI_BYTE, in, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - start;
  for (int p = 0; p < size; ++p)
    for (long b = 0; b < bytes; ++b)
      if (in[(size_t)p * (size_t)bytes + (size_t)b] != (unsigned char)(p * 7 + rank + b)) {
        fprintf(stderr, "alltoall: rank %d: wrong byte %ld from rank %d\n", rank, b, p);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
  if (rank == 0) printf("result pattern=alltoall time_per_iteration_us=%.4f\n", elapsed * 1e6 / (double)iterations);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
