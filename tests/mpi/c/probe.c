/* MPI_Probe / MPI_Iprobe: the envelope and size of a pending message, before the
 * receive; a probed message is then received by a matching receive. */
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    int n = 10 * rank + 1;
    int* v = malloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n; ++k) v[k] = rank * 1000 + k;
    OK(MPI_Send(v, n, MPI_INT, 0, 40 + rank, MPI_COMM_WORLD));
    /* A large one too (rendezvous): probe must report its full size. */
    int big = 50000;
    int* w = malloc(sizeof(int) * (size_t)big);
    for (int k = 0; k < big; ++k) w[k] = k ^ rank;
    OK(MPI_Send(w, big, MPI_INT, 0, 7, MPI_COMM_WORLD));
    free(v);
    free(w);
  } else {
    int flag = 1;
    MPI_Status st;
    /* Nothing can be here yet from a tag nobody uses. */
    OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "iprobe found a message with tag 999");
    /* Wildcard probes: whichever message is first, but per sender in the order sent
     * (non-overtaking): the small one (tag 40 + sender), then the big one (tag 7). */
    int* small_seen = calloc((size_t)size, sizeof(int));
    for (int m = 0; m < 2 * (size - 1); ++m) {
      OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE, tag = st.MPI_TAG, count;
      CHECK(src >= 1 && src < size, "probe source %d", src);
      OK(MPI_Get_count(&st, MPI_INT, &count));
      if (!small_seen[src]) {
        CHECK(tag == 40 + src, "first message from %d has tag %d, expected %d", src, tag, 40 + src);
        CHECK(count == 10 * src + 1, "count %d from %d", count, src);
        int* v = malloc(sizeof(int) * (size_t)count);
        OK(MPI_Recv(v, count, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
        for (int k = 0; k < count; ++k) CHECK(v[k] == src * 1000 + k, "v[%d]=%d from %d", k, v[k], src);
        free(v);
        small_seen[src] = 1;
        continue;
      }
      CHECK(tag == 7, "second message from %d has tag %d, expected 7", src, tag);
      /* The big one: Iprobe for it by source and tag must agree with the probe. */
      OK(MPI_Iprobe(src, 7, MPI_COMM_WORLD, &flag, &st));
      CHECK(flag, "iprobe(%d, 7) missed a message probe had found", src);
      OK(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == 50000 && st.MPI_SOURCE == src, "big probe: count %d source %d", count, st.MPI_SOURCE);
      OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
      CHECK(count == 25000, "as doubles %d", count);
      int* w = malloc(sizeof(int) * 50000);
      OK(MPI_Recv(w, 50000, MPI_INT, src, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int k = 0; k < 50000; ++k) CHECK(w[k] == (k ^ src), "w[%d] from %d", k, src);
      free(w);
    }
    free(small_seen);
    /* MPI_PROC_NULL probes complete at once. */
    OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "proc null probe source %d", st.MPI_SOURCE);
  }
  MPI_Finalize();
  return 0;
}
