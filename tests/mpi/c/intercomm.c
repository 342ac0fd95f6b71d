/* Intercommunicators (MPI-3.1 §6.6). The world is split into the even ranks (group
 * A, the larger or equal half) and the odd ranks (group B), joined by
 * MPI_Intercomm_create with leaders world 0 and world 1. Checked:
 * - sizes, ranks, MPI_Comm_test_inter, the remote size and group, MPI_Comm_group
 *   (the local group), MPI_Comm_compare of an intercommunicator and its dup;
 * - point-to-point names the remote group: every rank of A sends to every rank of B
 *   and back, receives with MPI_ANY_SOURCE see the sender's rank in its own group;
 * - MPI_Intercomm_merge both ways round (high on A, then on B), with the order of
 *   the merged ranks;
 * - MPI_Comm_dup, MPI_Comm_split (by parity of the local rank, a color missing on
 *   one side gives MPI_COMM_NULL) and MPI_Comm_create (rank 0 of each group left
 *   out) of an intercommunicator;
 * - every collective against expected values, with the root in either group, and
 *   a few nonblocking ones;
 * - errors: a bad leader, tag or root, calls that need an intracommunicator, a rank
 *   outside the remote group. */
#include <string.h>

#include "mpitest.h"

static int world_rank, world_size;

/* Value that rank r of group g (0: A, 1: B) contributes at index i. */
static int value(int group, int r, int i) { return 1000 * group + 10 * r + i; }

static void check_basics(MPI_Comm inter, int in_a, int local_size, int remote_size) {
  int flag = 0, rank, size, rsize;
  OK(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag, "MPI_Comm_test_inter gave 0 for an intercommunicator");
  OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(!flag, "MPI_Comm_test_inter gave 1 for MPI_COMM_WORLD");
  OK(MPI_Comm_rank(inter, &rank));
  OK(MPI_Comm_size(inter, &size));
  OK(MPI_Comm_remote_size(inter, &rsize));
  CHECK(rank == world_rank / 2, "local rank %d", rank);
  CHECK(size == local_size && rsize == remote_size, "size %d remote %d", size, rsize);
  MPI_Group local, remote, world;
  OK(MPI_Comm_group(inter, &local));
  OK(MPI_Comm_remote_group(inter, &remote));
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  for (int r = 0; r < rsize; ++r) {
    int w = -1;
    OK(MPI_Group_translate_ranks(remote, 1, &r, world, &w));
    CHECK(w == 2 * r + (in_a ? 1 : 0), "remote rank %d is world rank %d", r, w);
  }
  int gr = -1;
  OK(MPI_Group_rank(local, &gr));
  CHECK(gr == rank, "rank in the local group %d", gr);
  OK(MPI_Group_rank(remote, &gr));
  CHECK(gr == MPI_UNDEFINED, "a rank is a member of its remote group");
  OK(MPI_Group_free(&local));
  OK(MPI_Group_free(&remote));
  OK(MPI_Group_free(&world));
}

static void check_pt2pt(MPI_Comm inter, int in_a, int rank, int remote_size) {
  /* Each rank sends its (group, rank) to every remote rank, then receives one from
   * each with MPI_ANY_SOURCE. */
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)remote_size);
  int mine[2] = {in_a ? 0 : 1, rank};
  for (int r = 0; r < remote_size; ++r) OK(MPI_Isend(mine, 2, MPI_INT, r, 5, inter, &reqs[r]));
  int* seen = calloc((size_t)remote_size, sizeof(int));
  for (int k = 0; k < remote_size; ++k) {
    int got[2];
    MPI_Status status;
    OK(MPI_Recv(got, 2, MPI_INT, MPI_ANY_SOURCE, 5, inter, &status));
    CHECK(got[0] == (in_a ? 1 : 0), "message from my own group");
    CHECK(status.MPI_SOURCE == got[1], "status source %d, sender says %d", status.MPI_SOURCE, got[1]);
    seen[got[1]]++;
  }
  for (int r = 0; r < remote_size; ++r) CHECK(seen[r] == 1, "%d messages from remote rank %d", seen[r], r);
  OK(MPI_Waitall(remote_size, reqs, MPI_STATUSES_IGNORE));
  free(seen);
  free(reqs);
}

static void check_merge(MPI_Comm inter, int in_a, int local_size, int remote_size) {
  for (int high_side = 0; high_side < 2; ++high_side) {
    /* high_side 0: A says high, so B comes first; 1: B says high. */
    const int high = in_a ? (high_side == 0) : (high_side == 1);
    MPI_Comm merged;
    OK(MPI_Intercomm_merge(inter, high, &merged));
    int rank, size, flag;
    OK(MPI_Comm_rank(merged, &rank));
    OK(MPI_Comm_size(merged, &size));
    OK(MPI_Comm_test_inter(merged, &flag));
    CHECK(!flag && size == local_size + remote_size, "merged: inter %d size %d", flag, size);
    const int want = (high ? remote_size : 0) + world_rank / 2;
    CHECK(rank == want, "merged rank %d, expected %d (high %d)", rank, want, high);
    /* The merged communicator works: allreduce of world ranks. */
    int sum = 0;
    OK(MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == world_size * (world_size - 1) / 2, "merged allreduce %d", sum);
    OK(MPI_Comm_free(&merged));
  }
}

static void check_constructors(MPI_Comm inter, int in_a, int rank, int local_size, int remote_size) {
  MPI_Comm dup;
  OK(MPI_Comm_dup(inter, &dup));
  int result = -1, flag = 0;
  OK(MPI_Comm_compare(inter, dup, &result));
  CHECK(result == MPI_CONGRUENT, "compare with its dup gave %d", result);
  OK(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL, "compare with the world gave %d", result);
  OK(MPI_Comm_test_inter(dup, &flag));
  CHECK(flag, "the dup of an intercommunicator is not one");
  /* The dup is a separate matching space: the same tag on both, received in reverse. */
  if (rank == 0) {
    int a = 1, b = 2, x = 0, y = 0;
    MPI_Request r[2];
    OK(MPI_Isend(&a, 1, MPI_INT, 0, 9, inter, &r[0]));
    OK(MPI_Isend(&b, 1, MPI_INT, 0, 9, dup, &r[1]));
    OK(MPI_Recv(&y, 1, MPI_INT, 0, 9, dup, MPI_STATUS_IGNORE));
    OK(MPI_Recv(&x, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE));
    OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(x == 1 && y == 2, "dup and parent mixed up: %d %d", x, y);
  }
  OK(MPI_Comm_free(&dup));

  /* Two idups in flight at once, with a blocking dup between start and wait, and
   * completed in opposite orders in the two groups. */
  {
    MPI_Comm idup[2], between;
    MPI_Request reqs[2];
    OK(MPI_Comm_idup(inter, &idup[0], &reqs[0]));
    OK(MPI_Comm_idup(inter, &idup[1], &reqs[1]));
    OK(MPI_Comm_dup(inter, &between));
    OK(MPI_Wait(&reqs[in_a ? 0 : 1], MPI_STATUS_IGNORE));
    OK(MPI_Wait(&reqs[in_a ? 1 : 0], MPI_STATUS_IGNORE));
    for (int k = 0; k < 2; ++k) {
      int f = 0, rs = 0;
      OK(MPI_Comm_test_inter(idup[k], &f));
      OK(MPI_Comm_remote_size(idup[k], &rs));
      CHECK(f && rs == remote_size, "idup %d: inter %d remote size %d", k, f, rs);
      int sum = 0;
      OK(MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_MAX, idup[k]));
      CHECK(sum == 2 * (remote_size - 1) + (in_a ? 1 : 0), "idup %d: allreduce gave %d", k, sum);
    }
    /* The three are distinct matching spaces. */
    if (rank == 0) {
      int v[3] = {1, 2, 3}, g[3] = {0, 0, 0};
      MPI_Request r[3];
      MPI_Comm c[3] = {idup[0], idup[1], between};
      for (int k = 0; k < 3; ++k) OK(MPI_Isend(&v[k], 1, MPI_INT, 0, 8, c[k], &r[k]));
      for (int k = 2; k >= 0; --k) OK(MPI_Recv(&g[k], 1, MPI_INT, 0, 8, c[k], MPI_STATUS_IGNORE));
      OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
      CHECK(g[0] == 1 && g[1] == 2 && g[2] == 3, "idups mixed up: %d %d %d", g[0], g[1], g[2]);
    }
    OK(MPI_Comm_free(&idup[0]));
    OK(MPI_Comm_free(&idup[1]));
    OK(MPI_Comm_free(&between));
  }

  /* Split by parity of the local rank, reversed order. */
  MPI_Comm split;
  OK(MPI_Comm_split(inter, rank % 2, -rank, &split));
  const int color_local = (local_size - 1 - rank % 2) / 2 + 1;    /* my color's members here */
  const int color_remote = remote_size > rank % 2 ? (remote_size - 1 - rank % 2) / 2 + 1 : 0;
  if (color_remote == 0) {
    CHECK(split == MPI_COMM_NULL, "color %d has no remote members but got a communicator", rank % 2);
  } else {
    int srank, ssize, rsize;
    OK(MPI_Comm_rank(split, &srank));
    OK(MPI_Comm_size(split, &ssize));
    OK(MPI_Comm_remote_size(split, &rsize));
    CHECK(ssize == color_local && rsize == color_remote, "split sizes %d/%d, expected %d/%d", ssize, rsize,
          color_local, color_remote);
    CHECK(srank == ssize - 1 - rank / 2, "split rank %d", srank);
    int token = world_rank, sum = 0;
    OK(MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, split));
    int want = 0;
    for (int r = rank % 2; r < remote_size; r += 2) want += 2 * r + (in_a ? 1 : 0);
    CHECK(sum == want, "split allreduce %d, expected %d", sum, want);
    OK(MPI_Comm_free(&split));
  }

  /* Create without rank 0 of each group. */
  MPI_Group local, sub;
  OK(MPI_Comm_group(inter, &local));
  int zero = 0;
  OK(MPI_Group_excl(local, 1, &zero, &sub));
  MPI_Comm created;
  OK(MPI_Comm_create(inter, sub, &created));
  if (rank == 0 || local_size == 1 || remote_size == 1) {
    CHECK(created == MPI_COMM_NULL, "rank %d (sizes %d/%d) got a communicator", rank, local_size, remote_size);
  } else {
    int crank, rsize;
    OK(MPI_Comm_rank(created, &crank));
    OK(MPI_Comm_remote_size(created, &rsize));
    CHECK(crank == rank - 1 && rsize == remote_size - 1, "created: rank %d remote size %d", crank, rsize);
    OK(MPI_Barrier(created));
    OK(MPI_Comm_free(&created));
  }
  OK(MPI_Group_free(&sub));
  OK(MPI_Group_free(&local));
}

static void check_collectives(MPI_Comm inter, int in_a, int rank, int local_size, int remote_size) {
  const int group = in_a ? 0 : 1, other = 1 - group;
  const int n = 3;
  int buf[3], out[3];
  OK(MPI_Barrier(inter));

  /* Bcast and reduce, root rank 1 % size of either group. */
  for (int root_group = 0; root_group < 2; ++root_group) {
    const int root_size = root_group == 0 ? (in_a ? local_size : remote_size) : (in_a ? remote_size : local_size);
    const int root = root_size > 1 ? 1 : 0;
    const int in_root_group = group == root_group;
    const int arg = in_root_group ? (rank == root ? MPI_ROOT : MPI_PROC_NULL) : root;
    for (int i = 0; i < n; ++i) buf[i] = in_root_group && rank == root ? value(group, rank, i) : -1;
    OK(MPI_Bcast(buf, n, MPI_INT, arg, inter));
    if (!in_root_group)
      for (int i = 0; i < n; ++i) CHECK(buf[i] == value(root_group, root, i), "bcast[%d] = %d", i, buf[i]);
    for (int i = 0; i < n; ++i) buf[i] = value(group, rank, i), out[i] = -1;
    OK(MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, arg, inter));
    if (in_root_group && rank == root) {
      for (int i = 0; i < n; ++i) {
        int want = 0;
        for (int r = 0; r < remote_size; ++r) want += value(other, r, i);
        CHECK(out[i] == want, "reduce[%d] = %d, expected %d", i, out[i], want);
      }
    }
    /* Gather / scatter of one int per rank, and the v forms with 2 per rank. */
    int* all = malloc(sizeof(int) * 2 * (size_t)(remote_size + local_size));
    int* counts = malloc(sizeof(int) * (size_t)(remote_size + local_size));
    int* displs = malloc(sizeof(int) * (size_t)(remote_size + local_size));
    int one = value(group, rank, 0), got = -1;
    for (int r = 0; r < remote_size; ++r) all[r] = -1, counts[r] = r % 2 + 1, displs[r] = 2 * r;
    OK(MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, arg, inter));
    if (in_root_group && rank == root)
      for (int r = 0; r < remote_size; ++r) CHECK(all[r] == value(other, r, 0), "gather[%d] = %d", r, all[r]);
    for (int r = 0; r < remote_size; ++r) all[r] = value(group, rank, r);
    OK(MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, arg, inter));
    if (!in_root_group) CHECK(got == value(root_group, root, rank), "scatter gave %d", got);
    int two[2] = {value(group, rank, 0), value(group, rank, 1)};
    for (int r = 0; r < 2 * remote_size; ++r) all[r] = -1;
    OK(MPI_Gatherv(two, rank % 2 + 1, MPI_INT, all, counts, displs, MPI_INT, arg, inter));
    if (in_root_group && rank == root)
      for (int r = 0; r < remote_size; ++r)
        for (int k = 0; k < counts[r]; ++k)
          CHECK(all[2 * r + k] == value(other, r, k), "gatherv[%d][%d] = %d", r, k, all[2 * r + k]);
    for (int r = 0; r < remote_size; ++r) all[2 * r] = value(group, r, 7), all[2 * r + 1] = value(group, r, 8);
    int got2[2] = {-1, -1};
    OK(MPI_Scatterv(all, counts, displs, MPI_INT, got2, rank % 2 + 1, MPI_INT, arg, inter));
    if (!in_root_group) {
      CHECK(got2[0] == value(root_group, rank, 7), "scatterv gave %d", got2[0]);
      if (rank % 2) CHECK(got2[1] == value(root_group, rank, 8), "scatterv[1] gave %d", got2[1]);
    }
    free(all);
    free(counts);
    free(displs);
  }

  /* Allreduce: the reduction of the other group's inputs. */
  for (int i = 0; i < n; ++i) buf[i] = value(group, rank, i), out[i] = -1;
  OK(MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, inter));
  for (int i = 0; i < n; ++i) {
    int want = 0;
    for (int r = 0; r < remote_size; ++r) want += value(other, r, i);
    CHECK(out[i] == want, "allreduce[%d] = %d, expected %d", i, out[i], want);
  }
  /* Allgather(v), alltoall(v,w). */
  const size_t rs = (size_t)remote_size;
  int* recv = malloc(sizeof(int) * 2 * rs);
  int* send = malloc(sizeof(int) * 2 * rs);
  int* counts = malloc(sizeof(int) * rs);
  int* displs = malloc(sizeof(int) * rs);
  int mine = value(group, rank, 0);
  OK(MPI_Allgather(&mine, 1, MPI_INT, recv, 1, MPI_INT, inter));
  for (int r = 0; r < remote_size; ++r) CHECK(recv[r] == value(other, r, 0), "allgather[%d] = %d", r, recv[r]);
  for (int r = 0; r < remote_size; ++r) counts[r] = 1, displs[r] = remote_size - 1 - r, recv[r] = -1;
  OK(MPI_Allgatherv(&mine, 1, MPI_INT, recv, counts, displs, MPI_INT, inter));
  for (int r = 0; r < remote_size; ++r)
    CHECK(recv[remote_size - 1 - r] == value(other, r, 0), "allgatherv[%d] = %d", r, recv[remote_size - 1 - r]);
  for (int r = 0; r < remote_size; ++r) send[r] = value(group, rank, r), recv[r] = -1;
  OK(MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, inter));
  for (int r = 0; r < remote_size; ++r) CHECK(recv[r] == value(other, r, rank), "alltoall[%d] = %d", r, recv[r]);
  for (int r = 0; r < remote_size; ++r) displs[r] = r, recv[r] = -1;
  OK(MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, inter));
  for (int r = 0; r < remote_size; ++r) CHECK(recv[r] == value(other, r, rank), "alltoallv[%d] = %d", r, recv[r]);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * rs);
  for (int r = 0; r < remote_size; ++r) types[r] = MPI_INT, displs[r] = r * (int)sizeof(int), recv[r] = -1;
  OK(MPI_Alltoallw(send, counts, displs, types, recv, counts, displs, types, inter));
  for (int r = 0; r < remote_size; ++r) CHECK(recv[r] == value(other, r, rank), "alltoallw[%d] = %d", r, recv[r]);
  free(types);
  free(recv);
  free(send);
  free(counts);
  free(displs);

  /* Reduce_scatter(_block): as in MPICH, an input vector holds the local group's
   * blocks (the two groups' totals must agree): blocks of remote_size elements here,
   * of local_size there, local_size * remote_size in all on both sides. Rank `rank`
   * gets block `rank` of the other group's reduction. */
  {
    const int block = remote_size, total = local_size * remote_size;
    int* input = malloc(sizeof(int) * (size_t)total);
    int* result = malloc(sizeof(int) * (size_t)block);
    for (int j = 0; j < total; ++j) input[j] = value(group, rank, j);
    for (int i = 0; i < block; ++i) result[i] = -1;
    OK(MPI_Reduce_scatter_block(input, result, block, MPI_INT, MPI_SUM, inter));
    for (int i = 0; i < block; ++i) {
      int want = 0;
      for (int r = 0; r < remote_size; ++r) want += value(other, r, rank * block + i);
      CHECK(result[i] == want, "reduce_scatter_block[%d] gave %d, expected %d", i, result[i], want);
    }
    int* rcounts = malloc(sizeof(int) * (size_t)local_size);
    for (int r = 0; r < local_size; ++r) rcounts[r] = block;
    for (int i = 0; i < block; ++i) result[i] = -1;
    OK(MPI_Reduce_scatter(input, result, rcounts, MPI_INT, MPI_SUM, inter));
    for (int i = 0; i < block; ++i) {
      int want = 0;
      for (int r = 0; r < remote_size; ++r) want += value(other, r, rank * block + i);
      CHECK(result[i] == want, "reduce_scatter[%d] gave %d, expected %d", i, result[i], want);
    }
    free(rcounts);
    free(result);
    free(input);
  }

  /* Nonblocking: an Ibcast from A's rank 0 and an Iallreduce in flight together. */
  {
    int b = in_a && rank == 0 ? 4242 : -1, s = 1, r = -1;
    MPI_Request reqs[2];
    OK(MPI_Ibcast(&b, 1, MPI_INT, in_a ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter, &reqs[0]));
    OK(MPI_Iallreduce(&s, &r, 1, MPI_INT, MPI_SUM, inter, &reqs[1]));
    OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    if (!in_a) CHECK(b == 4242, "ibcast gave %d", b);
    CHECK(r == remote_size, "iallreduce gave %d", r);
    OK(MPI_Ibarrier(inter, &reqs[0]));
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  }
}

static void check_errors(MPI_Comm half, MPI_Comm inter, int remote_size) {
  int x = 0, y = 0;
  MPI_Comm bad;
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_remote_size(MPI_COMM_WORLD, &x));
  MPI_Group g;
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_remote_group(MPI_COMM_WORLD, &g));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Intercomm_create(half, 99, MPI_COMM_WORLD, 0, 1, &bad));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 0, -5, &bad));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send(&x, 1, MPI_INT, remote_size, 0, inter));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Recv(&x, 1, MPI_INT, remote_size, 0, inter, MPI_STATUS_IGNORE));
  EXPECT_CLASS(MPI_ERR_ROOT, MPI_Bcast(&x, 1, MPI_INT, remote_size, inter));
  EXPECT_CLASS(MPI_ERR_ROOT, MPI_Bcast(&x, 1, MPI_INT, -7, inter));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, inter));
  int dims[1] = {1}, periods[1] = {0};
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Cart_create(inter, 1, dims, periods, 0, &bad));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &bad));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (world_size < 2) {
    /* An intercommunicator needs two groups: what is left is the errors. */
    int x;
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_remote_size(MPI_COMM_WORLD, &x));
    if (world_rank == 0) printf(" No Errors\n");
    MPI_Finalize();
    return 0;
  }
  const int in_a = world_rank % 2 == 0;
  const int size_a = (world_size + 1) / 2, size_b = world_size / 2;
  const int local_size = in_a ? size_a : size_b, remote_size = in_a ? size_b : size_a;
  MPI_Comm half, inter;
  OK(MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, world_rank, &half));
  /* Leaders: world 0 for A, world 1 for B; the remote leader's rank in the world. */
  OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 77, &inter));
  MPI_Errhandler eh;
  OK(MPI_Comm_get_errhandler(inter, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "the error handler was not inherited");
  OK(MPI_Errhandler_free(&eh));
  const int rank = world_rank / 2;
  check_basics(inter, in_a, local_size, remote_size);
  check_pt2pt(inter, in_a, rank, remote_size);
  check_merge(inter, in_a, local_size, remote_size);
  check_constructors(inter, in_a, rank, local_size, remote_size);
  check_collectives(inter, in_a, rank, local_size, remote_size);
  check_errors(half, inter, remote_size);
  OK(MPI_Comm_free(&inter));
  OK(MPI_Comm_free(&half));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (world_rank == 0) printf(" No Errors\n");
  MPI_Finalize();
  return 0;
}
