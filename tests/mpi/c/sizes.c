/* 0 B ... 16 MiB round trips between pairs of ranks: every protocol (tiny, short,
 * rendezvous; the rendezvous variant comes from TWINFAB_RENDEZVOUS in the test
 * list) and the sizes around its thresholds, checked byte by byte. Standard and
 * synchronous sends; a receive buffer larger than the message. */
#include <string.h>

#include "mpitest.h"

static const size_t sizes[] = {0,     1,     8,      100,    1024,   4095,    4096,        8000,
                               8192,  8193,  16384,  32767,  32768,  32769,   65536,       262144,
                               1048576, 4194303, 16777216};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t max = 16777216;
  unsigned char* buf = malloc(max + 64);
  const int peer = rank ^ 1;
  if (peer < size) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
      const size_t n = sizes[i];
      const int seq = (int)i;
      for (int leg = 0; leg < 2; ++leg) {
        const int sender = (rank % 2 == leg);
        if (sender) {
          for (size_t k = 0; k < n; ++k) buf[k] = pattern(rank, seq, k);
          if (i % 2)
            OK(MPI_Ssend(buf, (int)n, MPI_BYTE, peer, seq, MPI_COMM_WORLD));
          else
            OK(MPI_Send(buf, (int)n, MPI_BYTE, peer, seq, MPI_COMM_WORLD));
        } else {
          memset(buf, 0xee, n + 64);
          MPI_Status st;
          OK(MPI_Recv(buf, (int)(n + 64), MPI_BYTE, peer, seq, MPI_COMM_WORLD, &st));
          int count;
          OK(MPI_Get_count(&st, MPI_BYTE, &count));
          CHECK((size_t)count == n, "size %zu: count %d", n, count);
          for (size_t k = 0; k < n; ++k)
            CHECK(buf[k] == pattern(peer, seq, k), "size %zu: byte %zu is %d, expected %d", n, k, buf[k],
                  pattern(peer, seq, k));
          for (size_t k = n; k < n + 64; ++k) CHECK(buf[k] == 0xee, "size %zu: byte %zu past the message written", n, k);
        }
      }
    }
  }
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
