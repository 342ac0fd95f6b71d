/* Node-aware collectives through the C API, with ranks sharing simulated hosts (run
 * with --ranks-per-host K): on MPI_COMM_WORLD, on the odd and even ranks
 * (MPI_Comm_split by parity) and on all ranks reordered so that a host's members are
 * not consecutive, MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce (MPI_SUM;
 * MPI_IN_PLACE; count 0) and MPI_Allgather give what they must in their blocking and
 * nonblocking forms (allreduce: persistent too). A persistent allreduce made before any blocking collective on its
 * communicator (its node map unknown then) keeps working once the map is known, as
 * every rank keeps the algorithm its init call saw. A non-commutative user op still
 * combines in rank order (auto keeps the flat algorithm for it). */
#include "mpitest.h"

#define N 5

/* An affine map x -> a*x + b modulo 9973: associative, not commutative. */
typedef struct {
  int a, b;
} affine;
static void compose_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  affine* x = in;
  affine* y = inout;
  for (int i = 0; i < *len; ++i) {
    affine f = {(int)(((long)y[i].a * x[i].a) % 9973), (int)(((long)y[i].a * x[i].b + y[i].b) % 9973)};
    y[i] = f;
  }
}

static void check_comm(MPI_Comm comm, const char* name) {
  int n, rank, world;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);

  /* Before any blocking collective: the map is unknown to a persistent init. */
  int early_in[N], early_out[N];
  MPI_Request early;
  for (int k = 0; k < N; ++k) early_in[k] = world * 10 + k;
  OK(MPI_Allreduce_init(early_in, early_out, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &early));

  OK(MPI_Barrier(comm));
  /* The world ranks' sum, which every reduction below must give. */
  int wsum = 0, members[64];
  OK(MPI_Allgather(&world, 1, MPI_INT, members, 1, MPI_INT, comm));
  for (int r = 0; r < n; ++r) wsum += members[r];

  for (int round = 0; round < 3; ++round) {
    int in[N], out[N];
    for (int k = 0; k < N; ++k) in[k] = world * 10 + k + round, out[k] = -1;
    MPI_Request request;
    /* allreduce: blocking, in place, nonblocking. */
    OK(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm));
    for (int k = 0; k < N; ++k)
      CHECK(out[k] == wsum * 10 + n * (k + round), "%s: allreduce[%d] = %d", name, k, out[k]);
    for (int k = 0; k < N; ++k) out[k] = in[k];
    OK(MPI_Allreduce(MPI_IN_PLACE, out, N, MPI_INT, MPI_SUM, comm));
    for (int k = 0; k < N; ++k) CHECK(out[k] == wsum * 10 + n * (k + round), "%s: in place [%d] = %d", name, k, out[k]);
    OK(MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, comm, &request));
    OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
    for (int k = 0; k < N; ++k) CHECK(out[k] == wsum * 10 + n * (k + round), "%s: iallreduce[%d] = %d", name, k, out[k]);
    OK(MPI_Allreduce(in, out, 0, MPI_INT, MPI_SUM, comm));

    /* bcast and reduce from every root. */
    for (int root = 0; root < n; ++root) {
      int b[N];
      for (int k = 0; k < N; ++k) b[k] = rank == root ? root * 100 + k + round : -1;
      if (round % 2 == 0) {
        OK(MPI_Bcast(b, N, MPI_INT, root, comm));
      } else {
        OK(MPI_Ibcast(b, N, MPI_INT, root, comm, &request));
        OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
      }
      for (int k = 0; k < N; ++k) CHECK(b[k] == root * 100 + k + round, "%s: bcast from %d [%d] = %d", name, root, k, b[k]);
      for (int k = 0; k < N; ++k) out[k] = rank == root ? in[k] : -1;
      if (round % 2 == 0)
        OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : in, out, N, MPI_INT, MPI_SUM, root, comm));
      else {
        OK(MPI_Ireduce(in, out, N, MPI_INT, MPI_SUM, root, comm, &request));
        OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
      }
      if (rank == root)
        for (int k = 0; k < N; ++k)
          CHECK(out[k] == wsum * 10 + n * (k + round), "%s: reduce to %d [%d] = %d", name, root, k, out[k]);
    }
    /* allgather: blocking, nonblocking, in place. */
    int mine2[2] = {world + round, -world}, got[128];
    for (int form = 0; form < 3; ++form) {
      for (int i = 0; i < 2 * n; ++i) got[i] = form == 2 && i / 2 == rank ? mine2[i % 2] : -7;
      if (form == 0) OK(MPI_Allgather(mine2, 2, MPI_INT, got, 2, MPI_INT, comm));
      if (form == 1) {
        OK(MPI_Iallgather(mine2, 2, MPI_INT, got, 2, MPI_INT, comm, &request));
        OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
      }
      if (form == 2) OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, got, 2, MPI_INT, comm));
      for (int r = 0; r < n; ++r)
        CHECK(got[2 * r] == members[r] + round && got[2 * r + 1] == -members[r], "%s: allgather form %d block %d: %d %d",
              name, form, r, got[2 * r], got[2 * r + 1]);
    }
    OK(MPI_Ibarrier(comm, &request));
    OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
  }

  /* Persistent: one made now (map known) and the early one, started three times. */
  int pin[N], pout[N];
  MPI_Request persistent;
  OK(MPI_Allreduce_init(pin, pout, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &persistent));
  for (int start = 0; start < 3; ++start) {
    for (int k = 0; k < N; ++k) pin[k] = world * 10 + k + start, pout[k] = -1, early_out[k] = -1;
    MPI_Request both[2] = {persistent, early};
    OK(MPI_Startall(2, both));
    OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    for (int k = 0; k < N; ++k) {
      CHECK(pout[k] == wsum * 10 + n * (k + start), "%s: persistent [%d] = %d", name, k, pout[k]);
      CHECK(early_out[k] == wsum * 10 + n * k, "%s: early persistent [%d] = %d", name, k, early_out[k]);
    }
  }
  OK(MPI_Request_free(&persistent));
  OK(MPI_Request_free(&early));

  /* A non-commutative op: rank order. */
  MPI_Datatype pair;
  MPI_Op op;
  OK(MPI_Type_contiguous(2, MPI_INT, &pair));
  OK(MPI_Type_commit(&pair));
  OK(MPI_Op_create(compose_op, 0, &op));
  affine mine = {(rank + 2) % 9973, (3 * rank + 1) % 9973}, all = {0, 0}, want = {1, 0};
  for (int r = 0; r < n; ++r) {
    affine f = {(r + 2) % 9973, (3 * r + 1) % 9973};
    affine g = {(int)(((long)f.a * want.a) % 9973), (int)(((long)f.a * want.b + f.b) % 9973)};
    want = g;
  }
  OK(MPI_Allreduce(&mine, &all, 1, pair, op, comm));
  CHECK(all.a == want.a && all.b == want.b, "%s: non-commutative (%d, %d), expected (%d, %d)", name, all.a, all.b,
        want.a, want.b);
  OK(MPI_Op_free(&op));
  OK(MPI_Type_free(&pair));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(n <= 64, "at most 64 ranks, not %d", n);
  check_comm(MPI_COMM_WORLD, "world");
  MPI_Comm parity, reordered;
  OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity));
  check_comm(parity, rank % 2 ? "odd ranks" : "even ranks");
  OK(MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % 2) * n + rank / 2, &reordered));
  check_comm(reordered, "reordered");
  OK(MPI_Comm_free(&parity));
  OK(MPI_Comm_free(&reordered));
  if (rank == 0) printf("node_aware: %d ranks: ok\n", n);
  MPI_Finalize();
  return 0;
}
