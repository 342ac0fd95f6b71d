/* Graph topologies (MPI-3.1 §7.5.3).
 *  - MPI_Graph_create of a graph on every rank but the last (which gets
 *    MPI_COMM_NULL): node i's neighbours are i+1 and i-1 (mod nnodes), node 0 has a
 *    self-loop and node 1 a repeated edge; MPI_Topo_test gives MPI_GRAPH,
 *    MPI_Graphdims_get / MPI_Graph_get / MPI_Graph_neighbors_count /
 *    MPI_Graph_neighbors give back that graph for every node, in edge order;
 *  - MPI_Comm_dup keeps the graph; a split of it has none (MPI_UNDEFINED);
 *  - a graph of no nodes: MPI_COMM_NULL everywhere;
 *  - MPI_Graph_map: the rank below nnodes, MPI_UNDEFINED from it on;
 *  - errors under MPI_ERRORS_RETURN, each leaving the output untouched: not a graph
 *    (MPI_ERR_TOPOLOGY, on a plain and on a Cartesian communicator), nnodes negative
 *    or above the size (MPI_ERR_ARG), a decreasing or negative index (MPI_ERR_ARG), an
 *    edge to no node (MPI_ERR_RANK), a rank outside the graph (MPI_ERR_RANK), arrays
 *    too small (MPI_ERR_ARG), a null index (MPI_ERR_ARG). */
#include "mpitest.h"

#define MAXNODES 128

static int graph_index[MAXNODES], graph_edges[4 * MAXNODES];

/* Builds the test graph of n nodes; returns the number of edges. */
static int build(int n) {
  int e = 0;
  for (int i = 0; i < n; ++i) {
    graph_edges[e++] = (i + 1) % n;
    graph_edges[e++] = (i - 1 + n) % n;
    if (i == 0) graph_edges[e++] = 0;             /* self-loop */
    if (i == 1) graph_edges[e++] = (i + 1) % n;   /* repeated edge */
    graph_index[i] = e;
  }
  return e;
}

static void check_graph(MPI_Comm graph, int n, int nedges) {
  int status, nn, ne, index[MAXNODES], edges[4 * MAXNODES];
  OK(MPI_Topo_test(graph, &status));
  CHECK(status == MPI_GRAPH, "Topo_test gave %d, expected MPI_GRAPH", status);
  OK(MPI_Graphdims_get(graph, &nn, &ne));
  CHECK(nn == n && ne == nedges, "Graphdims_get gave (%d, %d), expected (%d, %d)", nn, ne, n, nedges);
  OK(MPI_Graph_get(graph, MAXNODES, 4 * MAXNODES, index, edges));
  for (int i = 0; i < n; ++i) CHECK(index[i] == graph_index[i], "index[%d] = %d, expected %d", i, index[i], graph_index[i]);
  for (int e = 0; e < nedges; ++e)
    CHECK(edges[e] == graph_edges[e], "edges[%d] = %d, expected %d", e, edges[e], graph_edges[e]);
  for (int r = 0; r < n; ++r) {
    int count, list[8];
    const int first = r == 0 ? 0 : graph_index[r - 1];
    OK(MPI_Graph_neighbors_count(graph, r, &count));
    CHECK(count == graph_index[r] - first, "node %d: %d neighbours, expected %d", r, count, graph_index[r] - first);
    OK(MPI_Graph_neighbors(graph, r, 8, list));
    for (int k = 0; k < count; ++k)
      CHECK(list[k] == graph_edges[first + k], "node %d neighbour %d = %d, expected %d", r, k, list[k],
            graph_edges[first + k]);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  const int n = size > 1 ? (size - 1 < MAXNODES ? size - 1 : MAXNODES) : 1;
  const int nedges = build(n);
  MPI_Comm graph;
  OK(MPI_Graph_create(MPI_COMM_WORLD, n, graph_index, graph_edges, 1, &graph));
  CHECK((graph == MPI_COMM_NULL) == (rank >= n), "rank %d of %d nodes: graph communicator %s", rank, n,
        graph == MPI_COMM_NULL ? "null" : "not null");
  if (graph != MPI_COMM_NULL) {
    int grank, gsize;
    OK(MPI_Comm_rank(graph, &grank));
    OK(MPI_Comm_size(graph, &gsize));
    CHECK(grank == rank && gsize == n, "graph rank %d size %d", grank, gsize);
    check_graph(graph, n, nedges);
    MPI_Comm dup, split;
    OK(MPI_Comm_dup(graph, &dup));
    check_graph(dup, n, nedges);
    OK(MPI_Comm_split(graph, 0, rank, &split));
    int status;
    OK(MPI_Topo_test(split, &status));
    CHECK(status == MPI_UNDEFINED, "a split of a graph communicator has topology %d", status);
    OK(MPI_Comm_free(&split));
    OK(MPI_Comm_free(&dup));

    /* Errors on the graph communicator; outputs untouched. */
    OK(MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN));
    int out = -5, list[2] = {-5, -5}, index[MAXNODES], edges[4 * MAXNODES];
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Graph_neighbors_count(graph, n, &out));
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Graph_neighbors_count(graph, -1, &out));
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Graph_neighbors(graph, n, 2, list));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_neighbors(graph, 0, 1, list)); /* node 0 has 3 neighbours */
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_get(graph, n - 1, 4 * MAXNODES, index, edges));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_get(graph, n, nedges - 1, index, edges));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Graphdims_get(graph, NULL, &out));
    CHECK(out == -5 && list[0] == -5 && list[1] == -5, "a refused call wrote its output");
    EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(graph, &out));
    EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(graph, &out, &out, &out));
    OK(MPI_Comm_free(&graph));
  }

  /* No nodes: nobody gets a communicator. */
  OK(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &graph));
  CHECK(graph == MPI_COMM_NULL, "a graph of no nodes gave a communicator");

  /* MPI_Graph_map: MPICH's trivial mapping. */
  int newrank = -5;
  OK(MPI_Graph_map(MPI_COMM_WORLD, n, graph_index, graph_edges, &newrank));
  CHECK(newrank == (rank < n ? rank : MPI_UNDEFINED), "Graph_map gave %d", newrank);

  /* Errors. */
  int out = -5, index[MAXNODES], edges[4 * MAXNODES];
  MPI_Comm bad = MPI_COMM_SELF;
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(MPI_COMM_WORLD, &out, &out));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Graph_get(MPI_COMM_WORLD, MAXNODES, 4 * MAXNODES, index, edges));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &out));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors(MPI_COMM_WORLD, 0, 4, index));
  CHECK(out == -5, "a refused call wrote its output");
  MPI_Comm cart;
  OK(MPI_Cart_create(MPI_COMM_WORLD, 1, (const int[]){size}, (const int[]){0}, 0, &cart));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(cart, &out, &out));
  OK(MPI_Comm_free(&cart));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, -1, graph_index, graph_edges, 0, &bad));
  build(size + 1); /* a valid graph, one node too many */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, size + 1, graph_index, graph_edges, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, NULL, graph_edges, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 2, (const int[]){2, 1}, (const int[]){0, 1}, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, (const int[]){-1}, graph_edges, 0, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Graph_create(MPI_COMM_WORLD, 1, (const int[]){1}, (const int[]){1}, 0, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Graph_create(MPI_COMM_WORLD, 1, (const int[]){1}, (const int[]){-1}, 0, &bad));
  CHECK(bad == MPI_COMM_SELF, "a refused MPI_Graph_create wrote comm_graph");
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_map(MPI_COMM_WORLD, size + 1, graph_index, graph_edges, &newrank));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Graph_map(MPI_COMM_WORLD, 0, graph_index, graph_edges, &newrank));

  /* The world still works after the refused calls: a graph over all of it. */
  OK(MPI_Graph_create(MPI_COMM_WORLD, 1, (const int[]){1}, (const int[]){0}, 0, &graph));
  CHECK((graph == MPI_COMM_NULL) == (rank != 0), "a 1-node graph on rank %d", rank);
  if (graph != MPI_COMM_NULL) OK(MPI_Comm_free(&graph));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  if (rank == 0) printf("graph: OK\n");
  return 0;
}
