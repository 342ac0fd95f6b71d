/* MPI_Comm_create: the even ranks in reverse order (ranks outside get MPI_COMM_NULL,
 * the new ranks follow the group's order, messages and collectives work inside,
 * the error handler is inherited); disjoint groups in one call (evens and odds,
 * MPI-2.2); the whole group (MPI_Comm_compare: MPI_CONGRUENT with the world) and the
 * empty group (MPI_COMM_NULL everywhere). Communicator names: the defaults
 * "MPI_COMM_WORLD", "MPI_COMM_SELF" and "" (a dup does not copy the name), set/get,
 * truncation to MPI_MAX_OBJECT_NAME - 1. Errors under MPI_ERRORS_RETURN: null and
 * invalid groups, a group outside the communicator, null arguments. */
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Group world_group, evens_down, mine;
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));

  /* Evens, highest first. */
  const int top_even = (size - 1) / 2 * 2;
  int evens_range[1][3] = {{top_even, 0, -2}};
  OK(MPI_Group_range_incl(world_group, 1, evens_range, &evens_down));
  MPI_Comm evens;
  OK(MPI_Comm_create(MPI_COMM_WORLD, evens_down, &evens));
  if (rank % 2 == 1) {
    CHECK(evens == MPI_COMM_NULL, "odd rank got communicator 0x%x", evens);
  } else {
    CHECK(evens != MPI_COMM_NULL, "even rank got MPI_COMM_NULL");
    int erank, esize;
    OK(MPI_Comm_rank(evens, &erank));
    OK(MPI_Comm_size(evens, &esize));
    CHECK(esize == top_even / 2 + 1, "evens has %d ranks", esize);
    CHECK(erank == (top_even - rank) / 2, "rank %d is %d in evens, expected %d", rank, erank, (top_even - rank) / 2);
    MPI_Errhandler eh;
    OK(MPI_Comm_get_errhandler(evens, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the error handler was not inherited");
    OK(MPI_Errhandler_free(&eh));
    /* A ring in the new ranks, then a reduction. */
    int token = rank, got = -1;
    OK(MPI_Sendrecv(&token, 1, MPI_INT, (erank + 1) % esize, 9, &got, 1, MPI_INT, (erank + esize - 1) % esize, 9, evens,
                    MPI_STATUS_IGNORE));
    const int from = top_even - 2 * ((erank + esize - 1) % esize);
    CHECK(got == from, "ring in evens got %d, expected %d", got, from);
    int sum = 0, want = 0;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, evens));
    for (int r = 0; r < size; r += 2) want += r;
    CHECK(sum == want, "sum over evens %d, expected %d", sum, want);
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    OK(MPI_Comm_get_name(evens, name, &len));
    CHECK(len == 0 && name[0] == '\0', "a new communicator is named '%s'", name);
    OK(MPI_Comm_free(&evens));
  }

  /* Disjoint groups: each rank names its own parity's group. */
  int parity_range[1][3] = {{rank % 2, size - 1 - (size - 1 - rank % 2) % 2, 2}};
  OK(MPI_Group_range_incl(world_group, 1, parity_range, &mine));
  MPI_Comm half;
  OK(MPI_Comm_create(MPI_COMM_WORLD, mine, &half));
  CHECK(half != MPI_COMM_NULL, "disjoint groups: rank %d got MPI_COMM_NULL", rank);
  int hsize, hrank, sum = 0, want = 0;
  OK(MPI_Comm_size(half, &hsize));
  OK(MPI_Comm_rank(half, &hrank));
  CHECK(hrank == rank / 2, "rank in own parity %d", hrank);
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
  for (int r = rank % 2; r < size; r += 2) want += r;
  CHECK(sum == want, "sum over parity %d, expected %d", sum, want);

  /* The whole group: same members, same order, new context. */
  MPI_Comm all;
  int result;
  OK(MPI_Comm_create(MPI_COMM_WORLD, world_group, &all));
  OK(MPI_Comm_compare(MPI_COMM_WORLD, all, &result));
  CHECK(result == MPI_CONGRUENT, "world vs create(world group): %d", result);
  /* The empty group: nobody gets a communicator. */
  MPI_Comm none = MPI_COMM_WORLD;
  OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &none));
  CHECK(none == MPI_COMM_NULL, "empty group gave 0x%x", none);

  /* Names. */
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world is named '%s' (%d)", name, len);
  OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "self is named '%s' (%d)", name, len);
  OK(MPI_Comm_set_name(all, "everyone"));
  OK(MPI_Comm_get_name(all, name, &len));
  CHECK(strcmp(name, "everyone") == 0 && len == 8, "all is named '%s'", name);
  MPI_Comm dup;
  OK(MPI_Comm_dup(all, &dup));
  OK(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a dup is named '%s'", name);
  char long_name[MPI_MAX_OBJECT_NAME + 40];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  OK(MPI_Comm_set_name(dup, long_name));
  OK(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == MPI_MAX_OBJECT_NAME - 1 && strlen(name) == (size_t)len, "a long name kept %d characters", len);
  OK(MPI_Comm_set_name(MPI_COMM_WORLD, "renamed world"));
  OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "renamed world") == 0, "world renamed to '%s'", name);

  /* Errors. */
  MPI_Comm untouched = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &untouched));
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Comm_create(MPI_COMM_WORLD, (MPI_Group)0x48000fff, &untouched));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_create(MPI_COMM_NULL, world_group, &untouched));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_create(MPI_COMM_WORLD, world_group, NULL));
  if (size >= 2) /* the world's group reaches outside a parity half (checked before any message) */
    EXPECT_CLASS(MPI_ERR_GROUP, MPI_Comm_create(half, world_group, &untouched));
  CHECK(untouched == MPI_COMM_WORLD, "a refused call wrote 0x%x", untouched);
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_set_name(dup, NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_get_name(dup, NULL, &len));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_get_name(dup, name, NULL));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_set_name(MPI_COMM_NULL, "x"));
  MPI_Comm stale = dup;
  OK(MPI_Comm_free(&dup));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_get_name(stale, name, &len));

  OK(MPI_Comm_free(&all));
  OK(MPI_Comm_free(&half));
  OK(MPI_Group_free(&mine));
  OK(MPI_Group_free(&evens_down));
  OK(MPI_Group_free(&world_group));
  MPI_Finalize();
  if (rank == 0) printf("comm_create: %d ranks ok\n", size);
  return 0;
}
