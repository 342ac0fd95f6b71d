/* Group constructors beyond incl: excl, range_incl / range_excl (strides up and down),
 * union, intersection, difference (orders as MPI defines them), compare (MPI_IDENT,
 * MPI_SIMILAR, MPI_UNEQUAL), MPI_GROUP_EMPTY for empty results, translate_ranks on
 * the results, and the error classes of bad ranks, ranges and handles under
 * MPI_ERRORS_RETURN. Any number of ranks. */
#include "mpitest.h"

/* The world ranks of `g`'s members, through translate_ranks. */
static void members(MPI_Group g, MPI_Group world, int* out, int* n) {
  OK(MPI_Group_size(g, n));
  int* ranks = malloc(sizeof(int) * (size_t)(*n + 1));
  for (int i = 0; i < *n; ++i) ranks[i] = i;
  OK(MPI_Group_translate_ranks(g, *n, ranks, world, out));
  free(ranks);
}

static void expect_members(MPI_Group g, MPI_Group world, const int* want, int nwant, const char* what) {
  int got[64], n;
  members(g, world, got, &n);
  CHECK(n == nwant, "%s: %d members, expected %d", what, n, nwant);
  for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, got[i], want[i]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(size <= 64, "written for at most 64 ranks");
  MPI_Group world, g, h, u;
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int want[64], n, result, grank;

  /* excl: everyone but rank 0 and the last, in world order. */
  if (size >= 3) {
    const int drop[2] = {size - 1, 0};
    OK(MPI_Group_excl(world, 2, drop, &g));
    for (int i = 1; i < size - 1; ++i) want[i - 1] = i;
    expect_members(g, world, want, size - 2, "excl");
    OK(MPI_Group_rank(g, &grank));
    CHECK(grank == (rank == 0 || rank == size - 1 ? MPI_UNDEFINED : rank - 1), "excl rank %d", grank);
    OK(MPI_Group_free(&g));
  }
  /* Excluding everyone gives MPI_GROUP_EMPTY; excluding nobody an identical group. */
  int* all = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) all[i] = size - 1 - i;
  OK(MPI_Group_excl(world, size, all, &g));
  CHECK(g == MPI_GROUP_EMPTY, "excl of every rank gave 0x%x, not MPI_GROUP_EMPTY", g);
  OK(MPI_Group_excl(world, 0, NULL, &g));
  OK(MPI_Group_compare(g, world, &result));
  CHECK(result == MPI_IDENT, "excl of nobody compares %d", result);
  OK(MPI_Group_free(&g));

  /* range_incl: the even ranks counting up, then the odd ones counting down. */
  int ranges[2][3] = {{0, (size - 1) / 2 * 2, 2}, {0, 0, 1}};
  int nranges = 1;
  n = 0;
  for (int r = 0; r < size; r += 2) want[n++] = r;
  if (size >= 2) {
    const int top_odd = size % 2 == 0 ? size - 1 : size - 2;
    ranges[1][0] = top_odd;
    ranges[1][1] = 1;
    ranges[1][2] = -2;
    nranges = 2;
    for (int r = top_odd; r >= 1; r -= 2) want[n++] = r;
  }
  OK(MPI_Group_range_incl(world, nranges, ranges, &g));
  expect_members(g, world, want, n, "range_incl");
  OK(MPI_Group_compare(g, world, &result));
  CHECK(result == (size <= 2 ? MPI_IDENT : MPI_SIMILAR), "range_incl vs world: %d", result);

  /* range_excl of the odd ranks: the even ones in world order. */
  if (size >= 2) {
    int odd[1][3] = {{1, size - 1 - (size % 2 == 0 ? 0 : 1), 2}};
    OK(MPI_Group_range_excl(world, 1, odd, &h));
    n = 0;
    for (int r = 0; r < size; r += 2) want[n++] = r;
    expect_members(h, world, want, n, "range_excl");

    /* Set operations between the evens (h) and {last, 0} (u). */
    const int ends[2] = {size - 1, 0};
    MPI_Group e, x;
    OK(MPI_Group_incl(world, 2, ends, &e));
    OK(MPI_Group_union(e, h, &u));
    n = 0;
    want[n++] = size - 1;
    want[n++] = 0;
    for (int r = 2; r < size; r += 2)
      if (r != size - 1) want[n++] = r;
    expect_members(u, world, want, n, "union (ends, evens)");
    OK(MPI_Group_intersection(h, e, &x));
    n = 0;
    want[n++] = 0;
    if (size % 2 == 1 && size > 1) want[n++] = size - 1;
    expect_members(x, world, want, n, "intersection (evens, ends)");
    OK(MPI_Group_free(&x));
    OK(MPI_Group_difference(h, e, &x));
    n = 0;
    for (int r = 2; r < size; r += 2)
      if (r != size - 1) want[n++] = r;
    if (n == 0) {
      CHECK(x == MPI_GROUP_EMPTY, "empty difference is 0x%x, not MPI_GROUP_EMPTY", x);
    } else {
      expect_members(x, world, want, n, "difference (evens, ends)");
      OK(MPI_Group_free(&x));
    }
    OK(MPI_Group_difference(h, world, &x));
    CHECK(x == MPI_GROUP_EMPTY, "evens minus world is 0x%x", x);
    OK(MPI_Group_intersection(h, MPI_GROUP_EMPTY, &x));
    CHECK(x == MPI_GROUP_EMPTY, "evens and nobody is 0x%x", x);
    OK(MPI_Group_union(MPI_GROUP_EMPTY, h, &x));
    OK(MPI_Group_compare(x, h, &result));
    CHECK(result == MPI_IDENT, "nobody or evens vs evens: %d", result);
    OK(MPI_Group_free(&x));
    OK(MPI_Group_compare(h, e, &result));
    /* With 3 ranks the evens are {0, 2} and the ends {2, 0}. */
    CHECK(result == (size == 3 ? MPI_SIMILAR : MPI_UNEQUAL), "evens vs ends: %d", result);
    OK(MPI_Group_rank(u, &grank));
    {
      int expect = MPI_UNDEFINED;
      int got[64], m;
      members(u, world, got, &m);
      for (int i = 0; i < m; ++i)
        if (got[i] == rank) expect = i;
      CHECK(grank == expect, "rank in union %d, expected %d", grank, expect);
    }
    OK(MPI_Group_free(&e));
    OK(MPI_Group_free(&u));
    OK(MPI_Group_free(&h));
  }
  OK(MPI_Group_free(&g));

  /* Errors, each refused with the argument's class and nothing made. */
  MPI_Group untouched = MPI_GROUP_NULL;
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Group_excl(world, 1, (const int[]){size}, &untouched));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Group_excl(world, 2, (const int[]){0, 0}, &untouched));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Group_excl(world, -1, all, &untouched));
  int zero_stride[1][3] = {{0, 0, 0}};
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Group_range_incl(world, 1, zero_stride, &untouched));
  int outside[1][3] = {{0, size, 1}};
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Group_range_incl(world, 1, outside, &untouched));
  int negative_first[1][3] = {{-1, 0, 1}};
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Group_range_excl(world, 1, negative_first, &untouched));
  if (size >= 2) {
    int away[1][3] = {{1, 0, 1}};
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Group_range_incl(world, 1, away, &untouched));
    int overlap[2][3] = {{0, 1, 1}, {1, 1, 1}};
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Group_range_excl(world, 2, overlap, &untouched));
  }
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Group_union(MPI_GROUP_NULL, world, &untouched));
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Group_intersection(world, (MPI_Group)0x1234, &untouched));
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Group_compare(world, MPI_GROUP_NULL, &result));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Group_difference(world, world, NULL));
  CHECK(untouched == MPI_GROUP_NULL, "a refused call wrote 0x%x", untouched);

  OK(MPI_Group_free(&world));
  free(all);
  MPI_Finalize();
  if (rank == 0) printf("groups2: %d ranks ok\n", size);
  return 0;
}
