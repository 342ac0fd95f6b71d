/* Non-overtaking: messages from one sender with the same communicator and tag are
 * received in the order sent, whatever protocol carries each (tiny, short and
 * rendezvous interleaved), also through MPI_ANY_SOURCE / MPI_ANY_TAG receives. */
#include <string.h>

#include "mpitest.h"

#define MESSAGES 60

static size_t size_of(int i) {
  static const size_t sizes[] = {0, 8, 1000, 9000, 40000, 200000};
  return sizes[i % 6];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned char* buf = malloc(200000 + 8);
  if (rank != 0) {
    /* Every sender: MESSAGES messages, same tag, mixed sizes, sequence in byte 0.. */
    for (int i = 0; i < MESSAGES; ++i) {
      size_t n = size_of(i) + 8;
      for (size_t k = 0; k < n; ++k) buf[k] = pattern(rank, i, k);
      memcpy(buf, &i, sizeof i);
      OK(MPI_Send(buf, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
    }
  } else {
    int* next = calloc((size_t)size, sizeof(int));
    for (int m = 0; m < MESSAGES * (size - 1); ++m) {
      MPI_Status st;
      /* Alternate wildcard forms: the order per sender must hold for each. */
      int source = (m % 3 == 0) ? MPI_ANY_SOURCE : 1 + (m / 3) % (size - 1);
      int tag = (m % 2 == 0) ? MPI_ANY_TAG : 5;
      if (source != MPI_ANY_SOURCE && next[source] == MESSAGES) source = MPI_ANY_SOURCE;
      OK(MPI_Recv(buf, 200000 + 8, MPI_BYTE, source, tag, MPI_COMM_WORLD, &st));
      int s = st.MPI_SOURCE, seq;
      CHECK(s >= 1 && s < size, "source %d", s);
      CHECK(st.MPI_TAG == 5, "tag %d", st.MPI_TAG);
      memcpy(&seq, buf, sizeof seq);
      CHECK(seq == next[s], "from rank %d got message %d, expected %d (overtaken)", s, seq, next[s]);
      int count;
      OK(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK((size_t)count == size_of(seq) + 8, "count %d for message %d", count, seq);
      for (size_t k = sizeof seq; k < (size_t)count; ++k)
        CHECK(buf[k] == pattern(s, seq, k), "byte %zu of message %d from %d", k, seq, s);
      next[s]++;
    }
    free(next);
  }
  /* Rank 0's wildcard receives above (MPI_ANY_SOURCE with MPI_ANY_TAG) may rightly
   * match rank 1's tag-1 message below when rank 1 is done with its first part while
   * others are not: the barrier keeps the two parts apart (seen on siw with 4 ranks). */
  OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Tags select: 1 sends tags 1,2,3; 0 receives 3,2,1 (each one at a time). */
  if (size >= 2 && rank <= 1) {
    int v[3];
    if (rank == 1) {
      for (int t = 1; t <= 3; ++t) {
        v[0] = t * 100;
        OK(MPI_Send(v, 1, MPI_INT, 0, t, MPI_COMM_WORLD));
      }
    } else {
      for (int t = 3; t >= 1; --t) {
        OK(MPI_Recv(v, 1, MPI_INT, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v[0] == t * 100, "tag %d carried %d", t, v[0]);
      }
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
