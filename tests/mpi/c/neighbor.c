/* Neighbourhood collectives (MPI-3.1 §7.6), blocking and nonblocking, on:
 *  - Cartesian grids: 2-D non-periodic (MPI_PROC_NULL at the borders: their blocks
 *    are kept and left untouched), 2-D periodic, and periodic grids with dimensions of
 *    1 and 2 processes, where one rank is both the negative and the positive neighbour
 *    (the block sent in the positive direction must land in the receiver's block from
 *    its negative neighbour, and the other way round);
 *  - a graph (MPI_Graph_create) with repeated edges and self-loops at small sizes;
 *  - a distributed graph (MPI_Dist_graph_create_adjacent) whose sources and
 *    destinations differ.
 * Every rank computes what each block must hold: element k of the block sender s
 * sends in its slot i is s*10000 + key*10 + k, where key is i on a grid (the receiver
 * of slot j of a grid got it from slot j^1 of its neighbour) and the destination rank
 * on a graph. Allgather(v), alltoall(v) and alltoallw (bytes on odd slots, ints on
 * even ones), each blocking, then all five at once as MPI_Ineighbor_*.
 * Errors (MPI_ERRORS_RETURN): no topology (MPI_ERR_TOPOLOGY), negative counts
 * (MPI_ERR_COUNT), MPI_IN_PLACE (MPI_ERR_BUFFER), null per-neighbour arrays
 * (MPI_ERR_ARG), a bad datatype (MPI_ERR_TYPE); the buffers stay as they were. */
#include <string.h>

#include "mpitest.h"

#define SENTINEL (-7)
#define MAXN 64 /* neighbours */
#define SLOT 8  /* ints per receive slot in the v/w layouts: displs[j] = j * SLOT + 1 */

typedef struct {
  MPI_Comm comm;
  const char* name;
  int rank, cart, in, out;
  int sources[MAXN], dests[MAXN];
} Topo;

static void neighbours(Topo* t) {
  int status;
  OK(MPI_Comm_rank(t->comm, &t->rank));
  OK(MPI_Topo_test(t->comm, &status));
  t->cart = status == MPI_CART;
  if (status == MPI_CART) {
    int ndims;
    OK(MPI_Cartdim_get(t->comm, &ndims));
    t->in = t->out = 2 * ndims;
    for (int d = 0; d < ndims; ++d) {
      OK(MPI_Cart_shift(t->comm, d, 1, &t->sources[2 * d], &t->sources[2 * d + 1]));
      t->dests[2 * d] = t->sources[2 * d];
      t->dests[2 * d + 1] = t->sources[2 * d + 1];
    }
  } else if (status == MPI_GRAPH) {
    OK(MPI_Graph_neighbors_count(t->comm, t->rank, &t->in));
    t->out = t->in;
    OK(MPI_Graph_neighbors(t->comm, t->rank, MAXN, t->sources));
    memcpy(t->dests, t->sources, sizeof t->sources);
  } else {
    int weighted;
    CHECK(status == MPI_DIST_GRAPH, "%s: Topo_test gave %d", t->name, status);
    OK(MPI_Dist_graph_neighbors_count(t->comm, &t->in, &t->out, &weighted));
    OK(MPI_Dist_graph_neighbors(t->comm, MAXN, t->sources, MPI_UNWEIGHTED, MAXN, t->dests, MPI_UNWEIGHTED));
  }
}

/* What the sender's slot i / the receiver's slot j are keyed by (see the top). */
static int send_key(const Topo* t, int i) { return t->cart ? i : t->dests[i]; }
static int recv_key(const Topo* t, int j) { return t->cart ? (j ^ 1) : t->rank; }
static int value(int sender, int key, int k) { return sender * 10000 + key * 10 + k; }
/* Elements between a sender and a receiver in the v and w forms: both ends know it. */
static int pair_count(int a, int b) { return 1 + (a + 2 * b) % 3; }
static int v_count(const Topo* t, int i) { return t->dests[i] == MPI_PROC_NULL ? 1 : pair_count(t->rank, t->dests[i]); }
static int v_recv_count(const Topo* t, int j) {
  return t->sources[j] == MPI_PROC_NULL ? 1 : pair_count(t->sources[j], t->rank);
}

typedef struct {
  int ag_send[2], ag_recv[2 * MAXN];
  int agv_send[3], agv_recv[SLOT * MAXN], agv_counts[MAXN], agv_displs[MAXN];
  int a_send[2 * MAXN], a_recv[2 * MAXN];
  int v_send[SLOT * MAXN], v_recv[SLOT * MAXN], v_scounts[MAXN], v_sdispls[MAXN], v_rcounts[MAXN], v_rdispls[MAXN];
  int w_send[SLOT * MAXN], w_recv[SLOT * MAXN], w_scounts[MAXN], w_rcounts[MAXN];
  MPI_Aint w_sdispls[MAXN], w_rdispls[MAXN];
  MPI_Datatype w_stypes[MAXN], w_rtypes[MAXN];
} Buffers;

static void fill(const Topo* t, Buffers* b) {
  for (int k = 0; k < 2 * MAXN; ++k) b->ag_recv[k] = b->a_recv[k] = SENTINEL;
  for (int k = 0; k < SLOT * MAXN; ++k) b->agv_recv[k] = b->v_recv[k] = b->w_recv[k] = SENTINEL;
  for (int k = 0; k < 2; ++k) b->ag_send[k] = value(t->rank, 0, k);
  for (int k = 0; k < 3; ++k) b->agv_send[k] = value(t->rank, 1, k);
  for (int i = 0; i < t->out; ++i) {
    for (int k = 0; k < 2; ++k) b->a_send[2 * i + k] = value(t->rank, send_key(t, i), k);
    b->v_scounts[i] = b->w_scounts[i] = v_count(t, i);
    b->v_sdispls[i] = (t->out - 1 - i) * SLOT; /* reversed, to see that the displacements are used */
    b->w_sdispls[i] = (MPI_Aint)((t->out - 1 - i) * SLOT * sizeof(int));
    b->w_stypes[i] = MPI_INT;
    for (int k = 0; k < b->v_scounts[i]; ++k)
      b->v_send[b->v_sdispls[i] + k] = b->w_send[b->v_sdispls[i] + k] = value(t->rank, send_key(t, i), k);
  }
  for (int j = 0; j < t->in; ++j) {
    const int s = t->sources[j];
    b->agv_counts[j] = s == MPI_PROC_NULL ? 1 : 1 + s % 3;
    b->agv_displs[j] = b->v_rdispls[j] = j * SLOT + 1;
    b->v_rcounts[j] = v_recv_count(t, j);
    b->w_rdispls[j] = (MPI_Aint)((j * SLOT + 1) * sizeof(int));
    b->w_rtypes[j] = j % 2 ? MPI_BYTE : MPI_INT;
    b->w_rcounts[j] = (j % 2 ? (int)sizeof(int) : 1) * v_recv_count(t, j);
  }
}

/* Checks `count` ints at `at` against sender s's block for key (or SENTINEL when s is
 * MPI_PROC_NULL), and that the ints after it up to `span` are untouched. */
static void check_block(const Topo* t, const char* what, int j, const int* at, int count, int span, int s, int key) {
  for (int k = 0; k < span; ++k) {
    const int want = s == MPI_PROC_NULL || k >= count ? SENTINEL : value(s, key, k);
    CHECK(at[k] == want, "%s %s: rank %d slot %d (source %d) element %d = %d, expected %d", t->name, what, t->rank, j,
          s, k, at[k], want);
  }
}

static void check(const Topo* t, const Buffers* b, const char* mode) {
  char what[64];
  for (int j = 0; j < t->in; ++j) {
    const int s = t->sources[j];
    snprintf(what, sizeof what, "%s allgather", mode);
    check_block(t, what, j, &b->ag_recv[2 * j], 2, 2, s, 0);
    snprintf(what, sizeof what, "%s allgatherv", mode);
    check_block(t, what, j, &b->agv_recv[j * SLOT], 0, 1, MPI_PROC_NULL, 0); /* the gap before the block */
    check_block(t, what, j, &b->agv_recv[j * SLOT + 1], b->agv_counts[j], SLOT - 1, s, 1);
    snprintf(what, sizeof what, "%s alltoall", mode);
    check_block(t, what, j, &b->a_recv[2 * j], 2, 2, s, recv_key(t, j));
    snprintf(what, sizeof what, "%s alltoallv", mode);
    check_block(t, what, j, &b->v_recv[j * SLOT + 1], b->v_rcounts[j], SLOT - 1, s, recv_key(t, j));
    snprintf(what, sizeof what, "%s alltoallw", mode);
    check_block(t, what, j, &b->w_recv[j * SLOT + 1], v_recv_count(t, j), SLOT - 1, s, recv_key(t, j));
  }
}

static void run_blocking(const Topo* t, Buffers* b) {
  fill(t, b);
  OK(MPI_Neighbor_allgather(b->ag_send, 2, MPI_INT, b->ag_recv, 2, MPI_INT, t->comm));
  OK(MPI_Neighbor_allgatherv(b->agv_send, 1 + t->rank % 3, MPI_INT, b->agv_recv, b->agv_counts, b->agv_displs,
                             MPI_INT, t->comm));
  OK(MPI_Neighbor_alltoall(b->a_send, 2, MPI_INT, b->a_recv, 2, MPI_INT, t->comm));
  OK(MPI_Neighbor_alltoallv(b->v_send, b->v_scounts, b->v_sdispls, MPI_INT, b->v_recv, b->v_rcounts, b->v_rdispls,
                            MPI_INT, t->comm));
  OK(MPI_Neighbor_alltoallw(b->w_send, b->w_scounts, b->w_sdispls, b->w_stypes, b->w_recv, b->w_rcounts,
                            b->w_rdispls, b->w_rtypes, t->comm));
  check(t, b, "blocking");
}

static void run_nonblocking(const Topo* t, Buffers* b) {
  MPI_Request r[5];
  fill(t, b);
  OK(MPI_Ineighbor_allgather(b->ag_send, 2, MPI_INT, b->ag_recv, 2, MPI_INT, t->comm, &r[0]));
  OK(MPI_Ineighbor_allgatherv(b->agv_send, 1 + t->rank % 3, MPI_INT, b->agv_recv, b->agv_counts, b->agv_displs,
                              MPI_INT, t->comm, &r[1]));
  OK(MPI_Ineighbor_alltoall(b->a_send, 2, MPI_INT, b->a_recv, 2, MPI_INT, t->comm, &r[2]));
  OK(MPI_Ineighbor_alltoallv(b->v_send, b->v_scounts, b->v_sdispls, MPI_INT, b->v_recv, b->v_rcounts, b->v_rdispls,
                             MPI_INT, t->comm, &r[3]));
  OK(MPI_Ineighbor_alltoallw(b->w_send, b->w_scounts, b->w_sdispls, b->w_stypes, b->w_recv, b->w_rcounts,
                             b->w_rdispls, b->w_rtypes, t->comm, &r[4]));
  OK(MPI_Waitall(5, r, MPI_STATUSES_IGNORE));
  check(t, b, "nonblocking");
}

static Buffers buffers;

static void run(MPI_Comm comm, const char* name) {
  if (comm == MPI_COMM_NULL) return;
  Topo t = {.comm = comm, .name = name};
  neighbours(&t);
  CHECK(t.in <= MAXN && t.out <= MAXN, "%s: too many neighbours", name);
  run_blocking(&t, &buffers);
  run_nonblocking(&t, &buffers);
  /* A duplicate keeps the topology, and its collectives work the same. */
  MPI_Comm dup;
  OK(MPI_Comm_dup(comm, &dup));
  t.comm = dup;
  run_blocking(&t, &buffers);
  OK(MPI_Comm_free(&dup));
}

static void errors(MPI_Comm cart) {
  int send[4] = {1, 2, 3, 4}, recv[4 * MAXN], counts[MAXN] = {0}, displs[MAXN] = {0};
  MPI_Aint adispls[MAXN] = {0};
  MPI_Datatype types[MAXN];
  MPI_Request req = MPI_REQUEST_NULL;
  for (int i = 0; i < MAXN; ++i) types[i] = MPI_INT;
  for (int i = 0; i < 4 * MAXN; ++i) recv[i] = SENTINEL;
  /* No topology: MPI_COMM_WORLD, every function. */
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY,
               MPI_Neighbor_allgatherv(send, 1, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                                        MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoallw(send, counts, adispls, types, recv, counts, adispls, types,
                                                        MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD, &req));
  CHECK(req == MPI_REQUEST_NULL, "a refused MPI_Ineighbor_alltoall set the request");
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Ineighbor_alltoallw(send, counts, adispls, types, recv, counts, adispls, types,
                                                         MPI_COMM_WORLD, &req));
  /* Bad arguments on a grid (every rank has 2 * ndims >= 2 neighbours). */
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Neighbor_allgather(send, -1, MPI_INT, recv, 1, MPI_INT, cart));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, -2, MPI_INT, cart, &req));
  counts[1] = -1;
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Neighbor_allgatherv(send, 1, MPI_INT, recv, counts, displs, MPI_INT, cart));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                                     cart));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Neighbor_alltoallw(send, counts, adispls, types, recv, counts, adispls, types, cart));
  counts[1] = 0;
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, recv, 1, MPI_INT, cart));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, recv, 1, MPI_INT, cart));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Neighbor_allgatherv(send, 1, MPI_INT, recv, NULL, displs, MPI_INT, cart));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Neighbor_alltoallv(send, counts, NULL, MPI_INT, recv, counts, displs, MPI_INT, cart));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Neighbor_alltoallw(send, counts, adispls, NULL, recv, counts, adispls, types, cart));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Neighbor_alltoall(send, 1, MPI_DATATYPE_NULL, recv, 1, MPI_INT, cart));
  types[0] = MPI_DATATYPE_NULL;
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Ineighbor_alltoallw(send, counts, adispls, types, recv, counts, adispls, types, cart,
                                                     &req));
  CHECK(req == MPI_REQUEST_NULL, "a refused MPI_Ineighbor_alltoallw set the request");
  for (int i = 0; i < 4 * MAXN; ++i) CHECK(recv[i] == SENTINEL, "a refused call wrote recv[%d]", i);
  /* The communicator still works after the refused calls. */
  int in[2 * MAXN];
  OK(MPI_Neighbor_allgather(send, 1, MPI_INT, in, 1, MPI_INT, cart));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  MPI_Comm comm;
  /* 2-D grids: non-periodic, then periodic. */
  int dims[3] = {0, 0, 0};
  OK(MPI_Dims_create(size, 2, dims));
  OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, (const int[]){0, 0}, 0, &comm));
  run(comm, "2-D grid");
  errors(comm);
  OK(MPI_Comm_free(&comm));
  OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, (const int[]){1, 1}, 0, &comm));
  run(comm, "2-D torus");
  OK(MPI_Comm_free(&comm));
  /* Periodic dimensions of 1 and 2 processes: one rank is both neighbours. */
  if (size >= 2) {
    OK(MPI_Cart_create(MPI_COMM_WORLD, 3, (const int[]){2, 1, size / 2}, (const int[]){1, 1, 0}, 0, &comm));
    run(comm, "2 x 1 x n/2 grid");
    if (comm != MPI_COMM_NULL) OK(MPI_Comm_free(&comm));
  }
  OK(MPI_Cart_create(MPI_COMM_WORLD, 1, (const int[]){1}, (const int[]){1}, 0, &comm));
  run(comm, "periodic 1-process ring");
  if (comm != MPI_COMM_NULL) OK(MPI_Comm_free(&comm));
  /* A graph: node i's neighbours are i+1, i-1 and i+2, i-2 (mod n): symmetric, with
   * repeated edges and self-loops when n is small. */
  {
    int index[MAXN], edges[4 * MAXN], e = 0;
    const int n = size < MAXN ? size : MAXN;
    for (int i = 0; i < n; ++i) {
      edges[e++] = (i + 1) % n;
      edges[e++] = (i - 1 + n) % n;
      edges[e++] = (i + 2) % n;
      edges[e++] = (i - 2 + 2 * n) % n;
      index[i] = e;
    }
    OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &comm));
    run(comm, "graph");
    if (comm != MPI_COMM_NULL) OK(MPI_Comm_free(&comm));
  }
  /* A distributed graph: rank r receives from r-1 and r+2, sends to r+1 and r-2. */
  {
    const int sources[2] = {(rank - 1 + size) % size, (rank + 2) % size};
    const int dests[2] = {(rank + 1) % size, (rank - 2 + 2 * size) % size};
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &comm));
    run(comm, "distributed graph");
    OK(MPI_Comm_free(&comm));
    /* No neighbours at all: the collectives move nothing, and complete. */
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                      0, &comm));
    run(comm, "empty distributed graph");
    OK(MPI_Comm_free(&comm));
  }
  MPI_Finalize();
  if (rank == 0) printf("neighbor: OK\n");
  return 0;
}
