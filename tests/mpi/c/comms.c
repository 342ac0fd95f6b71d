/* Communicators and groups: dup (isolated matching space, inherited error handler),
 * split by parity with reversed keys, compare, groups (incl, translate_ranks,
 * size/rank), collectives and point-to-point inside the new communicators, free. */
#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  MPI_Comm dup, half, none;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Errhandler eh;
  OK(MPI_Comm_get_errhandler(dup, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "dup did not inherit the error handler");
  OK(MPI_Errhandler_free(&eh));
  int result;
  OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT, "compare world/dup %d", result);
  OK(MPI_Comm_compare(dup, dup, &result));
  CHECK(result == MPI_IDENT, "compare dup/dup %d", result);

  /* Intracommunicators only: test_inter says so, remote_size is an error. */
  int inter = -1, remote = -7;
  OK(MPI_Comm_test_inter(dup, &inter));
  CHECK(inter == 0, "MPI_Comm_test_inter gave %d", inter);
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_remote_size(dup, &remote));
  CHECK(remote == -7, "a refused MPI_Comm_remote_size wrote %d", remote);
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_test_inter(MPI_COMM_NULL, &inter));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_test_inter(dup, NULL));

  /* Same tag, same peers, different communicators: messages do not cross. */
  if (size >= 2 && rank < 2) {
    int peer = 1 - rank, a = 10 + rank, b = 20 + rank, ra = -1, rb = -1;
    MPI_Request rq[4];
    OK(MPI_Irecv(&rb, 1, MPI_INT, peer, 0, dup, &rq[0]));
    OK(MPI_Irecv(&ra, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Isend(&a, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq[2]));
    OK(MPI_Isend(&b, 1, MPI_INT, peer, 0, dup, &rq[3]));
    OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    CHECK(ra == 10 + peer && rb == 20 + peer, "crossed: world got %d, dup got %d", ra, rb);
  }

  /* Split by parity, keys reversed: ranks in the half are in reverse world order. */
  OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
  int hrank, hsize;
  OK(MPI_Comm_rank(half, &hrank));
  OK(MPI_Comm_size(half, &hsize));
  int expect_size = (size + 1 - rank % 2) / 2;
  CHECK(hsize == expect_size, "half size %d expected %d", hsize, expect_size);
  int above = 0;
  for (int r = rank + 2; r < size; r += 2) ++above;
  CHECK(hrank == above, "half rank %d expected %d", hrank, above);
  int sum = 0;
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
  int esum = 0;
  for (int r = rank % 2; r < size; r += 2) esum += r;
  CHECK(sum == esum, "sum in half %d expected %d", sum, esum);
  OK(MPI_Comm_compare(MPI_COMM_WORLD, half, &result));
  CHECK(result == (size <= 1 ? MPI_IDENT : MPI_UNEQUAL) || size == 1, "compare world/half %d", result);
  /* A ring inside the half. */
  if (hsize > 1) {
    int token = hrank, got = -1;
    OK(MPI_Sendrecv(&token, 1, MPI_INT, (hrank + 1) % hsize, 3, &got, 1, MPI_INT, (hrank + hsize - 1) % hsize, 3, half,
                    MPI_STATUS_IGNORE));
    CHECK(got == (hrank + hsize - 1) % hsize, "ring got %d", got);
  }

  OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none));
  CHECK((rank == 0) == (none != MPI_COMM_NULL), "undefined color gave %x", none);

  /* Groups */
  MPI_Group world_group, half_group, picked;
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  OK(MPI_Comm_group(half, &half_group));
  int gsize, grank;
  OK(MPI_Group_size(half_group, &gsize));
  OK(MPI_Group_rank(half_group, &grank));
  CHECK(gsize == hsize && grank == hrank, "half group %d/%d", grank, gsize);
  int* ranks = malloc(sizeof(int) * (size_t)size);
  int* out = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < hsize; ++i) ranks[i] = i;
  OK(MPI_Group_translate_ranks(half_group, hsize, ranks, world_group, out));
  for (int i = 0; i < hsize; ++i) {
    int w = -1, idx = 0;
    for (int r = size - 1; r >= 0; --r)
      if (r % 2 == rank % 2 && idx++ == i) { w = r; break; }
    CHECK(out[i] == w, "half rank %d is world %d, expected %d", i, out[i], w);
  }
  const int sel[2] = {size - 1, 0};
  OK(MPI_Group_incl(world_group, size >= 2 ? 2 : 1, sel, &picked));
  OK(MPI_Group_rank(picked, &grank));
  CHECK(grank == (rank == size - 1 ? 0 : rank == 0 ? (size >= 2 ? 1 : 0) : MPI_UNDEFINED), "picked rank %d", grank);
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Group_incl(world_group, 1, (const int[]){size}, &picked));
  OK(MPI_Group_free(&picked));
  OK(MPI_Group_free(&half_group));
  OK(MPI_Group_free(&world_group));
  CHECK(world_group == MPI_GROUP_NULL, "group handle not nulled");
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Group_size(world_group, &gsize));

  int* tag_ub;
  int flag;
  OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB %d", flag ? *tag_ub : -1);

  OK(MPI_Comm_free(&half));
  OK(MPI_Comm_free(&dup));
  if (none != MPI_COMM_NULL) OK(MPI_Comm_free(&none));
  CHECK(dup == MPI_COMM_NULL, "comm handle not nulled");
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Barrier(dup));
  free(ranks);
  free(out);
  MPI_Finalize();
  return 0;
}
