/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0): data and statuses around a ring
 * (small and rendezvous-sized messages, several exchanges in flight, strided types),
 * MPI_PROC_NULL peers, truncation, MPI_Cancel and MPI_Request_free of their requests,
 * and argument errors that must post nothing. Any number of ranks (1: every peer is
 * the rank itself). */
#include <string.h>

#include "mpitest.h"

enum { kSmall = 1, kLarge = 2, kLeftward = 3, kReplace = 4, kTrunc = 5, kAfterErrors = 6, kFreed = 7, kCancel = 8, kEarly = 9, kGo = 10 };

static int rank, size, left, right;

/* A ring exchange of n ints: sent to the right, received from the left, completed by
 * MPI_Wait or, when `poll`, by MPI_Test in a loop. */
static void ring(int n, int tag, int poll) {
  int* out = malloc(sizeof(int) * n);
  int* in = malloc(sizeof(int) * (n + 1));
  for (int i = 0; i < n; ++i) out[i] = rank * 100000 + i;
  for (int i = 0; i <= n; ++i) in[i] = -1;
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Status st;
  OK(MPI_Isendrecv(out, n, MPI_INT, right, tag, in, n + 1, MPI_INT, left, tag, MPI_COMM_WORLD, &r));
  CHECK(r != MPI_REQUEST_NULL, "MPI_Isendrecv gave MPI_REQUEST_NULL");
  if (poll) {
    int flag = 0, polls = 0;
    while (!flag) {
      OK(MPI_Test(&r, &flag, &st));
      ++polls;
    }
    CHECK(polls < 10000000, "%d polls", polls);
  } else {
    OK(MPI_Wait(&r, &st));
  }
  CHECK(r == MPI_REQUEST_NULL, "the request is still there after it completed");
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == tag, "status source %d tag %d, expected %d %d", st.MPI_SOURCE,
        st.MPI_TAG, left, tag);
  int count = -1;
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == n, "MPI_Get_count gave %d, expected %d", count, n);
  for (int i = 0; i < n; ++i) CHECK(in[i] == left * 100000 + i, "in[%d] = %d from rank %d", i, in[i], left);
  CHECK(in[n] == -1, "the element after the message was written: %d", in[n]);
  free(out);
  free(in);
}

/* Both directions at once, each with two requests in flight, completed together. */
static void both_ways(int n) {
  int* out = malloc(sizeof(int) * n);
  int* from_left = malloc(sizeof(int) * n);
  int* from_right = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) out[i] = rank * 7 + i, from_left[i] = from_right[i] = -1;
  MPI_Request r[2];
  MPI_Status st[2];
  OK(MPI_Isendrecv(out, n, MPI_INT, right, kSmall, from_left, n, MPI_INT, left, kSmall, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Isendrecv(out, n, MPI_INT, left, kLeftward, from_right, n, MPI_INT, right, kLeftward, MPI_COMM_WORLD,
                   &r[1]));
  OK(MPI_Waitall(2, r, st));
  CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == kSmall, "rightward status %d %d", st[0].MPI_SOURCE,
        st[0].MPI_TAG);
  CHECK(st[1].MPI_SOURCE == right && st[1].MPI_TAG == kLeftward, "leftward status %d %d", st[1].MPI_SOURCE,
        st[1].MPI_TAG);
  for (int i = 0; i < n; ++i) {
    CHECK(from_left[i] == left * 7 + i, "from_left[%d] = %d", i, from_left[i]);
    CHECK(from_right[i] == right * 7 + i, "from_right[%d] = %d", i, from_right[i]);
  }
  free(out);
  free(from_left);
  free(from_right);
}

/* MPI_Isendrecv_replace through a strided type: each block of the buffer becomes the
 * left neighbour's, the gaps stay. n blocks; large n makes it a rendezvous, where the
 * incoming data may land before the outgoing has been read. */
static void ring_replace(int n) {
  MPI_Datatype every_other;
  OK(MPI_Type_vector(n, 1, 2, MPI_INT, &every_other));
  OK(MPI_Type_commit(&every_other));
  int* buf = malloc(sizeof(int) * 2 * n);
  for (int i = 0; i < 2 * n; ++i) buf[i] = i % 2 == 0 ? rank * 1000000 + i : -1;
  MPI_Request r;
  MPI_Status st;
  OK(MPI_Isendrecv_replace(buf, 1, every_other, right, kReplace, left, kReplace, MPI_COMM_WORLD, &r));
  /* The buffer belongs to the operation now; the data to send was taken at the call. */
  OK(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == kReplace, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  int count = -1;
  OK(MPI_Get_count(&st, every_other, &count));
  CHECK(count == 1, "MPI_Get_count gave %d", count);
  OK(MPI_Get_elements(&st, every_other, &count));
  CHECK(count == n, "MPI_Get_elements gave %d, expected %d", count, n);
  for (int i = 0; i < 2 * n; ++i) {
    const int expected = i % 2 == 0 ? left * 1000000 + i : -1;
    CHECK(buf[i] == expected, "buf[%d] = %d, expected %d", i, buf[i], expected);
  }
  free(buf);
  OK(MPI_Type_free(&every_other));
}

/* MPI_Isendrecv_replace whose receive completes long before its send is taken: rank
 * 1's small message overwrites rank 0's buffer while rank 1 has not yet posted the
 * receive of rank 0's large (rendezvous) one, which must still be what the buffer
 * held at the call. Ranks 0 and 1. */
static void replace_overwrites_early(void) {
  const int n = 300000;
  int go = 0;
  if (rank == 0) {
    int* buf = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) buf[i] = 3 * i + 1;
    MPI_Request r;
    MPI_Status st;
    OK(MPI_Isendrecv_replace(buf, n, MPI_INT, 1, kEarly, 1, kEarly, MPI_COMM_WORLD, &r));
    /* Rank 1 sent its small message before this one: it has landed in buf now. */
    OK(MPI_Recv(&go, 1, MPI_INT, 1, kGo, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int flag = 1;
    OK(MPI_Test(&r, &flag, &st));
    CHECK(flag == 0, "the exchange completed before rank 1 received its large message");
    OK(MPI_Send(&go, 1, MPI_INT, 1, kGo, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, &st));
    int count = -1;
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 2 && buf[0] == -11 && buf[1] == -12 && buf[2] == 7, "received %d: %d %d %d", count, buf[0],
          buf[1], buf[2]);
    free(buf);
  } else if (rank == 1) {
    int* in = malloc(sizeof(int) * n);
    const int small[2] = {-11, -12};
    OK(MPI_Send(small, 2, MPI_INT, 0, kEarly, MPI_COMM_WORLD));
    OK(MPI_Send(&go, 1, MPI_INT, 0, kGo, MPI_COMM_WORLD));
    OK(MPI_Recv(&go, 1, MPI_INT, 0, kGo, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Recv(in, n, MPI_INT, 0, kEarly, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; ++i) CHECK(in[i] == 3 * i + 1, "in[%d] = %d, expected %d", i, in[i], 3 * i + 1);
    free(in);
  }
}

/* MPI_PROC_NULL peers: nothing comes, the buffer stays, the status is MPI_PROC_NULL's. */
static void proc_null(void) {
  int out = 5, in = -3;
  MPI_Request r;
  MPI_Status st;
  OK(MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 1, &in, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
  OK(MPI_Wait(&r, &st));
  int count = -1;
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 && in == -3,
        "source %d tag %d count %d in %d", st.MPI_SOURCE, st.MPI_TAG, count, in);
  int value = 11;
  OK(MPI_Isendrecv_replace(&value, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
  OK(MPI_Wait(&r, &st));
  CHECK(value == 11 && st.MPI_SOURCE == MPI_PROC_NULL, "value %d source %d", value, st.MPI_SOURCE);
  /* Send to the right, receive from nobody; the right neighbour receives it with MPI_Recv. */
  value = 40 + rank;
  OK(MPI_Isendrecv_replace(&value, 1, MPI_INT, right, kSmall, MPI_PROC_NULL, kSmall, MPI_COMM_WORLD, &r));
  int got = -1;
  MPI_Request recv;
  OK(MPI_Irecv(&got, 1, MPI_INT, left, kSmall, MPI_COMM_WORLD, &recv));
  OK(MPI_Wait(&r, &st));
  OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  CHECK(value == 40 + rank && got == 40 + left, "value %d, received %d from %d", value, got, left);
}

/* A receive too small: the request's error is MPI_ERR_TRUNCATE, from MPI_Wait, or
 * MPI_ERR_IN_STATUS with MPI_ERROR set from MPI_Waitall. */
static void truncation(void) {
  int out[8] = {1, 2, 3, 4, 5, 6, 7, 8}, in[4] = {0};
  MPI_Request r[2];
  MPI_Status st[2];
  OK(MPI_Isendrecv(out, 8, MPI_INT, right, kTrunc, in, 4, MPI_INT, left, kTrunc, MPI_COMM_WORLD, &r[0]));
  EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Wait(&r[0], &st[0]));
  CHECK(r[0] == MPI_REQUEST_NULL, "a truncated request stayed");
  OK(MPI_Isendrecv(out, 8, MPI_INT, right, kTrunc, in, 4, MPI_INT, left, kTrunc, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Isendrecv(out, 2, MPI_INT, right, kSmall, in, 2, MPI_INT, left, kSmall, MPI_COMM_WORLD, &r[1]));
  EXPECT_CLASS(MPI_ERR_IN_STATUS, MPI_Waitall(2, r, st));
  CHECK(st[0].MPI_ERROR == MPI_ERR_TRUNCATE && st[1].MPI_ERROR == MPI_SUCCESS, "MPI_ERROR %d %d", st[0].MPI_ERROR,
        st[1].MPI_ERROR);
}

/* MPI_Cancel leaves the exchange to complete (not cancelled); MPI_Request_free lets
 * it complete on its own, its data still arriving. */
static void cancel_and_free(void) {
  int out = 300 + rank, in = -1, flag = -1;
  MPI_Request r;
  MPI_Status st;
  OK(MPI_Isendrecv(&out, 1, MPI_INT, right, kCancel, &in, 1, MPI_INT, left, kCancel, MPI_COMM_WORLD, &r));
  OK(MPI_Cancel(&r));
  OK(MPI_Wait(&r, &st));
  OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0 && in == 300 + left, "after MPI_Cancel: cancelled %d, received %d", flag, in);

  int value = 500 + rank;
  OK(MPI_Isendrecv_replace(&value, 1, MPI_INT, right, kFreed, MPI_PROC_NULL, kFreed, MPI_COMM_WORLD, &r));
  OK(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
  value = -7; /* the message was packed at the call */
  OK(MPI_Recv(&in, 1, MPI_INT, left, kFreed, MPI_COMM_WORLD, &st));
  CHECK(in == 500 + left, "a freed MPI_Isendrecv_replace delivered %d, expected %d", in, 500 + left);
}

/* Refused calls post nothing: the next message each rank receives is the one sent
 * after them. */
static void errors(void) {
  int out = 900 + rank, in = -1;
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Comm w = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Isendrecv(&out, 1, MPI_INT, right, kAfterErrors, &in, 1, MPI_INT, left, kAfterErrors,
                                          w, NULL));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Isendrecv(&out, 1, MPI_INT, size, kAfterErrors, &in, 1, MPI_INT, left,
                                           kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Isendrecv(&out, 1, MPI_INT, right, kAfterErrors, &in, 1, MPI_INT, -7,
                                           kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Isendrecv(&out, 1, MPI_INT, right, -1, &in, 1, MPI_INT, left, kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Isendrecv(&out, 1, MPI_INT, right, kAfterErrors, &in, 1, MPI_INT, left, -5, w, &r));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Isendrecv(&out, 1, MPI_DATATYPE_NULL, right, kAfterErrors, &in, 1, MPI_INT, left,
                                           kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Isendrecv(&out, 1, MPI_INT, right, kAfterErrors, &in, 1, MPI_DATATYPE_NULL, left,
                                           kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Isendrecv(&out, -1, MPI_INT, right, kAfterErrors, &in, 1, MPI_INT, left,
                                            kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Isendrecv(&out, 1, MPI_INT, right, kAfterErrors, &in, -1, MPI_INT, left,
                                            kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Isendrecv(&out, 1, MPI_INT, right, kAfterErrors, NULL, 1, MPI_INT, left,
                                             kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Isendrecv(&out, 1, MPI_INT, right, kAfterErrors, &in, 1, MPI_INT, left,
                                           kAfterErrors, MPI_COMM_NULL, &r));
  int value = out;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Isendrecv_replace(&value, 1, MPI_INT, right, kAfterErrors, left, kAfterErrors, w,
                                                  NULL));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Isendrecv_replace(&value, 1, MPI_INT, right, kAfterErrors, size + 3, kAfterErrors,
                                                   w, &r));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Isendrecv_replace(&value, 1, MPI_INT, right, kAfterErrors, left, -9, w, &r));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Isendrecv_replace(&value, 1, MPI_DATATYPE_NULL, right, kAfterErrors, left,
                                                   kAfterErrors, w, &r));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Isendrecv_replace(&value, -2, MPI_INT, right, kAfterErrors, left, kAfterErrors, w,
                                                    &r));
  CHECK(r == MPI_REQUEST_NULL && value == out && in == -1, "a refused call changed something: %d %d %d", r, value,
        in);
  /* Every refused call happened on every rank: the message below is the first with its tag. */
  out += 10000;
  OK(MPI_Sendrecv(&out, 1, MPI_INT, right, kAfterErrors, &in, 1, MPI_INT, left, kAfterErrors, w, MPI_STATUS_IGNORE));
  CHECK(in == 10900 + left, "after the refused calls rank %d received %d, expected %d", rank, in, 10900 + left);
  int flag = 1;
  OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 0, "a message is left over after the refused calls");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  ring(4, kSmall, 0);
  ring(4, kSmall, 1);
  ring(300000, kLarge, 0); /* 1.2 MB: a rendezvous */
  ring(300000, kLarge, 1);
  both_ways(16);
  both_ways(100000);
  ring_replace(8);
  ring_replace(200000);
  if (size >= 2) replace_overwrites_early();
  proc_null();
  truncation();
  cancel_and_free();
  errors();
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("isendrecv: OK\n");
  MPI_Finalize();
  return 0;
}
