// twinfab MPI core: process topologies (MPI-3.1 §7) as pure logic: Cartesian grids,
// graphs (MPI_Graph_create) and distributed graphs (MPI_Dist_graph_create*), and the
// neighbourhoods the neighbourhood collectives (§7.6) exchange with.
//
// A CartTopology is the grid a Cartesian communicator carries: the number of processes
// in each dimension and whether the dimension wraps around. Ranks are laid out in
// row-major order (the last dimension varies fastest), as MPI_Cart_create requires:
// rank = ((c0 * d1 + c1) * d2 + c2) ... Immutable once built; communicators share it
// (MPI_Comm_dup keeps the topology).
//
// dims_create() is MPI_Dims_create: it fills the zero entries of `dims` with a
// factorization of the remaining node count whose factors are as close to each other
// as possible (smallest difference between the largest and the smallest, found by an
// exact search over the divisors), in non-increasing order.
//
// Errors are mpi::Error naming the function and argument: MPI_ERR_DIMS for a bad
// dimension count or size, MPI_ERR_ARG for a coordinate outside a non-periodic
// dimension, MPI_ERR_RANK for a rank outside the grid.
//
// A communicator carries at most one Topology (null when it has none: a communicator
// that is not made by a topology call pays one null pointer). The graph of
// MPI_Graph_create is the whole graph, on every rank, since MPI_Graph_get and
// MPI_Graph_neighbors ask about any node; a distributed graph is only this rank's
// in- and out-edges, as MPI-3.1 §7.5.4 intends.
#pragma once

#include <span>
#include <utility>
#include <variant>
#include <vector>

namespace twinfab::mpi {

class Communicator;  // communicator.hpp

class CartTopology {
 public:
  /// `dims[i]` processes along dimension i (each >= 1, at most 2^31 - 1 in all),
  /// `periods[i]` whether it wraps; the two have the same length (the caller's
  /// ndims >= 0). Throws MPI_ERR_DIMS naming `where`'s dims[i] otherwise.
  CartTopology(std::vector<int> dims, std::vector<bool> periods, const char* where);

  int ndims() const noexcept { return static_cast<int>(dims_.size()); }
  const std::vector<int>& dims() const noexcept { return dims_; }
  const std::vector<bool>& periods() const noexcept { return periods_; }
  /// Processes in the grid: the product of dims (1 for zero dimensions).
  int size() const noexcept { return size_; }

  /// MPI_Cart_coords: the coordinates of `rank` (in [0, size()), else MPI_ERR_RANK).
  std::vector<int> coords(int rank, const char* where) const;
  /// MPI_Cart_rank: coordinates of periodic dimensions wrap (any integer); outside
  /// [0, dims[i]) in a non-periodic one is MPI_ERR_ARG. `coords` has ndims() entries.
  int rank(std::span<const int> coords, const char* where) const;
  /// MPI_Cart_shift from `rank`: (source, dest) = the ranks `disp` steps back and
  /// forward along `direction` (in [0, ndims()), else MPI_ERR_DIMS); kProcNull where
  /// that leaves a non-periodic dimension.
  std::pair<int, int> shift(int rank, int direction, int disp, const char* where) const;

 private:
  std::vector<int> dims_;
  std::vector<bool> periods_;
  int size_ = 1;
};

/// MPI_Graph_create's graph (MPI-3.1 §7.5.3): node i's neighbours are
/// edges[index[i-1] .. index[i]) (from 0 for node 0), in that order. Self-loops and
/// repeated edges are allowed, as MPI allows them.
class GraphTopology {
 public:
  /// `index` has nnodes entries, `edges` index.back() (none when nnodes is 0). Throws
  /// MPI_ERR_ARG naming `where`'s index[i] when index is negative or decreasing, and
  /// MPI_ERR_RANK naming edges[j] for an edge to a node outside [0, nnodes).
  GraphTopology(std::vector<int> index, std::vector<int> edges, const char* where);

  int nnodes() const noexcept { return static_cast<int>(index_.size()); }
  int nedges() const noexcept { return static_cast<int>(edges_.size()); }
  const std::vector<int>& index() const noexcept { return index_; }
  const std::vector<int>& edges() const noexcept { return edges_; }
  /// MPI_Graph_neighbors: the neighbours of `rank` (in [0, nnodes()), else
  /// MPI_ERR_RANK), in edge order.
  std::span<const int> neighbours(int rank, const char* where) const;

 private:
  std::vector<int> index_;
  std::vector<int> edges_;
};

/// One rank's part of a distributed graph (MPI-3.1 §7.5.4): its in-neighbours
/// (sources) and out-neighbours (destinations), in the order the neighbourhood
/// collectives use, with their weights when the graph is weighted (empty otherwise).
class DistGraphTopology {
 public:
  DistGraphTopology(std::vector<int> sources, std::vector<int> source_weights, std::vector<int> destinations,
                    std::vector<int> destination_weights, bool weighted) noexcept
      : sources_(std::move(sources)), source_weights_(std::move(source_weights)),
        destinations_(std::move(destinations)), destination_weights_(std::move(destination_weights)),
        weighted_(weighted) {}

  const std::vector<int>& sources() const noexcept { return sources_; }
  const std::vector<int>& destinations() const noexcept { return destinations_; }
  /// One per source / destination when weighted(), else empty.
  const std::vector<int>& source_weights() const noexcept { return source_weights_; }
  const std::vector<int>& destination_weights() const noexcept { return destination_weights_; }
  /// Whether this rank made the graph with weights (not MPI_UNWEIGHTED), as
  /// MPI_Dist_graph_neighbors_count reports it.
  bool weighted() const noexcept { return weighted_; }

 private:
  std::vector<int> sources_;
  std::vector<int> source_weights_;
  std::vector<int> destinations_;
  std::vector<int> destination_weights_;
  bool weighted_;
};

/// The topology a communicator carries: one of the three kinds. Immutable; shared by a
/// communicator and its duplicates.
class Topology {
 public:
  explicit Topology(CartTopology cart) : kind_(std::move(cart)) {}
  explicit Topology(GraphTopology graph) : kind_(std::move(graph)) {}
  explicit Topology(DistGraphTopology dist_graph) : kind_(std::move(dist_graph)) {}

  const CartTopology* cart() const noexcept { return std::get_if<CartTopology>(&kind_); }
  const GraphTopology* graph() const noexcept { return std::get_if<GraphTopology>(&kind_); }
  const DistGraphTopology* dist_graph() const noexcept { return std::get_if<DistGraphTopology>(&kind_); }

 private:
  std::variant<CartTopology, GraphTopology, DistGraphTopology> kind_;
};

/// Where a rank's neighbourhood collectives receive from (sources, one receive block
/// each, in order) and send to (destinations, one send block each), MPI-3.1 §7.6:
///  - Cartesian: for each dimension, the neighbour in the negative direction, then the
///    one in the positive direction (MPI_Cart_shift by 1); kProcNull off the border of
///    a non-periodic dimension, whose blocks are kept but neither sent nor received;
///    sources and destinations are the same list;
///  - graph: MPI_Graph_neighbors of the rank, as sources and as destinations;
///  - distributed graph: its sources and destinations.
struct Neighbourhood {
  std::vector<int> sources;
  std::vector<int> destinations;
  /// Cartesian: a block sent towards the negative direction is the one the receiver
  /// gets from its positive neighbour, which may be the same rank as its negative one
  /// (a periodic dimension of 1 or 2 processes). The collectives tell the two
  /// directions apart by step (cartesian_send_step / cartesian_recv_step).
  bool cartesian = false;
};
/// The step (0 or 1) of the message sent to destination slot `i` of a Cartesian
/// neighbourhood: its direction (0 negative, 1 positive).
constexpr int cartesian_send_step(std::size_t i) noexcept { return static_cast<int>(i % 2); }
/// The step of the message received in source slot `j`: the receiver's negative
/// neighbour sent it in the positive direction, and the other way round.
constexpr int cartesian_recv_step(std::size_t j) noexcept { return 1 - static_cast<int>(j % 2); }

/// The neighbourhood of the calling rank in `comm`'s topology; MPI_ERR_TOPOLOGY
/// ("<where>(comm)") when `comm` has none.
Neighbourhood neighbourhood(const Communicator& comm, const char* where);
/// Its (sources, destinations) counts, without building the lists.
std::pair<int, int> neighbour_counts(const Communicator& comm, const char* where);

/// MPI_Dims_create: `dims` (ndims entries) with every 0 replaced so that the product
/// of all entries is `nnodes`, the replaced ones as balanced as possible and in
/// non-increasing order; positive entries are kept. Throws MPI_ERR_ARG for nnodes < 1,
/// MPI_ERR_DIMS for a negative entry or when nnodes is not a multiple of the product
/// of the positive entries (or no zero entry is left to make up the difference).
std::vector<int> dims_create(int nnodes, std::span<const int> dims);

}  // namespace twinfab::mpi
