/* Persistent requests: a ring exchange set up once with MPI_Send_init / MPI_Recv_init
 * (and MPI_Ssend_init), run many times with MPI_Startall / MPI_Start and completed with
 * MPI_Waitall, MPI_Wait and MPI_Test; the handles stay valid (inactive) between rounds,
 * an inactive request behaves as MPI_REQUEST_NULL in waits and tests, the datatype may
 * be freed after the init, and misuse (starting an active request or a non-persistent
 * one) is MPI_ERR_REQUEST under MPI_ERRORS_RETURN. */
#include "mpitest.h"

#define N 100
#define ROUNDS 25

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[N], in[N];
  MPI_Datatype row;
  OK(MPI_Type_contiguous(N, MPI_INT, &row));
  OK(MPI_Type_commit(&row));
  MPI_Request reqs[2];
  OK(MPI_Recv_init(in, 1, row, left, 7, MPI_COMM_WORLD, &reqs[0]));
  OK(MPI_Send_init(out, 1, row, right, 7, MPI_COMM_WORLD, &reqs[1]));
  OK(MPI_Type_free(&row)); /* the requests keep using it */
  for (int round = 0; round < ROUNDS; ++round) {
    for (int k = 0; k < N; ++k) out[k] = rank * 1000 + round * 10 + k % 10, in[k] = -1;
    OK(MPI_Startall(2, reqs));
    MPI_Status st[2];
    OK(MPI_Waitall(2, reqs, st));
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL, "round %d: a persistent handle was freed",
          round);
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 7, "round %d: status (%d, %d)", round, st[0].MPI_SOURCE,
          st[0].MPI_TAG);
    for (int k = 0; k < N; ++k)
      CHECK(in[k] == left * 1000 + round * 10 + k % 10, "round %d: in[%d]=%d", round, k, in[k]);
  }
  /* inactive: a wait or test returns at once, flag set, empty status */
  int flag = 0;
  MPI_Status st;
  OK(MPI_Test(&reqs[0], &flag, &st));
  CHECK(flag == 1, "test on an inactive persistent request: flag %d", flag);
  OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  CHECK(reqs[1] != MPI_REQUEST_NULL, "wait on an inactive persistent request freed it");

  /* one by one, with MPI_Start and MPI_Wait / MPI_Test, and a synchronous send */
  MPI_Request ss;
  OK(MPI_Ssend_init(out, N, MPI_INT, right, 8, MPI_COMM_WORLD, &ss));
  for (int round = 0; round < 3; ++round) {
    out[0] = round + rank;
    int got[N];
    MPI_Request tag8;
    OK(MPI_Irecv(got, N, MPI_INT, left, 8, MPI_COMM_WORLD, &tag8));
    OK(MPI_Start(&reqs[0]));
    OK(MPI_Start(&ss));
    OK(MPI_Start(&reqs[1]));
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE)); /* the tag-7 receive takes no tag-8 message */
    CHECK(in[0] == round + left, "start round %d: in[0]=%d", round, in[0]);
    do {
      OK(MPI_Test(&ss, &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    CHECK(ss != MPI_REQUEST_NULL, "a completed persistent ssend was freed");
    OK(MPI_Wait(&tag8, MPI_STATUS_IGNORE));
    CHECK(got[0] == round + left, "ssend_init round %d: got %d", round, got[0]);
    OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  }

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  OK(MPI_Start(&reqs[0]));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Start(&reqs[0]));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Startall(2, reqs)); /* all or none: reqs[1] not started */
  OK(MPI_Start(&reqs[1]));
  OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  MPI_Request plain;
  OK(MPI_Isend(out, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &plain));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Start(&plain));
  OK(MPI_Recv(in, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&plain, MPI_STATUS_IGNORE));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send_init(out, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &plain));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Recv_init(in, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &plain));

  OK(MPI_Request_free(&reqs[0]));
  OK(MPI_Request_free(&reqs[1]));
  OK(MPI_Request_free(&ss));
  CHECK(reqs[0] == MPI_REQUEST_NULL && ss == MPI_REQUEST_NULL, "MPI_Request_free left a handle");
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("persistent: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
