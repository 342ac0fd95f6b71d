/* MPI_Sendrecv through every protocol: a ring shift, a pairwise exchange (both ranks
 * of a pair send to each other at once: the case where two blocking sends of a
 * rendezvous size would deadlock) and a send to oneself, at sizes from 0 bytes to
 * 1 MiB, checking every byte and the status. */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

static void fill(unsigned char* buf, size_t n, int from, int round) {
  for (size_t i = 0; i < n; ++i) buf[i] = (unsigned char)(from * 31 + round * 7 + i * 13);
}

static void check(const unsigned char* buf, size_t n, int from, int round, const char* what) {
  for (size_t i = 0; i < n; ++i)
    CHECK(buf[i] == (unsigned char)(from * 31 + round * 7 + i * 13), "%s: %zu bytes from rank %d: byte %zu wrong",
          what, n, from, i);
}

static void exchange(const char* what, int dest, int source, size_t n, int round, unsigned char* out,
                     unsigned char* in) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fill(out, n, rank, round);
  memset(in, 0xee, n);
  MPI_Status status;
  OK(MPI_Sendrecv(out, (int)n, MPI_BYTE, dest, round, in, (int)n, MPI_BYTE, source, round, MPI_COMM_WORLD, &status));
  check(in, n, source, round, what);
  int count = -1;
  OK(MPI_Get_count(&status, MPI_BYTE, &count));
  CHECK(count == (int)n, "%s: count %d, expected %zu", what, count, n);
  CHECK(status.MPI_SOURCE == source && status.MPI_TAG == round, "%s: status names rank %d tag %d", what,
        status.MPI_SOURCE, status.MPI_TAG);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t sizes[] = {0, 1, 8, 100, 1000, 8192, 65536, 1 << 20};
  const size_t max = 1 << 20;
  unsigned char* out = malloc(max);
  unsigned char* in = malloc(max);
  CHECK(out != NULL && in != NULL, "out of memory");
  int round = 0;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    const size_t n = sizes[k];
    exchange("ring", (rank + 1) % size, (rank + size - 1) % size, n, round++, out, in);
    if (size % 2 == 0) exchange("pairwise", rank ^ 1, rank ^ 1, n, round++, out, in);
    exchange("self", rank, rank, n, round++, out, in);
  }
  free(out);
  free(in);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("sendrecv: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
