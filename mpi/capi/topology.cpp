// MPI C API: process topologies (MPI_Dims_create, MPI_Cart_*, MPI_Graph_*,
// MPI_Graphdims_get, MPI_Dist_graph_*, MPI_Topo_test). The topology logic is
// mpi/core/topology.hpp; the communicators come from Context.
//
// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are two fixed addresses no array has (mpi.h),
// told apart from each other, from null and from real weight arrays by value.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <span>
#include <vector>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

/// The communicator's grid; MPI_ERR_TOPOLOGY when it has none.
const CartTopology& cart_of(const Communicator& comm, const char* where) {
  if (comm.cart() == nullptr)
    throw Error(ErrorClass::MPI_ERR_TOPOLOGY, fmt::format("{}(comm)", where),
                "not a Cartesian communicator (made by MPI_Cart_create or MPI_Cart_sub)");
  return *comm.cart();
}

/// maxdims must cover the grid's dimensions: the output arrays have maxdims entries.
void check_maxdims(int maxdims, const CartTopology& grid, const char* where) {
  if (maxdims < grid.ndims())
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(maxdims={})", where, maxdims),
                fmt::format("the topology has {} dimensions; the arrays need that many entries", grid.ndims()));
}

/// The communicator's graph; MPI_ERR_TOPOLOGY when it has none.
const GraphTopology& graph_of(const Communicator& comm, const char* where) {
  if (comm.graph() == nullptr)
    throw Error(ErrorClass::MPI_ERR_TOPOLOGY, fmt::format("{}(comm)", where),
                "not a graph communicator (made by MPI_Graph_create)");
  return *comm.graph();
}

const DistGraphTopology& dist_graph_of(const Communicator& comm, const char* where) {
  if (comm.dist_graph() == nullptr)
    throw Error(ErrorClass::MPI_ERR_TOPOLOGY, fmt::format("{}(comm)", where),
                "not a distributed graph communicator (made by MPI_Dist_graph_create or "
                "MPI_Dist_graph_create_adjacent)");
  return *comm.dist_graph();
}

/// A count argument (a degree, nnodes, ...) must not be negative: MPI_ERR_ARG.
void check_count(int value, const char* where, const char* arg) {
  if (value < 0)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}={})", where, arg, value), "must not be negative");
}

/// An output array of `max` entries must hold `needed`: MPI_ERR_ARG.
void check_room(int max, int needed, const char* where, const char* arg, const char* what) {
  if (max < needed)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}={})", where, arg, max),
                fmt::format("there are {} {}; the array needs that many entries", needed, what));
}

/// The weights of `count` edges given as `weights`: empty (weighted or not, as the
/// second member says) or `count` values. MPI_UNWEIGHTED: unweighted.
/// MPI_WEIGHTS_EMPTY, or null with no edges: weighted, no weights. MPI_ERR_ARG for
/// MPI_WEIGHTS_EMPTY or null with edges.
std::pair<std::vector<int>, bool> weights_of(const int* weights, int count, const char* where, const char* arg) {
  if (weights == MPI_UNWEIGHTED) return {{}, false};
  if (count > 0 && (weights == MPI_WEIGHTS_EMPTY || weights == nullptr))
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({})", where, arg),
                fmt::format("{} for {} edges; pass their weights, or MPI_UNWEIGHTED",
                            weights == nullptr ? "null pointer" : "MPI_WEIGHTS_EMPTY", count));
  if (count == 0) return {{}, true};
  return {std::vector<int>(weights, weights + count), true};
}

}  // namespace

extern "C" {

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return entry("MPI_Dims_create", MPI_COMM_WORLD, [&](RankState&) {
    if (ndims < 0)
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("MPI_Dims_create(ndims={})", ndims), "must not be negative");
    if (ndims > 0) require_pointer(dims, "MPI_Dims_create", "dims");
    const std::vector<int> out = dims_create(nnodes, std::span<const int>(dims, static_cast<std::size_t>(ndims)));
    std::ranges::copy(out, dims);
    return MPI_SUCCESS;
  });
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart) {
  (void)reorder;  // not implemented, which MPI allows: rank r of comm_old is rank r of the grid
  return entry("MPI_Cart_create", comm_old, [&](RankState& s) {
    const Communicator& c = s.comm(comm_old, "MPI_Cart_create");
    if (ndims < 0)
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("MPI_Cart_create(ndims={})", ndims), "must not be negative");
    if (ndims > 0) {
      require_pointer(dims, "MPI_Cart_create", "dims");
      require_pointer(periods, "MPI_Cart_create", "periods");
    }
    require_pointer(comm_cart, "MPI_Cart_create", "comm_cart");
    const auto n = static_cast<std::size_t>(ndims);
    std::vector<bool> wraps(n);
    for (std::size_t i = 0; i < n; ++i) wraps[i] = periods[i] != 0;
    CartTopology grid(std::vector<int>(dims, dims + n), std::move(wraps), "MPI_Cart_create");
    *comm_cart = s.add_comm(s.ctx().cart_create(c, std::move(grid)), s.errhandler_of(comm_old));
    return MPI_SUCCESS;
  });
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* where = "MPI_Cart_map";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    if (c.is_inter()) throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where), "is an intercommunicator");
    if (ndims < 0) throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(ndims={})", where, ndims), "must not be negative");
    if (ndims > 0) {
      require_pointer(dims, where, "dims");
      require_pointer(periods, where, "periods");
    }
    require_pointer(newrank, where, "newrank");
    const auto n = static_cast<std::size_t>(ndims);
    // The grid checks dims as MPI_Cart_create would; periods do not change the mapping.
    const CartTopology grid(std::vector<int>(dims, dims + n), std::vector<bool>(n), where);
    if (grid.size() > c.size())
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(dims)", where),
                  fmt::format("the grid has {} processes, the communicator only {}", grid.size(), c.size()));
    *newrank = c.rank() < grid.size() ? c.rank() : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  return entry("MPI_Cart_get", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Cart_get");
    const CartTopology& grid = cart_of(c, "MPI_Cart_get");
    check_maxdims(maxdims, grid, "MPI_Cart_get");
    if (grid.ndims() > 0) {
      require_pointer(dims, "MPI_Cart_get", "dims");
      require_pointer(periods, "MPI_Cart_get", "periods");
      require_pointer(coords, "MPI_Cart_get", "coords");
    }
    const std::vector<int> at = grid.coords(c.rank(), "MPI_Cart_get");
    for (int i = 0; i < grid.ndims(); ++i) {
      const auto d = static_cast<std::size_t>(i);
      dims[i] = grid.dims()[d];
      periods[i] = grid.periods()[d] ? 1 : 0;
      coords[i] = at[d];
    }
    return MPI_SUCCESS;
  });
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  return entry("MPI_Cartdim_get", comm, [&](RankState& s) {
    const CartTopology& grid = cart_of(s.comm(comm, "MPI_Cartdim_get"), "MPI_Cartdim_get");
    require_pointer(ndims, "MPI_Cartdim_get", "ndims");
    *ndims = grid.ndims();
    return MPI_SUCCESS;
  });
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  return entry("MPI_Cart_rank", comm, [&](RankState& s) {
    const CartTopology& grid = cart_of(s.comm(comm, "MPI_Cart_rank"), "MPI_Cart_rank");
    if (grid.ndims() > 0) require_pointer(coords, "MPI_Cart_rank", "coords");
    require_pointer(rank, "MPI_Cart_rank", "rank");
    *rank = grid.rank(std::span<const int>(coords, static_cast<std::size_t>(grid.ndims())), "MPI_Cart_rank");
    return MPI_SUCCESS;
  });
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  return entry("MPI_Cart_coords", comm, [&](RankState& s) {
    const CartTopology& grid = cart_of(s.comm(comm, "MPI_Cart_coords"), "MPI_Cart_coords");
    check_maxdims(maxdims, grid, "MPI_Cart_coords");
    if (grid.ndims() > 0) require_pointer(coords, "MPI_Cart_coords", "coords");
    std::ranges::copy(grid.coords(rank, "MPI_Cart_coords"), coords);
    return MPI_SUCCESS;
  });
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  return entry("MPI_Cart_shift", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Cart_shift");
    const CartTopology& grid = cart_of(c, "MPI_Cart_shift");
    require_pointer(rank_source, "MPI_Cart_shift", "rank_source");
    require_pointer(rank_dest, "MPI_Cart_shift", "rank_dest");
    const auto [source, dest] = grid.shift(c.rank(), direction, disp, "MPI_Cart_shift");
    *rank_source = source;
    *rank_dest = dest;
    return MPI_SUCCESS;
  });
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return entry("MPI_Cart_sub", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Cart_sub");
    const CartTopology& grid = cart_of(c, "MPI_Cart_sub");
    if (grid.ndims() > 0) require_pointer(remain_dims, "MPI_Cart_sub", "remain_dims");
    require_pointer(newcomm, "MPI_Cart_sub", "newcomm");
    std::vector<bool> remain(static_cast<std::size_t>(grid.ndims()));
    for (std::size_t i = 0; i < remain.size(); ++i) remain[i] = remain_dims[i] != 0;
    *newcomm = s.add_comm(s.ctx().cart_sub(c, remain), s.errhandler_of(comm));
    return MPI_SUCCESS;
  });
}

int MPI_Topo_test(MPI_Comm comm, int* status) {
  return entry("MPI_Topo_test", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Topo_test");
    require_pointer(status, "MPI_Topo_test", "status");
    *status = c.cart() != nullptr ? MPI_CART
              : c.graph() != nullptr ? MPI_GRAPH
              : c.dist_graph() != nullptr ? MPI_DIST_GRAPH
                                          : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

// ---- graph topologies (MPI-3.1 §7.5.3)

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* comm_graph) {
  (void)reorder;  // not implemented, which MPI allows: rank r of comm_old is node r
  const char* where = "MPI_Graph_create";
  return entry(where, comm_old, [&](RankState& s) {
    const Communicator& c = s.comm(comm_old, where);
    check_count(nnodes, where, "nnodes");
    if (nnodes > 0) require_pointer(index, where, "index");
    require_pointer(comm_graph, where, "comm_graph");
    const auto n = static_cast<std::size_t>(nnodes);
    std::vector<int> node_index(index, index + n);
    // Check the index before reading edges by it (GraphTopology checks it again).
    for (std::size_t i = 0; i < n; ++i)
      if (node_index[i] < (i == 0 ? 0 : node_index[i - 1]))
        throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(index[{}]={})", where, i, node_index[i]),
                    i == 0 ? std::string("must not be negative") : std::string("index must not decrease"));
    const int nedges = n == 0 ? 0 : node_index.back();
    if (nedges > 0) require_pointer(edges, where, "edges");
    GraphTopology graph(std::move(node_index), std::vector<int>(edges, edges + nedges), where);
    *comm_graph = s.add_comm(s.ctx().graph_create(c, std::move(graph)), s.errhandler_of(comm_old));
    return MPI_SUCCESS;
  });
}

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const char* where = "MPI_Graphdims_get";
  return entry(where, comm, [&](RankState& s) {
    const GraphTopology& graph = graph_of(s.comm(comm, where), where);
    require_pointer(nnodes, where, "nnodes");
    require_pointer(nedges, where, "nedges");
    *nnodes = graph.nnodes();
    *nedges = graph.nedges();
    return MPI_SUCCESS;
  });
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const char* where = "MPI_Graph_get";
  return entry(where, comm, [&](RankState& s) {
    const GraphTopology& graph = graph_of(s.comm(comm, where), where);
    check_room(maxindex, graph.nnodes(), where, "maxindex", "nodes");
    check_room(maxedges, graph.nedges(), where, "maxedges", "edges");
    if (graph.nnodes() > 0) require_pointer(index, where, "index");
    if (graph.nedges() > 0) require_pointer(edges, where, "edges");
    std::ranges::copy(graph.index(), index);
    std::ranges::copy(graph.edges(), edges);
    return MPI_SUCCESS;
  });
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* where = "MPI_Graph_neighbors_count";
  return entry(where, comm, [&](RankState& s) {
    const GraphTopology& graph = graph_of(s.comm(comm, where), where);
    require_pointer(nneighbors, where, "nneighbors");
    *nneighbors = static_cast<int>(graph.neighbours(rank, where).size());
    return MPI_SUCCESS;
  });
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* where = "MPI_Graph_neighbors";
  return entry(where, comm, [&](RankState& s) {
    const GraphTopology& graph = graph_of(s.comm(comm, where), where);
    const std::span<const int> list = graph.neighbours(rank, where);
    check_room(maxneighbors, static_cast<int>(list.size()), where, "maxneighbors", "neighbours");
    if (!list.empty()) require_pointer(neighbors, where, "neighbors");
    std::ranges::copy(list, neighbors);
    return MPI_SUCCESS;
  });
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  const char* where = "MPI_Graph_map";
  (void)index;  // MPICH's trivial mapping: the graph's shape does not matter
  (void)edges;
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    if (nnodes < 1 || nnodes > c.size())
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(nnodes={})", where, nnodes),
                  fmt::format("must be 1 ... {} (the communicator's size)", c.size()));
    require_pointer(newrank, where, "newrank");
    *newrank = c.rank() < nnodes ? c.rank() : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

// ---- distributed graph topologies (MPI-3.1 §7.5.4)

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  (void)reorder;  // not implemented, which MPI allows: rank r of comm_old is rank r
  const char* where = "MPI_Dist_graph_create_adjacent";
  return entry(where, comm_old, [&](RankState& s) {
    const Communicator& c = s.comm(comm_old, where);
    check_count(indegree, where, "indegree");
    check_count(outdegree, where, "outdegree");
    if (indegree > 0) require_pointer(sources, where, "sources");
    if (outdegree > 0) require_pointer(destinations, where, "destinations");
    s.infos.check_hints(info, where);
    require_pointer(comm_dist_graph, where, "comm_dist_graph");
    auto [in_weights, in_weighted] = weights_of(sourceweights, indegree, where, "sourceweights");
    auto [out_weights, out_weighted] = weights_of(destweights, outdegree, where, "destweights");
    if (in_weighted != out_weighted)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({})", where, in_weighted ? "destweights" : "sourceweights"),
                  "MPI_UNWEIGHTED for one side only; a graph is weighted or not");
    DistGraphTopology graph(std::vector<int>(sources, sources + indegree), std::move(in_weights),
                            std::vector<int>(destinations, destinations + outdegree), std::move(out_weights),
                            in_weighted);
    *comm_dist_graph = s.add_comm(s.ctx().dist_graph_create_adjacent(c, std::move(graph)), s.errhandler_of(comm_old));
    return MPI_SUCCESS;
  });
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* comm_dist_graph) {
  (void)reorder;  // not implemented, which MPI allows: rank r of comm_old is rank r
  const char* where = "MPI_Dist_graph_create";
  return entry(where, comm_old, [&](RankState& s) {
    const Communicator& c = s.comm(comm_old, where);
    check_count(n, where, "n");
    if (n > 0) {
      require_pointer(sources, where, "sources");
      require_pointer(degrees, where, "degrees");
    }
    std::int64_t edges = 0;
    for (int i = 0; i < n; ++i) {
      if (degrees[i] < 0)
        throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(degrees[{}]={})", where, i, degrees[i]),
                    "must not be negative");
      edges += degrees[i];
    }
    if (edges > std::numeric_limits<int>::max())
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(degrees)", where), "more than 2^31 - 1 edges");
    const auto nedges = static_cast<int>(edges);
    if (nedges > 0) require_pointer(destinations, where, "destinations");
    s.infos.check_hints(info, where);
    require_pointer(comm_dist_graph, where, "comm_dist_graph");
    const auto [edge_weights, weighted] = weights_of(weights, nedges, where, "weights");
    const auto count = static_cast<std::size_t>(n);
    *comm_dist_graph =
        s.add_comm(s.ctx().dist_graph_create(c, std::span<const int>(sources, count), std::span<const int>(degrees, count),
                                             std::span<const int>(destinations, static_cast<std::size_t>(nedges)),
                                             edge_weights, weighted),
                   s.errhandler_of(comm_old));
    return MPI_SUCCESS;
  });
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* where = "MPI_Dist_graph_neighbors_count";
  return entry(where, comm, [&](RankState& s) {
    const DistGraphTopology& graph = dist_graph_of(s.comm(comm, where), where);
    require_pointer(indegree, where, "indegree");
    require_pointer(outdegree, where, "outdegree");
    require_pointer(weighted, where, "weighted");
    *indegree = static_cast<int>(graph.sources().size());
    *outdegree = static_cast<int>(graph.destinations().size());
    *weighted = graph.weighted() ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                             int destinations[], int destweights[]) {
  const char* where = "MPI_Dist_graph_neighbors";
  return entry(where, comm, [&](RankState& s) {
    const DistGraphTopology& graph = dist_graph_of(s.comm(comm, where), where);
    const auto in = static_cast<int>(graph.sources().size());
    const auto out = static_cast<int>(graph.destinations().size());
    check_room(maxindegree, in, where, "maxindegree", "sources");
    check_room(maxoutdegree, out, where, "maxoutdegree", "destinations");
    if (in > 0) require_pointer(sources, where, "sources");
    if (out > 0) require_pointer(destinations, where, "destinations");
    // The weights are written where the graph has them and the caller asked for them.
    const auto wants = [](const int* w) { return w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY; };
    const bool in_weights = graph.weighted() && in > 0 && wants(sourceweights);
    const bool out_weights = graph.weighted() && out > 0 && wants(destweights);
    if (in_weights) require_pointer(sourceweights, where, "sourceweights");
    if (out_weights) require_pointer(destweights, where, "destweights");
    std::ranges::copy(graph.sources(), sources);
    std::ranges::copy(graph.destinations(), destinations);
    if (in_weights) std::ranges::copy(graph.source_weights(), sourceweights);
    if (out_weights) std::ranges::copy(graph.destination_weights(), destweights);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
