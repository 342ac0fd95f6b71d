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
    for (int m = 1; m < size; ++m) {
      OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE, tag = st.MPI_TAG, count;
      CHECK(tag == 40 + src, "tag %d from %d", tag, src);
      OK(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == 10 * src + 1, "count %d from %d", count, src);
      int* v = malloc(sizeof(int) * (size_t)count);
      OK(MPI_Recv(v, count, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
      for (int k = 0; k < count; ++k) CHECK(v[k] == src * 1000 + k, "v[%d]=%d from %d", k, v[k], src);
      free(v);
    }
    for (int m = 1; m < size; ++m) {
      OK(MPI_Iprobe(m, 7, MPI_COMM_WORLD, &flag, &st));
      if (!flag) OK(MPI_Probe(m, 7, MPI_COMM_WORLD, &st));
      int count;
      OK(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == 50000 && st.MPI_SOURCE == m, "big probe: count %d source %d", count, st.MPI_SOURCE);
      OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
      CHECK(count == 25000, "as doubles %d", count);
      int* w = malloc(sizeof(int) * 50000);
      OK(MPI_Recv(w, 50000, MPI_INT, m, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int k = 0; k < 50000; ++k) CHECK(w[k] == (k ^ m), "w[%d] from %d", k, m);
      free(w);
    }
    /* MPI_PROC_NULL probes complete at once. */
    OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "proc null probe source %d", st.MPI_SOURCE);
  }
  MPI_Finalize();
  return 0;
}
