/* MPI_Comm_idup and MPI_Comm_idup_with_info: the duplicate works once the request
 * completes, is a matching space of its own, inherits the error handler, gets the
 * attributes copied and keeps a Cartesian topology. Several in flight at once (on one
 * communicator and on others), beside nonblocking collectives and a blocking dup;
 * an idup overlapping point-to-point traffic that needs it to progress in the
 * background. With 3 or more ranks, two agreements that settle on the same candidate
 * id on rank 1 (one must retry above it), checked with a wildcard receive that would
 * take the other communicator's message if the ids were the same; two idups started
 * in opposite orders on even and odd ranks. Errors: null
 * arguments, an invalid info. */
#include "mpitest.h"

static int copies = 0;
static int count_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm, (void)keyval, (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

/* Every rank sends its rank to every other on `comm` with `tag`, then receives them
 * all with MPI_ANY_SOURCE: each must be from the rank it says it is from. */
static void check_traffic(MPI_Comm comm, int tag, const char* what) {
  int rank, size;
  OK(MPI_Comm_rank(comm, &rank));
  OK(MPI_Comm_size(comm, &size));
  int sum = -1;
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size - 1) / 2, "%s: allreduce gave %d", what, sum);
  for (int r = 0; r < size; ++r)
    if (r != rank) OK(MPI_Send(&rank, 1, MPI_INT, r, tag, comm));
  for (int i = 0; i < size - 1; ++i) {
    int v = -1;
    MPI_Status st;
    OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st));
    CHECK(v == st.MPI_SOURCE, "%s: got %d from rank %d", what, v, st.MPI_SOURCE);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  /* First, while every rank's idup counter is where it started: rank 0 makes one
   * idup of MPI_COMM_SELF, so that its next candidate is one above the others'. Then
   * A = {0, 1} and B = {1, 2}: rank 1 starts both, proposing the base id for A and
   * the next for B; rank 0 proposes base + 2 for A, rank 2 the base for B. Both
   * agree on base + 2, which rank 1 can give to only one of them. */
  if (size >= 3) {
    MPI_Comm self_dup, a = MPI_COMM_NULL, b = MPI_COMM_NULL, adup = MPI_COMM_NULL, bdup = MPI_COMM_NULL;
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (rank == 0) {
      OK(MPI_Comm_idup(MPI_COMM_SELF, &self_dup, &rq[0]));
      OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
      OK(MPI_Comm_free(&self_dup));
    }
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank <= 1 ? 0 : MPI_UNDEFINED, rank, &a));
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank >= 1 && rank <= 2 ? 0 : MPI_UNDEFINED, rank, &b));
    if (a != MPI_COMM_NULL) OK(MPI_Comm_idup(a, &adup, &rq[0]));
    if (b != MPI_COMM_NULL) OK(MPI_Comm_idup(b, &bdup, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    /* Rank 2 sends on B's dup first; rank 1 then takes a wildcard receive on A's dup,
     * which must get rank 0's message, not rank 2's. */
    int v = rank;
    if (rank == 2) OK(MPI_Send(&v, 1, MPI_INT, 0, 9, bdup)); /* world rank 1 is rank 0 of B */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) OK(MPI_Send(&v, 1, MPI_INT, 1, 9, adup));
    if (rank == 1) {
      OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 9, adup, MPI_STATUS_IGNORE));
      CHECK(v == 0, "the wildcard receive on A's dup got rank %d's message", v);
      OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 9, bdup, MPI_STATUS_IGNORE));
      CHECK(v == 2, "the wildcard receive on B's dup got rank %d's message", v);
    }
    if (adup != MPI_COMM_NULL) check_traffic(adup, 4, "A's dup");
    if (bdup != MPI_COMM_NULL) check_traffic(bdup, 4, "B's dup");
    if (a != MPI_COMM_NULL) {
      OK(MPI_Comm_free(&adup));
      OK(MPI_Comm_free(&a));
    }
    if (b != MPI_COMM_NULL) {
      OK(MPI_Comm_free(&bdup));
      OK(MPI_Comm_free(&b));
    }
  }

  /* Two communicators of the same ranks, duplicated in opposite orders on even and
   * odd ranks, twice (MPICH's comm_idup_overlap and idup_with_info): both candidates
   * collide on every rank, and would again in every retry if each rank let either
   * agreement claim first. */
  if (size >= 2) {
    MPI_Comm c1, c2, d[2];
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c2));
    for (int round = 0; round < 2; ++round) {
      MPI_Request r2[2];
      if (rank % 2 == 0) {
        OK(MPI_Comm_idup(c1, &d[0], &r2[0]));
        OK(MPI_Comm_idup(c2, &d[1], &r2[1]));
      } else {
        OK(MPI_Comm_idup(c2, &d[1], &r2[1]));
        OK(MPI_Comm_idup(c1, &d[0], &r2[0]));
      }
      OK(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
      check_traffic(d[0], 5, "opposite orders, first");
      check_traffic(d[1], 5, "opposite orders, second");
      OK(MPI_Comm_free(&d[0]));
      OK(MPI_Comm_free(&d[1]));
    }
    OK(MPI_Comm_free(&c1));
    OK(MPI_Comm_free(&c2));
  }

  /* Several at once: two idups of the world, one of a Cartesian communicator (with an
   * attribute to copy), a nonblocking barrier and a blocking dup in between. */
  int keyval;
  OK(MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
  int dims[1] = {size}, periods[1] = {1};
  MPI_Comm cart;
  OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
  OK(MPI_Comm_set_attr(cart, keyval, &keyval));
  MPI_Comm d1, d2, d3, blocking;
  MPI_Info info;
  OK(MPI_Info_create(&info));
  OK(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));
  MPI_Request rq[4];
  OK(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &rq[0]));
  OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[1]));
  OK(MPI_Comm_idup_with_info(cart, info, &d2, &rq[2]));
  CHECK(copies == 1, "the attribute was copied %d times at the call", copies);
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &blocking));
  OK(MPI_Comm_idup(MPI_COMM_WORLD, &d3, &rq[3]));
  OK(MPI_Info_free(&info));
  OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
  check_traffic(d1, 1, "first idup");
  check_traffic(d3, 1, "second idup");
  check_traffic(blocking, 1, "blocking dup");
  check_traffic(d2, 1, "idup of the grid");
  int topo = -1;
  OK(MPI_Topo_test(d2, &topo));
  CHECK(topo == MPI_CART, "the grid's idup has topology %d", topo);
  void* value = NULL;
  int flag = 0;
  OK(MPI_Comm_get_attr(d2, keyval, &value, &flag));
  CHECK(flag && value == &keyval, "the attribute was not copied (flag %d)", flag);
  MPI_Errhandler eh;
  OK(MPI_Comm_get_errhandler(d1, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "the error handler was not inherited");
  OK(MPI_Errhandler_free(&eh));
  int result = -1;
  OK(MPI_Comm_compare(d1, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT, "compare gave %d", result);

  /* Background progress: rank 0 starts an idup, then sends to rank 1 and waits; rank
   * 1 receives first and only then starts its idup. */
  if (size >= 2 && rank <= 1) {
    MPI_Comm pair, pair_dup;
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &pair));
    MPI_Request r;
    int v = 5;
    if (rank == 0) {
      OK(MPI_Comm_idup(pair, &pair_dup, &r));
      OK(MPI_Send(&v, 1, MPI_INT, 1, 3, pair));
      OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      OK(MPI_Recv(&v, 1, MPI_INT, 0, 3, pair, MPI_STATUS_IGNORE));
      OK(MPI_Comm_idup(pair, &pair_dup, &r));
      OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    check_traffic(pair_dup, 2, "the pair's idup");
    OK(MPI_Comm_free(&pair_dup));
    OK(MPI_Comm_free(&pair));
  } else if (size >= 2) {
    MPI_Comm none;
    OK(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, &none));
  }

  /* Errors, refused before anything starts. */
  MPI_Comm bad;
  MPI_Request r;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_idup(MPI_COMM_WORLD, NULL, &r));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_idup(MPI_COMM_WORLD, &bad, NULL));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_idup(MPI_COMM_NULL, &bad, &r));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Comm_idup_with_info(MPI_COMM_WORLD, (MPI_Info)12345, &bad, &r));

  OK(MPI_Comm_free(&d1));
  OK(MPI_Comm_free(&d2));
  OK(MPI_Comm_free(&d3));
  OK(MPI_Comm_free(&blocking));
  OK(MPI_Comm_free(&cart));
  OK(MPI_Comm_free_keyval(&keyval));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("comm_idup: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}
