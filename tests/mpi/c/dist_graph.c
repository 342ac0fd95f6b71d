/* Distributed graph topologies (MPI-3.1 §7.5.4).
 *  - MPI_Dist_graph_create_adjacent, weighted: rank r receives from r-1 and r+2 and
 *    sends to r+1 and r-2 (mod n), weight 100*from + to; MPI_Topo_test gives
 *    MPI_DIST_GRAPH, MPI_Dist_graph_neighbors_count / MPI_Dist_graph_neighbors give
 *    the lists back in order, with their weights (and leave MPI_UNWEIGHTED arrays
 *    alone); MPI_Comm_dup keeps them;
 *  - unweighted (MPI_UNWEIGHTED: weighted = 0), and weighted with no edges here
 *    (MPI_WEIGHTS_EMPTY);
 *  - MPI_Dist_graph_create, the general form, three ways over the same graph (every
 *    rank r has the edges r -> r+1 (weight r) and r -> r+3 (weight 1000 + r)): rank 0
 *    names every edge; each rank names its out-edges; each rank names its in-edges
 *    (one source per edge). Every rank must learn the same in- and out-neighbours
 *    with their weights (compared as sorted lists: the order is the implementation's);
 *    unweighted too. A neighbour alltoall over the result delivers each source's block
 *    for this rank (value 1000*source + destination), so both ends agree on the edges;
 *  - errors under MPI_ERRORS_RETURN, leaving the output untouched: not a distributed
 *    graph (MPI_ERR_TOPOLOGY), negative degrees (MPI_ERR_ARG), ranks outside the
 *    communicator (MPI_ERR_RANK), negative weights (MPI_ERR_ARG), MPI_WEIGHTS_EMPTY or
 *    null weights with edges (MPI_ERR_ARG), arrays too small (MPI_ERR_ARG). */
#include <stdlib.h>

#include "mpitest.h"

static int size, rank;

static int mod(int a) { return ((a % size) + size) % size; }

static int cmp_pair(const void* a, const void* b) {
  const int* x = a;
  const int* y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sorts n (rank, weight) pairs. */
static void sort_pairs(int* pairs, int n) { qsort(pairs, (size_t)n, 2 * sizeof(int), cmp_pair); }

static void check_adjacent(MPI_Comm g, int weighted) {
  int status, in, out, w, sources[4], sw[4] = {-5, -5, -5, -5}, dests[4], dw[4] = {-5, -5, -5, -5};
  OK(MPI_Topo_test(g, &status));
  CHECK(status == MPI_DIST_GRAPH, "Topo_test gave %d, expected MPI_DIST_GRAPH", status);
  OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
  CHECK(in == 2 && out == 2 && w == weighted, "neighbors_count gave (%d, %d, %d)", in, out, w);
  OK(MPI_Dist_graph_neighbors(g, 4, sources, sw, 4, dests, dw));
  const int want_sources[2] = {mod(rank - 1), mod(rank + 2)}, want_dests[2] = {mod(rank + 1), mod(rank - 2)};
  for (int i = 0; i < 2; ++i) {
    CHECK(sources[i] == want_sources[i], "sources[%d] = %d, expected %d", i, sources[i], want_sources[i]);
    CHECK(dests[i] == want_dests[i], "destinations[%d] = %d, expected %d", i, dests[i], want_dests[i]);
    const int want_sw = weighted ? 100 * want_sources[i] + rank : -5;
    const int want_dw = weighted ? 100 * rank + want_dests[i] : -5;
    CHECK(sw[i] == want_sw, "sourceweights[%d] = %d, expected %d", i, sw[i], want_sw);
    CHECK(dw[i] == want_dw, "destweights[%d] = %d, expected %d", i, dw[i], want_dw);
  }
  /* MPI_UNWEIGHTED output arrays are not written. */
  OK(MPI_Dist_graph_neighbors(g, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED));
}

/* The graph of the general tests: r -> r+1 (weight r), r -> r+3 (weight 1000 + r). */
static void check_general(MPI_Comm g, int weighted, const char* how) {
  int in, out, w, sources[4], sw[4], dests[4], dw[4];
  OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
  CHECK(in == 2 && out == 2 && w == weighted, "%s: neighbors_count gave (%d, %d, %d)", how, in, out, w);
  OK(MPI_Dist_graph_neighbors(g, 2, sources, weighted ? sw : MPI_UNWEIGHTED, 2, dests,
                              weighted ? dw : MPI_UNWEIGHTED));
  int got_in[4] = {sources[0], weighted ? sw[0] : 0, sources[1], weighted ? sw[1] : 0};
  int got_out[4] = {dests[0], weighted ? dw[0] : 0, dests[1], weighted ? dw[1] : 0};
  int want_in[4] = {mod(rank - 1), weighted ? mod(rank - 1) : 0, mod(rank - 3), weighted ? 1000 + mod(rank - 3) : 0};
  int want_out[4] = {mod(rank + 1), weighted ? rank : 0, mod(rank + 3), weighted ? 1000 + rank : 0};
  sort_pairs(got_in, 2);
  sort_pairs(got_out, 2);
  sort_pairs(want_in, 2);
  sort_pairs(want_out, 2);
  for (int i = 0; i < 4; ++i) {
    CHECK(got_in[i] == want_in[i], "%s: in-neighbour pairs differ at %d: %d, expected %d", how, i, got_in[i],
          want_in[i]);
    CHECK(got_out[i] == want_out[i], "%s: out-neighbour pairs differ at %d: %d, expected %d", how, i, got_out[i],
          want_out[i]);
  }
  /* Both ends agree: each source's block for me arrives. */
  int send[2] = {1000 * rank + dests[0], 1000 * rank + dests[1]}, recv[2] = {-5, -5};
  OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, g));
  for (int j = 0; j < 2; ++j)
    CHECK(recv[j] == 1000 * sources[j] + rank, "%s: block %d from %d = %d, expected %d", how, j, sources[j], recv[j],
          1000 * sources[j] + rank);
}

/* Edges named by `mode`: 0 = rank 0 names all, 1 = out-edges, 2 = in-edges. */
static void general(int mode, int weighted, const char* how) {
  int n = 0, srcs[256], degrees[256], dests[512], weights[512], e = 0;
  const int first = mode == 0 ? 0 : rank, last = mode == 0 ? (rank == 0 ? size : 0) : rank + 1;
  for (int r = first; r < last && r < 256; ++r) {
    if (mode == 2) { /* the edges into r, one source entry each */
      srcs[n] = mod(r - 1), degrees[n] = 1, dests[e] = r, weights[e++] = mod(r - 1), ++n;
      srcs[n] = mod(r - 3), degrees[n] = 1, dests[e] = r, weights[e++] = 1000 + mod(r - 3), ++n;
    } else {
      srcs[n] = r, degrees[n] = 2, ++n;
      dests[e] = mod(r + 1), weights[e++] = r;
      dests[e] = mod(r + 3), weights[e++] = 1000 + r;
    }
  }
  MPI_Comm g;
  OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degrees, dests, weighted ? weights : MPI_UNWEIGHTED,
                           MPI_INFO_NULL, 0, &g));
  check_general(g, weighted, how);
  OK(MPI_Comm_free(&g));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  const int sources[2] = {mod(rank - 1), mod(rank + 2)}, dests[2] = {mod(rank + 1), mod(rank - 2)};
  const int sw[2] = {100 * sources[0] + rank, 100 * sources[1] + rank};
  const int dw[2] = {100 * rank + dests[0], 100 * rank + dests[1]};
  MPI_Comm g, dup;
  OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, sw, 2, dests, dw, MPI_INFO_NULL, 1, &g));
  int grank, gsize;
  OK(MPI_Comm_rank(g, &grank));
  OK(MPI_Comm_size(g, &gsize));
  CHECK(grank == rank && gsize == size, "dist graph rank %d size %d", grank, gsize);
  check_adjacent(g, 1);
  OK(MPI_Comm_dup(g, &dup));
  check_adjacent(dup, 1);
  OK(MPI_Comm_free(&dup));
  {
    /* Errors on it; outputs untouched. */
    int out = -5, list[1] = {-5};
    OK(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_neighbors(g, 1, list, MPI_UNWEIGHTED, 2, list, MPI_UNWEIGHTED));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_neighbors_count(g, &out, NULL, &out));
    CHECK(out == -5 && list[0] == -5, "a refused call wrote its output");
    EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(g, &out, &out));
    EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Cart_shift(g, 0, 1, &out, &out));
  }
  OK(MPI_Comm_free(&g));

  OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &g));
  check_adjacent(g, 0);
  OK(MPI_Comm_free(&g));

  /* Weighted, with no edges: MPI_WEIGHTS_EMPTY. */
  OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
                                    MPI_INFO_NULL, 0, &g));
  {
    int in = -5, out = -5, w = -5;
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 0 && out == 0 && w == 1, "empty weighted graph: (%d, %d, %d)", in, out, w);
  }
  OK(MPI_Comm_free(&g));
  OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
  OK(MPI_Comm_free(&g));

  general(0, 1, "rank 0 names every edge");
  general(1, 1, "each rank names its out-edges");
  general(2, 1, "each rank names its in-edges");
  general(1, 0, "unweighted out-edges");
  general(0, 0, "unweighted, from rank 0");

  /* Errors. */
  MPI_Comm bad = MPI_COMM_SELF;
  int out = -5;
  const int neg[1] = {-1}, big[1] = {size}, one[1] = {1}, zero[1] = {0};
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &out, &out, &out));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors(MPI_COMM_WORLD, 0, NULL, NULL, 0, NULL, NULL));
  CHECK(out == -5, "a refused call wrote its output");
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, zero, MPI_UNWEIGHTED, 0, NULL,
                                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, big, MPI_UNWEIGHTED, 0, NULL,
                                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 1, neg,
                                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, zero, neg, 0, NULL, MPI_WEIGHTS_EMPTY,
                                                           MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, zero, MPI_WEIGHTS_EMPTY, 0, NULL,
                                                           MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, zero, NULL, 0, NULL, NULL,
                                                           MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, zero, one, 1, zero, MPI_UNWEIGHTED,
                                                           MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, -1, zero, one, zero, MPI_UNWEIGHTED,
                                                  MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, neg, zero, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                                  0, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, big, one, zero, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                                   0, &bad));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, one, big, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                                   0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, one, zero, neg, MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, one, zero, MPI_WEIGHTS_EMPTY,
                                                  MPI_INFO_NULL, 0, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, one, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                                  0, &bad));
  CHECK(bad == MPI_COMM_SELF, "a refused call wrote comm_dist_graph");

  /* The world still works after the refused calls. */
  general(1, 1, "after the errors");
  MPI_Finalize();
  if (rank == 0) printf("dist_graph: OK\n");
  return 0;
}
