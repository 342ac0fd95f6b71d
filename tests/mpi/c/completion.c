/* MPI_Testany, MPI_Waitsome and MPI_Testsome: rank 0 receives one message from every
 * other rank (tags by sender), completing them with each call in turn; the results
 * carry the right indices, statuses and outcounts, completed entries become
 * MPI_REQUEST_NULL, and arrays with no active request give MPI_UNDEFINED; a null
 * request's status is the empty one, MPI_ERROR included. */
#include <string.h>

#include "mpitest.h"

static void collect(int size, int mode) {
  const int n = size - 1;
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)n);
  int* got = malloc(sizeof(int) * (size_t)n);
  int* seen = calloc((size_t)n, sizeof(int));
  int* indices = malloc(sizeof(int) * (size_t)n);
  MPI_Status* statuses = malloc(sizeof(MPI_Status) * (size_t)n);
  for (int i = 0; i < n; ++i) OK(MPI_Irecv(&got[i], 1, MPI_INT, i + 1, 10 + mode, MPI_COMM_WORLD, &reqs[i]));
  OK(MPI_Barrier(MPI_COMM_WORLD)); /* the senders go now */
  int done = 0;
  while (done < n) {
    int outcount = 0;
    if (mode == 0) {
      int index = -5, flag = 0;
      MPI_Status st;
      OK(MPI_Testany(n, reqs, &index, &flag, &st));
      if (!flag) {
        CHECK(index == MPI_UNDEFINED, "testany: no completion but index %d", index);
        continue;
      }
      indices[0] = index, statuses[0] = st, outcount = 1;
    } else if (mode == 1) {
      OK(MPI_Waitsome(n, reqs, &outcount, indices, statuses));
      CHECK(outcount >= 1 && outcount <= n - done, "waitsome: outcount %d with %d left", outcount, n - done);
    } else {
      OK(MPI_Testsome(n, reqs, &outcount, indices, statuses));
      CHECK(outcount >= 0 && outcount <= n - done, "testsome: outcount %d with %d left", outcount, n - done);
    }
    for (int c = 0; c < outcount; ++c) {
      const int i = indices[c];
      CHECK(i >= 0 && i < n && !seen[i], "mode %d: index %d completed twice or out of range", mode, i);
      CHECK(reqs[i] == MPI_REQUEST_NULL, "mode %d: completed request %d not set to MPI_REQUEST_NULL", mode, i);
      CHECK(statuses[c].MPI_SOURCE == i + 1 && statuses[c].MPI_TAG == 10 + mode, "mode %d: status (%d, %d)", mode,
            statuses[c].MPI_SOURCE, statuses[c].MPI_TAG);
      CHECK(got[i] == (i + 1) * 3 + mode, "mode %d: message from %d is %d", mode, i + 1, got[i]);
      seen[i] = 1;
      ++done;
    }
  }
  /* nothing active any more */
  int outcount = 0, index = 0, flag = 0;
  OK(MPI_Waitsome(n, reqs, &outcount, indices, statuses));
  CHECK(outcount == MPI_UNDEFINED, "waitsome on inactive requests: outcount %d", outcount);
  OK(MPI_Testsome(n, reqs, &outcount, indices, statuses));
  CHECK(outcount == MPI_UNDEFINED, "testsome on inactive requests: outcount %d", outcount);
  OK(MPI_Testany(n, reqs, &index, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && index == MPI_UNDEFINED, "testany on inactive requests: flag %d index %d", flag, index);
  free(reqs), free(got), free(seen), free(indices), free(statuses);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "run with at least 2 ranks");
  for (int mode = 0; mode < 3; ++mode) {
    if (rank == 0) {
      collect(size, mode);
    } else {
      OK(MPI_Barrier(MPI_COMM_WORLD));
      int v = rank * 3 + mode;
      OK(MPI_Send(&v, 1, MPI_INT, 0, 10 + mode, MPI_COMM_WORLD));
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int outcount, index;
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Status st[1];
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Waitsome(-1, &r, &outcount, &index, st));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Testsome(1, &r, NULL, &index, st));
  /* MPI_REQUEST_NULL gives the empty status, MPI_ERROR = MPI_SUCCESS included (MPI-3.1
   * §3.7.3; MPICH's rqstatus), from every single-request call. */
  for (int call = 0; call < 4; ++call) {
    int flag = -1;
    r = MPI_REQUEST_NULL;
    st[0].MPI_SOURCE = st[0].MPI_TAG = st[0].MPI_ERROR = 12345;
    if (call == 0) OK(MPI_Wait(&r, st));
    if (call == 1) OK(MPI_Test(&r, &flag, st));
    if (call == 2) OK(MPI_Request_get_status(r, &flag, st));
    if (call == 3) OK(MPI_Waitany(1, &r, &index, st));
    CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG && st[0].MPI_ERROR == MPI_SUCCESS,
          "call %d: the status of MPI_REQUEST_NULL is (%d, %d, %d), not empty", call, st[0].MPI_SOURCE,
          st[0].MPI_TAG, st[0].MPI_ERROR);
    CHECK(flag != 0, "call %d: flag 0 for MPI_REQUEST_NULL", call);
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("completion: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
