/* MPI_Comm_create_group: collective over the group only. The odd ranks (highest
 * first) and the even ranks build their communicators at the same time, each group
 * without the other; ranks follow the group's order, point-to-point and collectives
 * work inside, the error handler is inherited. Growing prefixes of the world, called
 * by their members only, one after the other. The new communicator's context id is
 * agreed among the members only: a MPI_Comm_dup of the world made next must still
 * be a different matching space on every member (checked with one tag on both).
 * A caller outside the group gets MPI_COMM_NULL. Errors: invalid tag, null group, a
 * group with a member outside the communicator. */
#include "mpitest.h"

static MPI_Group parity_group(MPI_Group world, int size, int parity) {
  const int top = parity + ((size - 1 - parity) / 2) * 2;
  int range[1][3] = {{top, parity, -2}};
  MPI_Group g;
  OK(MPI_Group_range_incl(world, 1, range, &g));
  return g;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Group world;
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world));

  /* Each parity on its own, highest rank first. */
  const int parity = rank % 2;
  MPI_Group mine = parity_group(world, size, parity);
  MPI_Comm comm;
  OK(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 10 + parity, &comm));
  CHECK(comm != MPI_COMM_NULL, "a member got MPI_COMM_NULL");
  const int top = parity + ((size - 1 - parity) / 2) * 2;
  int crank, csize;
  OK(MPI_Comm_rank(comm, &crank));
  OK(MPI_Comm_size(comm, &csize));
  CHECK(csize == (top - parity) / 2 + 1, "parity %d: %d ranks", parity, csize);
  CHECK(crank == (top - rank) / 2, "rank %d is %d, expected %d", rank, crank, (top - rank) / 2);
  MPI_Errhandler eh;
  OK(MPI_Comm_get_errhandler(comm, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "the error handler was not inherited");
  OK(MPI_Errhandler_free(&eh));
  int token = rank, got = -1;
  OK(MPI_Sendrecv(&token, 1, MPI_INT, (crank + 1) % csize, 3, &got, 1, MPI_INT, (crank + csize - 1) % csize, 3, comm,
                  MPI_STATUS_IGNORE));
  CHECK(got == top - 2 * ((crank + csize - 1) % csize), "ring in the parity communicator got %d", got);
  int sum = -1, want = 0;
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  for (int r = parity; r < size; r += 2) want += r;
  CHECK(sum == want, "sum %d, expected %d", sum, want);

  /* Not a member: MPI_COMM_NULL, without waiting for anyone. */
  if (size > 1) {
    MPI_Group other = parity_group(world, size, 1 - parity);
    MPI_Comm none = MPI_COMM_WORLD;
    OK(MPI_Comm_create_group(MPI_COMM_WORLD, other, 5, &none));
    CHECK(none == MPI_COMM_NULL, "a caller outside the group got a communicator");
    OK(MPI_Group_free(&other));
  }

  /* Growing prefixes of the world, by their members only; then a dup of the world,
   * whose matching space must differ from each prefix's on its members. */
  for (int k = 1; k <= size; k *= 2) {
    int range[1][3] = {{0, k - 1, 1}};
    MPI_Group prefix;
    OK(MPI_Group_range_incl(world, 1, range, &prefix));
    MPI_Comm pc = MPI_COMM_NULL;
    if (rank < k) {
      OK(MPI_Comm_create_group(MPI_COMM_WORLD, prefix, 0, &pc));
      int n = 0;
      OK(MPI_Allreduce(&token, &n, 1, MPI_INT, MPI_MAX, pc));
      CHECK(n == k - 1, "prefix %d: max %d", k, n);
    }
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    if (rank < k && k > 1) {
      /* The same source, tag and pair on both communicators: each receive must get
       * its own communicator's message. */
      const int peer = rank ^ 1;
      if (peer < k) {
        int a = 100 + rank, b = 200 + rank, ra = -1, rb = -1;
        MPI_Request rq[2];
        OK(MPI_Isend(&a, 1, MPI_INT, peer, 7, pc, &rq[0]));
        OK(MPI_Isend(&b, 1, MPI_INT, peer, 7, dup, &rq[1]));
        OK(MPI_Recv(&rb, 1, MPI_INT, peer, 7, dup, MPI_STATUS_IGNORE));
        OK(MPI_Recv(&ra, 1, MPI_INT, peer, 7, pc, MPI_STATUS_IGNORE));
        OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CHECK(rb == 200 + peer && ra == 100 + peer, "prefix %d: dup got %d, prefix got %d", k, rb, ra);
      }
    }
    if (pc != MPI_COMM_NULL) OK(MPI_Comm_free(&pc));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Group_free(&prefix));
  }

  /* Errors. */
  MPI_Comm bad = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Comm_create_group(MPI_COMM_WORLD, mine, -1, &bad));
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &bad));
  if (size > 1) {
    /* The world's group is not a subset of a parity communicator. */
    EXPECT_CLASS(MPI_ERR_GROUP, MPI_Comm_create_group(comm, world, 0, &bad));
  }
  CHECK(bad == MPI_COMM_WORLD, "a refused call wrote newcomm");
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_create_group(MPI_COMM_WORLD, mine, 0, NULL));

  OK(MPI_Comm_free(&comm));
  OK(MPI_Group_free(&mine));
  OK(MPI_Group_free(&world));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("comm_create_group: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}
