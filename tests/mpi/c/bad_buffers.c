/* Buffer arguments MPI forbids, under MPI_ERRORS_RETURN: each call fails with its class
 * before it reads, writes, sends or receives anything, and the communicator still
 * works afterwards.
 *  - MPI_IN_PLACE where the standard does not allow it (it is a marker whose value,
 *    (void*)-1, no buffer has: once it crashed every rank, read as a buffer);
 *  - the same buffer as sendbuf and recvbuf of a v-collective (MPICH's check);
 *  - MPI_Sendrecv with a bad send half must not consume the message its receive half
 *    would have matched;
 *  - a gather whose root's own block is truncated returns MPI_ERR_TRUNCATE at the root
 *    only once every other block has arrived (nothing lands in recvbuf after the call);
 *  - MPI_Pack/MPI_Unpack with null, MPI_IN_PLACE or negatively sized buffers.
 * Errors a root alone would see are made on MPI_COMM_SELF: in a larger communicator
 * the other ranks would still be inside the collective (an erroneous program). */
#include <string.h>

#include "mpitest.h"

#define IN_PLACE MPI_IN_PLACE

/* A ring exchange that must still deliver the right values. */
static void still_works(MPI_Comm comm, int seq) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int out = 1000 * seq + rank, in = -1;
  OK(MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 7, &in, 1, MPI_INT, (rank + size - 1) % size, 7, comm,
                  MPI_STATUS_IGNORE));
  CHECK(in == 1000 * seq + (rank + size - 1) % size, "after step %d: got %d", seq, in);
  int sum = 0;
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size - 1) / 2, "after step %d: allreduce gave %d", seq, sum);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2 && size <= 16, "run with 2 to 16 ranks");
  const MPI_Comm W = MPI_COMM_WORLD, S = MPI_COMM_SELF;
  OK(MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN));
  OK(MPI_Comm_set_errhandler(S, MPI_ERRORS_RETURN));
  int a[16], b[16], counts[16], displs[16];
  for (int i = 0; i < 16; ++i) a[i] = b[i] = i, counts[i] = 1, displs[i] = i;

  /* MPI_IN_PLACE where it is not allowed, every rank alike. */
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Allreduce(a, IN_PLACE, 1, MPI_INT, MPI_SUM, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Allreduce(IN_PLACE, IN_PLACE, 1, MPI_INT, MPI_SUM, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Bcast(IN_PLACE, 1, MPI_INT, 0, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Allgather(a, 1, MPI_INT, IN_PLACE, 1, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Allgather(IN_PLACE, 1, MPI_INT, IN_PLACE, 1, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Alltoall(a, 1, MPI_INT, IN_PLACE, 1, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Alltoall(IN_PLACE, 1, MPI_INT, IN_PLACE, 1, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Scan(a, IN_PLACE, 1, MPI_INT, MPI_SUM, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Exscan(a, IN_PLACE, 1, MPI_INT, MPI_SUM, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Allgatherv(a, 1, MPI_INT, IN_PLACE, counts, displs, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Alltoallv(a, counts, displs, MPI_INT, IN_PLACE, counts, displs, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Reduce_scatter_block(a, IN_PLACE, 1, MPI_INT, MPI_SUM, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Reduce_scatter(a, IN_PLACE, counts, MPI_INT, MPI_SUM, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Reduce(a, IN_PLACE, 1, MPI_INT, MPI_SUM, 0, S));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Gather(a, 1, MPI_INT, IN_PLACE, 1, MPI_INT, 0, S));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Scatter(IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, S));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Gatherv(a, 1, MPI_INT, IN_PLACE, counts, displs, MPI_INT, 0, S));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Scatterv(IN_PLACE, counts, displs, MPI_INT, b, 1, MPI_INT, 0, S));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Send(IN_PLACE, 1, MPI_INT, (rank + 1) % size, 0, W));
  MPI_Request req;
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Isend(IN_PLACE, 1, MPI_INT, (rank + 1) % size, 0, W, &req));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Recv(IN_PLACE, 1, MPI_INT, (rank + size - 1) % size, 0, W, MPI_STATUS_IGNORE));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Irecv(IN_PLACE, 1, MPI_INT, (rank + size - 1) % size, 0, W, &req));
  for (int i = 0; i < 16; ++i)
    CHECK(a[i] == i && b[i] == i, "a refused call wrote a[%d]=%d b[%d]=%d", i, a[i], i, b[i]);
  still_works(W, 1);

  /* The reduce-scatter refused on every rank left nothing behind: a later scatterv
   * gets its own data (a root-only acceptance once left blocks that matched it). */
  {
    int rows[16], got = -1;
    for (int i = 0; i < size; ++i) rows[i] = 500 + i;
    OK(MPI_Scatterv(rows, counts, displs, MPI_INT, &got, 1, MPI_INT, 0, W));
    CHECK(got == 500 + rank, "scatterv after a refused reduce-scatter got %d", got);
  }

  /* The same buffer as sendbuf and recvbuf of a v-collective. */
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Alltoallv(a, counts, displs, MPI_INT, a, counts, displs, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Allgatherv(a, 1, MPI_INT, a, counts, displs, MPI_INT, W));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Gatherv(a, 1, MPI_INT, a, counts, displs, MPI_INT, 0, S));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Scatterv(a, counts, displs, MPI_INT, a, 1, MPI_INT, 0, S));
  for (int i = 0; i < 16; ++i) CHECK(a[i] == i, "a refused v-collective wrote a[%d]=%d", i, a[i]);
  still_works(W, 2);

  /* MPI_Sendrecv whose send half is bad: the message waiting for its receive half stays. */
  if (rank == 1) OK(MPI_Send(&rank, 1, MPI_INT, 0, 11, W));
  OK(MPI_Barrier(W));
  if (rank == 0) {
    int v = 5, in = -1, flag = 0;
    MPI_Status st;
    OK(MPI_Probe(1, 11, W, &st)); /* it has arrived */
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Sendrecv(&v, 1, MPI_INT, size, 0, &in, 1, MPI_INT, 1, 11, W, MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Sendrecv(&v, -1, MPI_INT, 1, 0, &in, 1, MPI_INT, 1, 11, W, MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_TAG, MPI_Sendrecv(&v, 1, MPI_INT, 1, -5, &in, 1, MPI_INT, 1, 11, W, MPI_STATUS_IGNORE));
    EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Sendrecv(IN_PLACE, 1, MPI_INT, 1, 0, &in, 1, MPI_INT, 1, 11, W,
                                              MPI_STATUS_IGNORE));
    CHECK(in == -1, "a refused MPI_Sendrecv received %d", in);
    OK(MPI_Iprobe(1, 11, W, &flag, &st));
    CHECK(flag, "a refused MPI_Sendrecv consumed the waiting message");
    OK(MPI_Recv(&in, 1, MPI_INT, 1, 11, W, MPI_STATUS_IGNORE));
    CHECK(in == 1, "the waiting message held %d", in);
  }
  still_works(W, 3);

  /* Gather whose root's own block is truncated (every rank sends 2, the root takes 1
   * per rank): the error comes after the other blocks arrived, nothing lands later. */
  for (int v = 0; v < 2; ++v) {
    int mine[2] = {100 + rank, 200 + rank}, all[16];
    for (int i = 0; i < 16; ++i) all[i] = -1;
    int rc = v == 0 ? MPI_Gather(mine, 2, MPI_INT, all, 1, MPI_INT, 0, W)
                    : MPI_Gatherv(mine, 2, MPI_INT, all, counts, displs, MPI_INT, 0, W);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    /* The senders' part succeeds; only the root sees the truncation. */
    const int want = rank == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    CHECK(cls == want, "%s: class %d, expected %d", v == 0 ? "MPI_Gather" : "MPI_Gatherv", cls, want);
    int seen[16];
    memcpy(seen, all, sizeof seen);
    OK(MPI_Barrier(W));
    OK(MPI_Barrier(W));
    if (rank == 0)
      CHECK(memcmp(seen, all, sizeof seen) == 0, "%s wrote into recvbuf after it returned",
            v == 0 ? "MPI_Gather" : "MPI_Gatherv");
    still_works(W, 4 + v);
  }

  /* MPI_Pack / MPI_Unpack. */
  {
    char packed[64];
    int pos = 0;
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack(NULL, 2, MPI_INT, packed, sizeof packed, &pos, W));
    EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Pack(IN_PLACE, 2, MPI_INT, packed, sizeof packed, &pos, W));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack(a, 2, MPI_INT, NULL, sizeof packed, &pos, W));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack(a, 2, MPI_INT, packed, -1, &pos, W));
    CHECK(pos == 0, "a refused MPI_Pack moved position to %d", pos);
    OK(MPI_Pack(a, 2, MPI_INT, packed, sizeof packed, &pos, W));
    int size8 = pos;
    pos = 0;
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Unpack(packed, size8, &pos, NULL, 2, MPI_INT, W));
    EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Unpack(packed, size8, &pos, IN_PLACE, 2, MPI_INT, W));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Unpack(NULL, size8, &pos, b, 2, MPI_INT, W));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Unpack(packed, -1, &pos, b, 2, MPI_INT, W));
    CHECK(pos == 0, "a refused MPI_Unpack moved position to %d", pos);
    int back[2] = {-1, -1};
    OK(MPI_Unpack(packed, size8, &pos, back, 2, MPI_INT, W));
    CHECK(back[0] == 0 && back[1] == 1, "unpacked %d %d", back[0], back[1]);
  }

  /* MPI_PROC_NULL does not excuse a bad tag (a receive's is checked too). */
  {
    MPI_Status st;
    int flag = 0;
    EXPECT_CLASS(MPI_ERR_TAG, MPI_Probe(MPI_PROC_NULL, -3, W, &st));
    EXPECT_CLASS(MPI_ERR_TAG, MPI_Iprobe(MPI_PROC_NULL, -3, W, &flag, &st));
    OK(MPI_Probe(MPI_PROC_NULL, 3, W, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "probe of MPI_PROC_NULL gave source %d", st.MPI_SOURCE);
  }
  still_works(W, 6);
  OK(MPI_Finalize());
  if (rank == 0) printf("bad_buffers: ok\n");
  return 0;
}
