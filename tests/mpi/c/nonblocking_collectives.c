/* The nonblocking collectives (MPI-3.1 §5.12): each one gives what its blocking
 * counterpart gives; several run at once on one communicator, beside a blocking one,
 * and complete in any order; they progress while the rank is blocked in another call
 * (a schedule that only advanced inside its own MPI_Wait would deadlock below); a
 * non-commutative user op freed, and a datatype freed, right after the call still
 * work; a freed communicator's operation completes. Errors: a null request, an
 * invalid root, MPI_Cancel and MPI_Request_free of such a request (MPI_ERR_REQUEST),
 * and a truncated MPI_Iscatterv reported by MPI_Wait (MPI_ERR_TRUNCATE). Any number of
 * ranks; the progress check needs 3 or more. */
#include <string.h>

#include "mpitest.h"
#include <unistd.h>

#define N 11

static int val(int r, int k) { return (r * 7 + k * 3) % 13 - 4; }

/* An affine map x -> a*x + b modulo 9973 per element: composing them is associative,
 * not commutative. inout = in, then inout (the lower ranks' map applied first). */
typedef struct {
  int a, b;
} affine;
static affine affine_of(int r, int k) {
  affine f = {(r + 2 + k) % 9973, (3 * r + 1 + k) % 9973};
  return f;
}
static affine compose(affine first, affine then) {
  affine f = {(int)(((long)then.a * first.a) % 9973), (int)(((long)then.a * first.b + then.b) % 9973)};
  return f;
}
static void compose_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  /* A user function may call MPI; with TWINFAB_ASYNC_PROGRESS it may run on the
   * progress agent, inside its pass (a nested call, not a new one). */
  (void)type; /* freed already by the caller below, as MPI allows */
  int world_rank = -1;
  CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank) == MPI_SUCCESS && world_rank >= 0,
        "MPI_Comm_rank in a user op: %d", world_rank);
  affine* x = in;
  affine* y = inout;
  for (int i = 0; i < *len; ++i) y[i] = compose(x[i], y[i]);
}

static void wait_ok(MPI_Request* request, const char* what) {
  int rc = MPI_Wait(request, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "MPI_Wait of %s returned %d", what, rc);
  CHECK(*request == MPI_REQUEST_NULL, "MPI_Wait of %s left the request", what);
}

/* Every collective's nonblocking form against values computed on every rank. */
static void results(int rank, int size) {
  MPI_Request rq;
  OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Ibarrier");

  for (int root = 0; root < size; root += (size > 3 ? size - 1 : 1)) {
    int b[N];
    for (int k = 0; k < N; ++k) b[k] = rank == root ? val(root, k) : -99;
    OK(MPI_Ibcast(b, N, MPI_INT, root, MPI_COMM_WORLD, &rq));
    wait_ok(&rq, "MPI_Ibcast");
    for (int k = 0; k < N; ++k) CHECK(b[k] == val(root, k), "Ibcast root %d: b[%d]=%d", root, k, b[k]);

    int in[N], sum[N];
    for (int k = 0; k < N; ++k) in[k] = val(rank, k), sum[k] = -99;
    OK(MPI_Ireduce(in, sum, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &rq));
    wait_ok(&rq, "MPI_Ireduce");
    if (rank == root) {
      for (int k = 0; k < N; ++k) {
        int e = 0;
        for (int r = 0; r < size; ++r) e += val(r, k);
        CHECK(sum[k] == e, "Ireduce root %d: sum[%d]=%d, expected %d", root, k, sum[k], e);
      }
    }

    int* all = malloc(sizeof(int) * N * size);
    OK(MPI_Igather(in, N, MPI_INT, all, N, MPI_INT, root, MPI_COMM_WORLD, &rq));
    wait_ok(&rq, "MPI_Igather");
    if (rank == root)
      for (int r = 0; r < size; ++r)
        for (int k = 0; k < N; ++k) CHECK(all[r * N + k] == val(r, k), "Igather: rank %d's [%d]", r, k);
    int part[N];
    if (rank == root)
      for (int r = 0; r < size; ++r)
        for (int k = 0; k < N; ++k) all[r * N + k] = val(r, k) * 2;
    OK(MPI_Iscatter(all, N, MPI_INT, part, N, MPI_INT, root, MPI_COMM_WORLD, &rq));
    wait_ok(&rq, "MPI_Iscatter");
    for (int k = 0; k < N; ++k) CHECK(part[k] == val(rank, k) * 2, "Iscatter: [%d]=%d", k, part[k]);

    /* v-variants: rank r's block has r % 3 + 1 elements, laid out with a gap of 1 */
    int* counts = malloc(sizeof(int) * size);
    int* displs = malloc(sizeof(int) * size);
    int total = 0;
    for (int r = 0; r < size; ++r) counts[r] = r % 3 + 1, displs[r] = total, total += counts[r] + 1;
    int* v = malloc(sizeof(int) * total);
    for (int i = 0; i < total; ++i) v[i] = -7;
    OK(MPI_Igatherv(in, counts[rank], MPI_INT, v, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &rq));
    wait_ok(&rq, "MPI_Igatherv");
    if (rank == root)
      for (int r = 0; r < size; ++r) {
        for (int k = 0; k < counts[r]; ++k) CHECK(v[displs[r] + k] == val(r, k), "Igatherv: rank %d's [%d]", r, k);
        CHECK(v[displs[r] + counts[r]] == -7, "Igatherv wrote the gap after rank %d's block", r);
      }
    int got[3] = {-1, -1, -1};
    OK(MPI_Iscatterv(v, counts, displs, MPI_INT, got, counts[rank], MPI_INT, root, MPI_COMM_WORLD, &rq));
    wait_ok(&rq, "MPI_Iscatterv");
    for (int k = 0; k < counts[rank]; ++k) CHECK(got[k] == val(rank, k), "Iscatterv: [%d]=%d", k, got[k]);
    free(v);
    free(counts);
    free(displs);
    free(all);
  }

  /* Iallreduce, in place and not */
  for (int in_place = 0; in_place < 2; ++in_place) {
    int in[N], out[N];
    for (int k = 0; k < N; ++k) in[k] = val(rank, k), out[k] = in_place ? in[k] : -99;
    OK(MPI_Iallreduce(in_place ? MPI_IN_PLACE : in, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq));
    wait_ok(&rq, "MPI_Iallreduce");
    for (int k = 0; k < N; ++k) {
      int e = val(0, k);
      for (int r = 1; r < size; ++r) e = val(r, k) > e ? val(r, k) : e;
      CHECK(out[k] == e, "Iallreduce MAX in_place %d: [%d]=%d, expected %d", in_place, k, out[k], e);
    }
  }

  /* Iallgather, Ialltoall (in place), Iallgatherv, Ialltoallv, Ialltoallw */
  int* ag = malloc(sizeof(int) * N * size);
  int mine[N];
  for (int k = 0; k < N; ++k) mine[k] = val(rank, k);
  OK(MPI_Iallgather(mine, N, MPI_INT, ag, N, MPI_INT, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Iallgather");
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < N; ++k) CHECK(ag[r * N + k] == val(r, k), "Iallgather: rank %d's [%d]", r, k);
  for (int r = 0; r < size; ++r) ag[r] = rank * 1000 + r; /* block of 1 for rank r */
  OK(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 1, MPI_INT, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Ialltoall");
  for (int r = 0; r < size; ++r) CHECK(ag[r] == r * 1000 + rank, "Ialltoall in place: [%d]=%d", r, ag[r]);

  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) counts[r] = (r + 1) % 3, displs[r] = total, total += counts[r];
  int* agv = malloc(sizeof(int) * (total + 1));
  OK(MPI_Iallgatherv(mine, counts[rank], MPI_INT, agv, counts, displs, MPI_INT, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Iallgatherv");
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < counts[r]; ++k) CHECK(agv[displs[r] + k] == val(r, k), "Iallgatherv: rank %d's [%d]", r, k);

  int* sendv = malloc(sizeof(int) * size);
  int* recvv = malloc(sizeof(int) * size);
  int* ones = malloc(sizeof(int) * size);
  int* at = malloc(sizeof(int) * size);
  int* bytes_at = malloc(sizeof(int) * size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * size);
  for (int r = 0; r < size; ++r) {
    sendv[r] = rank * 100 + r, recvv[r] = -1, ones[r] = 1, at[r] = r, bytes_at[r] = r * (int)sizeof(int);
    types[r] = MPI_INT;
  }
  OK(MPI_Ialltoallv(sendv, ones, at, MPI_INT, recvv, ones, at, MPI_INT, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Ialltoallv");
  for (int r = 0; r < size; ++r) CHECK(recvv[r] == r * 100 + rank, "Ialltoallv: [%d]=%d", r, recvv[r]);
  for (int r = 0; r < size; ++r) recvv[r] = -1;
  OK(MPI_Ialltoallw(sendv, ones, bytes_at, types, recvv, ones, bytes_at, types, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Ialltoallw");
  for (int r = 0; r < size; ++r) CHECK(recvv[r] == r * 100 + rank, "Ialltoallw: [%d]=%d", r, recvv[r]);

  /* Ireduce_scatter(_block), Iscan, Iexscan */
  int* rs_in = malloc(sizeof(int) * size * 2);
  for (int i = 0; i < size * 2; ++i) rs_in[i] = rank + i;
  int rs_out[2] = {-1, -1};
  OK(MPI_Ireduce_scatter_block(rs_in, rs_out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Ireduce_scatter_block");
  for (int k = 0; k < 2; ++k) {
    const int e = size * (size - 1) / 2 + size * (rank * 2 + k);
    CHECK(rs_out[k] == e, "Ireduce_scatter_block: [%d]=%d, expected %d", k, rs_out[k], e);
  }
  for (int r = 0; r < size; ++r) ones[r] = 1;
  rs_out[0] = -1;
  OK(MPI_Ireduce_scatter(rs_in, rs_out, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Ireduce_scatter");
  CHECK(rs_out[0] == size * (size - 1) / 2 + size * rank, "Ireduce_scatter: %d", rs_out[0]);
  int x = rank + 1, prefix = -1, below = -5;
  OK(MPI_Iscan(&x, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Iscan");
  CHECK(prefix == (rank + 1) * (rank + 2) / 2, "Iscan: %d", prefix);
  OK(MPI_Iexscan(&x, &below, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
  wait_ok(&rq, "MPI_Iexscan");
  if (rank > 0) CHECK(below == rank * (rank + 1) / 2, "Iexscan: %d", below);
  free(rs_in);
  free(types);
  free(bytes_at);
  free(at);
  free(ones);
  free(recvv);
  free(sendv);
  free(agv);
  free(displs);
  free(counts);
  free(ag);
}

/* Several at once, a blocking collective in between, completed in reverse order; a
 * user op and a datatype freed right after the call. */
static void overlapping(int rank, int size) {
  MPI_Op op;
  OK(MPI_Op_create(compose_op, 0, &op));
  MPI_Datatype pair;
  OK(MPI_Type_contiguous(2, MPI_INT, &pair));
  OK(MPI_Type_commit(&pair));
  affine f[N], g[N];
  for (int k = 0; k < N; ++k) f[k] = affine_of(rank, k);
  int b[N], s[N];
  for (int k = 0; k < N; ++k) b[k] = rank == 0 ? val(100, k) : 0, s[k] = val(rank, k);
  int sum[N];
  MPI_Request rq[4];
  OK(MPI_Iallreduce(f, g, N, pair, op, MPI_COMM_WORLD, &rq[0]));
  OK(MPI_Op_free(&op));
  OK(MPI_Type_free(&pair));
  OK(MPI_Ibcast(b, N, MPI_INT, 0, MPI_COMM_WORLD, &rq[1]));
  OK(MPI_Iallreduce(s, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
  OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[3]));
  usleep(2000); /* computation: an asynchronous progress agent advances them meanwhile */
  int blocking = rank, blocking_sum = -1;
  OK(MPI_Allreduce(&blocking, &blocking_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(blocking_sum == size * (size - 1) / 2, "MPI_Allreduce among nonblocking ones: %d", blocking_sum);
  MPI_Request reversed[4] = {rq[3], rq[2], rq[1], rq[0]};
  OK(MPI_Waitall(4, reversed, MPI_STATUSES_IGNORE));
  for (int k = 0; k < N; ++k) {
    affine e = affine_of(0, k);
    for (int r = 1; r < size; ++r) e = compose(e, affine_of(r, k));
    CHECK(g[k].a == e.a && g[k].b == e.b, "non-commutative Iallreduce [%d]: (%d, %d), expected (%d, %d)", k, g[k].a,
          g[k].b, e.a, e.b);
    CHECK(b[k] == val(100, k), "overlapping Ibcast [%d]=%d", k, b[k]);
    int e2 = 0;
    for (int r = 0; r < size; ++r) e2 += val(r, k);
    CHECK(sum[k] == e2, "overlapping Iallreduce [%d]=%d, expected %d", k, sum[k], e2);
  }

  /* Polled to completion with MPI_Test. */
  MPI_Request t;
  int one = 1, count = 0, flag = 0, polls = 0;
  OK(MPI_Iallreduce(&one, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &t));
  while (!flag) {
    OK(MPI_Test(&t, &flag, MPI_STATUS_IGNORE));
    ++polls;
  }
  CHECK(count == size && t == MPI_REQUEST_NULL, "Iallreduce by MPI_Test: %d after %d polls", count, polls);

  /* An operation on a communicator freed before it completes. */
  MPI_Comm dup;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int token = rank == size - 1 ? 4242 : 0;
  OK(MPI_Ibcast(&token, 1, MPI_INT, size - 1, dup, &t));
  OK(MPI_Comm_free(&dup));
  wait_ok(&t, "MPI_Ibcast on a freed communicator");
  CHECK(token == 4242, "Ibcast on a freed communicator: %d", token);
}

/* Rank 1 starts a barrier and then blocks in MPI_Recv for a message that rank
 * 3 % size sends only once its own barrier completed. That needs rank 1's second
 * dissemination round (distance 2, to rank 3 % size), which can only start after the
 * first one's message arrived: it must go out while rank 1 is blocked in MPI_Recv. */
static void progress(int rank, int size) {
  if (size < 3) return;
  const int sender = 3 % size;
  MPI_Request rq;
  int msg = 0;
  OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
  if (rank == 1) {
    OK(MPI_Recv(&msg, 1, MPI_INT, sender, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(msg == 77, "message after the barrier: %d", msg);
    wait_ok(&rq, "MPI_Ibarrier");
  } else {
    wait_ok(&rq, "MPI_Ibarrier");
    if (rank == sender) {
      msg = 77;
      OK(MPI_Send(&msg, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
    }
  }
}

static void errors(int rank, int size) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int b = 0;
  MPI_Request rq;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Ibarrier(MPI_COMM_WORLD, NULL));
  EXPECT_CLASS(MPI_ERR_ROOT, MPI_Ibcast(&b, 1, MPI_INT, size, MPI_COMM_WORLD, &rq));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Iallreduce(&b, &rank, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &rq));
  /* The refused calls above took no sequence number: these still match up. */
  OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Cancel(&rq));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Request_free(&rq));
  CHECK(rq != MPI_REQUEST_NULL, "a refused MPI_Request_free cleared the request");
  wait_ok(&rq, "MPI_Ibarrier after refused cancel and free");

  /* The root scatters 2 ints to each rank, which receive 1 (the root keeps its block
   * in place). MPI_Iscatterv: its root sends to every rank directly, so every rank
   * sees the mismatch; MPI_Iscatter's default binomial tree (docs/collectives.md)
   * passes blocks on through other ranks, which receive them with their own counts,
   * so there only the root's children would. */
  int* blocks = malloc(sizeof(int) * 2 * size);
  int* twos = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  for (int i = 0; i < 2 * size; ++i) blocks[i] = i;
  for (int i = 0; i < size; ++i) twos[i] = 2, displs[i] = 2 * i;
  int one = -1;
  OK(MPI_Iscatterv(blocks, twos, displs, MPI_INT, rank == 0 ? MPI_IN_PLACE : (void*)&one, 1, MPI_INT, 0,
                   MPI_COMM_WORLD, &rq));
  MPI_Status st;
  const int rc = MPI_Wait(&rq, &st);
  if (rank == 0) {
    CHECK(rc == MPI_SUCCESS, "truncated Iscatterv at the root: %d", rc);
  } else {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated Iscatterv: class %d", cls);
    CHECK(rq == MPI_REQUEST_NULL, "failed MPI_Wait left the request");
  }
  free(blocks);
  free(twos);
  free(displs);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  results(rank, size);
  overlapping(rank, size);
  progress(rank, size);
  errors(rank, size);
  if (rank == 0) printf("nonblocking collectives: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}
