/* MPI_Sendrecv_replace, MPI_Request_get_status, MPI_Ibsend, MPI_Bsend_init and
 * MPI_Rsend_init: data, completion and their argument errors. Any number of ranks >= 2
 * (a ring); rank 0 and rank 1 do the pairwise parts. */
#include <string.h>

#include "mpitest.h"

enum { kRing = 1, kStatus = 2, kIbsend = 3, kPersistent = 4, kAfterErrors = 5 };

/* Sendrecv_replace through a strided type in a ring: each rank's message replaces its
 * buffer with its left neighbour's; the gaps between the blocks are left alone. */
static void ring_replace(int rank, int size) {
  MPI_Datatype every_other;
  OK(MPI_Type_vector(64, 1, 2, MPI_INT, &every_other));
  OK(MPI_Type_commit(&every_other));
  int buf[128];
  for (int i = 0; i < 128; ++i) buf[i] = i % 2 == 0 ? rank * 1000 + i : -1;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  OK(MPI_Sendrecv_replace(buf, 1, every_other, right, kRing, left, kRing, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == kRing, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  int count = -1;
  OK(MPI_Get_count(&st, every_other, &count));
  CHECK(count == 1, "MPI_Get_count gave %d", count);
  for (int i = 0; i < 128; ++i) {
    const int expected = i % 2 == 0 ? left * 1000 + i : -1;
    CHECK(buf[i] == expected, "buf[%d] = %d, expected %d", i, buf[i], expected);
  }
  /* From MPI_PROC_NULL: the message goes, nothing comes back, the buffer stays. */
  int value = 7 + rank;
  if (rank == 0) {
    OK(MPI_Sendrecv_replace(&value, 1, MPI_INT, 1, kRing, MPI_PROC_NULL, kRing, MPI_COMM_WORLD, &st));
    CHECK(value == 7 && st.MPI_SOURCE == MPI_PROC_NULL, "value %d, source %d", value, st.MPI_SOURCE);
  } else if (rank == 1) {
    OK(MPI_Sendrecv_replace(&value, 1, MPI_INT, MPI_PROC_NULL, kRing, 0, kRing, MPI_COMM_WORLD, &st));
    CHECK(value == 7, "rank 1 received %d from rank 0, expected 7", value);
  }
  OK(MPI_Type_free(&every_other));
}

/* A refused call sends nothing: the receiver's next message is the one sent after. */
static void replace_errors(int rank) {
  int value = 100 + rank;
  if (rank == 0) {
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Sendrecv_replace(&value, 1, MPI_INT, 99, kRing, 1, kRing, MPI_COMM_WORLD,
                                                    MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Sendrecv_replace(&value, 1, MPI_INT, 1, kRing, 99, kRing, MPI_COMM_WORLD,
                                                    MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_TAG, MPI_Sendrecv_replace(&value, 1, MPI_INT, 1, -5, 1, kRing, MPI_COMM_WORLD,
                                                   MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_TAG, MPI_Sendrecv_replace(&value, 1, MPI_INT, 1, kRing, 1, -5, MPI_COMM_WORLD,
                                                   MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_TYPE, MPI_Sendrecv_replace(&value, 1, MPI_DATATYPE_NULL, 1, kRing, 1, kRing,
                                                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Sendrecv_replace(&value, -1, MPI_INT, 1, kRing, 1, kRing, MPI_COMM_WORLD,
                                                     MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Sendrecv_replace(&value, 1, MPI_INT, 1, kRing, 1, kRing, MPI_COMM_NULL,
                                                    MPI_STATUS_IGNORE));
    CHECK(value == 100, "a refused MPI_Sendrecv_replace changed the buffer to %d", value);
    OK(MPI_Send(&value, 1, MPI_INT, 1, kAfterErrors, MPI_COMM_WORLD));
  } else if (rank == 1) {
    MPI_Status st;
    OK(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == kAfterErrors, "rank 0's first message has tag %d: a refused call sent something",
          st.MPI_TAG);
    OK(MPI_Recv(&value, 1, MPI_INT, 0, kAfterErrors, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(value == 100, "received %d", value);
  }
}

/* MPI_Request_get_status reports completion and leaves the request to the wait. */
static void request_get_status(int rank) {
  int flag = -1;
  MPI_Status st;
  OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
  CHECK(flag == 1 && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
        "MPI_REQUEST_NULL: flag %d source %d tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Request_get_status((MPI_Request)0x12345, &flag, &st));
  if (rank == 0) {
    int value = 0;
    MPI_Request r;
    OK(MPI_Irecv(&value, 1, MPI_INT, 1, kStatus, MPI_COMM_WORLD, &r));
    OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag == 0, "the receive is done before rank 1 sent");
    OK(MPI_Barrier(MPI_COMM_WORLD));  /* rank 1 sends after it */
    int polls = 0;
    do {
      OK(MPI_Request_get_status(r, &flag, &st));
      ++polls;
    } while (!flag && polls < 1000000);
    CHECK(flag == 1, "not done after %d polls", polls);
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == kStatus && value == 42, "source %d tag %d value %d", st.MPI_SOURCE,
          st.MPI_TAG, value);
    OK(MPI_Request_get_status(r, &flag, &st)); /* again: still there */
    CHECK(flag == 1 && r != MPI_REQUEST_NULL, "the request went away");
    MPI_Status waited;
    OK(MPI_Wait(&r, &waited));
    CHECK(r == MPI_REQUEST_NULL && waited.MPI_SOURCE == 1 && waited.MPI_TAG == kStatus,
          "MPI_Wait after MPI_Request_get_status: request %d source %d", (int)r, waited.MPI_SOURCE);
  } else {
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
      int value = 42;
      OK(MPI_Send(&value, 1, MPI_INT, 0, kStatus, MPI_COMM_WORLD));
    }
  }
}

/* MPI_Ibsend is complete once the message is in the attached buffer, before the
 * receiver posts anything; the persistent buffered and ready sends deliver each start. */
static void buffered_and_persistent(int rank) {
  enum { kBig = 1 << 20 }; /* past the eager threshold: a rendezvous from the copy */
  unsigned char* big = malloc(kBig);
  CHECK(big != NULL, "malloc");
  if (rank == 0) {
    MPI_Request r;
    EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Ibsend(big, kBig, MPI_BYTE, 1, kIbsend, MPI_COMM_WORLD, &r));
    const int attached = kBig + 3 * 4 * (int)sizeof(int) + 8 * MPI_BSEND_OVERHEAD;
    void* attach = malloc(attached);
    OK(MPI_Buffer_attach(attach, attached));
    for (size_t i = 0; i < kBig; ++i) big[i] = pattern(0, 1, i);
    OK(MPI_Ibsend(big, kBig, MPI_BYTE, 1, kIbsend, MPI_COMM_WORLD, &r));
    memset(big, 0, kBig); /* the message was copied */
    int flag = 0;
    OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && r == MPI_REQUEST_NULL, "MPI_Ibsend's request is not complete at once");
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Ibsend(big, 1, MPI_BYTE, 1, kIbsend, MPI_COMM_WORLD, NULL));
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Ibsend(big, 1, MPI_BYTE, 77, kIbsend, MPI_COMM_WORLD, &r));
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* rank 1 receives only now */

    int values[4] = {0, 0, 0, 0};
    MPI_Request bsend, rsend;
    OK(MPI_Bsend_init(values, 4, MPI_INT, 1, kPersistent, MPI_COMM_WORLD, &bsend));
    OK(MPI_Rsend_init(values, 4, MPI_INT, 1, kPersistent + 1, MPI_COMM_WORLD, &rsend));
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 4; ++i) values[i] = round * 10 + i;
      OK(MPI_Start(&bsend));
      memset(values, 0, sizeof values); /* buffered: copied at the start */
      OK(MPI_Wait(&bsend, MPI_STATUS_IGNORE));
      CHECK(bsend != MPI_REQUEST_NULL, "a persistent request went away");
      OK(MPI_Barrier(MPI_COMM_WORLD)); /* rank 1 has posted the ready-mode receive */
      for (int i = 0; i < 4; ++i) values[i] = -(round * 10 + i);
      OK(MPI_Start(&rsend));
      OK(MPI_Wait(&rsend, MPI_STATUS_IGNORE));
    }
    OK(MPI_Request_free(&bsend));
    OK(MPI_Request_free(&rsend));
    void* detached;
    int detached_size;
    OK(MPI_Buffer_detach(&detached, &detached_size));
    CHECK(detached == attach && detached_size == attached, "detached %p (%d bytes)", detached, detached_size);
    /* Started without a buffer: the error comes from MPI_Start. */
    OK(MPI_Bsend_init(values, 4, MPI_INT, 1, kPersistent, MPI_COMM_WORLD, &bsend));
    EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Start(&bsend));
    OK(MPI_Request_free(&bsend));
    free(attach);
  } else if (rank == 1) {
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Recv(big, kBig, MPI_BYTE, 0, kIbsend, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < kBig; ++i) CHECK(big[i] == pattern(0, 1, i), "big[%zu] = %d", i, big[i]);
    for (int round = 0; round < 3; ++round) {
      int got[4];
      MPI_Request ready;
      OK(MPI_Recv(got, 4, MPI_INT, 0, kPersistent, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < 4; ++i) CHECK(got[i] == round * 10 + i, "round %d: got[%d] = %d", round, i, got[i]);
      OK(MPI_Irecv(got, 4, MPI_INT, 0, kPersistent + 1, MPI_COMM_WORLD, &ready));
      OK(MPI_Barrier(MPI_COMM_WORLD));
      OK(MPI_Wait(&ready, MPI_STATUS_IGNORE));
      for (int i = 0; i < 4; ++i) CHECK(got[i] == -(round * 10 + i), "ready round %d: got[%d] = %d", round, i, got[i]);
    }
  } else {
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int round = 0; round < 3; ++round) OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  free(big);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 ranks");
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  ring_replace(rank, size);
  replace_errors(rank);
  request_get_status(rank);
  buffered_and_persistent(rank);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("pt2pt_extras: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
