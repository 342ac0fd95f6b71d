#include "mpi/core/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "mpi/core/communicator.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

CartTopology::CartTopology(std::vector<int> dims, std::vector<bool> periods, const char* where)
    : dims_(std::move(dims)), periods_(std::move(periods)) {
  if (dims_.size() != periods_.size())
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "dims and periods differ in length");
  std::int64_t size = 1;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] < 1)
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(dims[{}]={})", where, i, dims_[i]),
                  "every dimension needs at least one process");
    size *= dims_[i];
    if (size > std::numeric_limits<int>::max())
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(dims[{}]={})", where, i, dims_[i]),
                  "the grid has more than 2^31 - 1 processes");
  }
  size_ = static_cast<int>(size);
}

std::vector<int> CartTopology::coords(int rank, const char* where) const {
  if (rank < 0 || rank >= size_)
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(rank={})", where, rank),
                fmt::format("invalid rank; the grid has {} processes", size_));
  std::vector<int> out(dims_.size());
  for (std::size_t i = dims_.size(); i-- > 0;) {
    out[i] = rank % dims_[i];
    rank /= dims_[i];
  }
  return out;
}

int CartTopology::rank(std::span<const int> coords, const char* where) const {
  int rank = 0;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    int c = coords[i];
    if (periods_[i]) {
      c %= dims_[i];
      if (c < 0) c += dims_[i];
    } else if (c < 0 || c >= dims_[i]) {
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(coords[{}]={})", where, i, c),
                  fmt::format("outside the non-periodic dimension {} of size {}", i, dims_[i]));
    }
    rank = rank * dims_[i] + c;  // < size_, which fits
  }
  return rank;
}

std::pair<int, int> CartTopology::shift(int rank, int direction, int disp, const char* where) const {
  if (direction < 0 || direction >= ndims())
    throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(direction={})", where, direction),
                fmt::format("the topology has {} dimensions (0 ... {})", ndims(), ndims() - 1));
  std::vector<int> at = coords(rank, where);
  const auto d = static_cast<std::size_t>(direction);
  const std::int64_t extent = dims_[d];
  // One step of `delta` along the direction: wrapped, or off the border.
  auto neighbour = [&](std::int64_t delta) {
    std::int64_t c = at[d] + delta;
    if (periods_[d]) {
      c %= extent;
      if (c < 0) c += extent;
    } else if (c < 0 || c >= extent) {
      return kProcNull;
    }
    std::vector<int> moved = at;
    moved[d] = static_cast<int>(c);
    return this->rank(moved, where);
  };
  return {neighbour(-static_cast<std::int64_t>(disp)), neighbour(disp)};
}

GraphTopology::GraphTopology(std::vector<int> index, std::vector<int> edges, const char* where)
    : index_(std::move(index)), edges_(std::move(edges)) {
  int previous = 0;
  for (std::size_t i = 0; i < index_.size(); ++i) {
    if (index_[i] < previous)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(index[{}]={})", where, i, index_[i]),
                  i == 0 ? std::string("must not be negative")
                         : fmt::format("index must not decrease (index[{}] is {})", i - 1, previous));
    previous = index_[i];
  }
  if (static_cast<std::size_t>(previous) != edges_.size())
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "edges does not have index[nnodes-1] entries");
  for (std::size_t j = 0; j < edges_.size(); ++j)
    if (edges_[j] < 0 || edges_[j] >= nnodes())
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(edges[{}]={})", where, j, edges_[j]),
                  fmt::format("an edge must lead to a node of the graph (0 ... {})", nnodes() - 1));
}

std::span<const int> GraphTopology::neighbours(int rank, const char* where) const {
  if (rank < 0 || rank >= nnodes())
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(rank={})", where, rank),
                fmt::format("invalid rank; the graph has {} nodes", nnodes()));
  const auto r = static_cast<std::size_t>(rank);
  const auto first = static_cast<std::size_t>(r == 0 ? 0 : index_[r - 1]);
  const auto last = static_cast<std::size_t>(index_[r]);
  return std::span<const int>(edges_).subspan(first, last - first);
}

namespace {

const Topology& topology_of(const Communicator& comm, const char* where) {
  if (comm.topology() == nullptr)
    throw Error(ErrorClass::MPI_ERR_TOPOLOGY, fmt::format("{}(comm)", where),
                "the communicator has no topology (make one with MPI_Cart_create, MPI_Graph_create or "
                "MPI_Dist_graph_create*)");
  return *comm.topology();
}

}  // namespace

Neighbourhood neighbourhood(const Communicator& comm, const char* where) {
  const Topology& topology = topology_of(comm, where);
  Neighbourhood out;
  if (const CartTopology* grid = topology.cart()) {
    out.cartesian = true;
    out.sources.reserve(2 * static_cast<std::size_t>(grid->ndims()));
    for (int d = 0; d < grid->ndims(); ++d) {
      const auto [negative, positive] = grid->shift(comm.rank(), d, 1, where);
      out.sources.push_back(negative);
      out.sources.push_back(positive);
    }
    out.destinations = out.sources;
  } else if (const GraphTopology* graph = topology.graph()) {
    const std::span<const int> neighbours = graph->neighbours(comm.rank(), where);
    out.sources.assign(neighbours.begin(), neighbours.end());
    out.destinations = out.sources;
  } else if (const DistGraphTopology* dist = topology.dist_graph()) {
    out.sources = dist->sources();
    out.destinations = dist->destinations();
  }
  return out;
}

std::pair<int, int> neighbour_counts(const Communicator& comm, const char* where) {
  const Topology& topology = topology_of(comm, where);
  if (const CartTopology* grid = topology.cart()) return {2 * grid->ndims(), 2 * grid->ndims()};
  if (const GraphTopology* graph = topology.graph()) {
    const int n = static_cast<int>(graph->neighbours(comm.rank(), where).size());
    return {n, n};
  }
  const DistGraphTopology& dist = *topology.dist_graph();
  return {static_cast<int>(dist.sources().size()), static_cast<int>(dist.destinations().size())};
}

namespace {

/// The divisors of n (n >= 1), ascending.
std::vector<int> divisors_of(int n) {
  std::vector<int> low, high;
  for (int d = 1; static_cast<std::int64_t>(d) * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

/// The largest r with r^k <= n (n >= 1, k >= 1).
int floor_root(int n, int k) {
  int lo = 1, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    std::int64_t p = 1;
    for (int i = 0; i < k && p <= n; ++i) p *= mid;
    if (p <= n)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// Exact search for k non-increasing factors of n with the smallest spread (largest
/// minus smallest). Among equal spreads MPICH's choice is kept, so that a program gets
/// the grid it gets there: the largest smallest factor, then the largest next-smallest,
/// and so on (MPICH's optbalance keeps the last of its candidates that is at least as
/// good, trying the smallest dimension's divisors in ascending order; its own test,
/// test/mpi/topo/dims5, lists 5040 in 3-d as 21 x 16 x 15, not 20 x 18 x 14).
class BalancedFactors {
 public:
  BalancedFactors(int n, int k) : divisors_(divisors_of(n)) {
    current_.reserve(static_cast<std::size_t>(k));
    search(n, k, n);
  }
  const std::vector<int>& best() const noexcept { return best_; }

 private:
  void search(int rest, int k, int upper) {
    if (k == 0 || rest == 1) {
      if (rest != 1) return;
      const int largest = current_.empty() ? 1 : current_.front();
      const int smallest = k > 0 ? 1 : (current_.empty() ? 1 : current_.back());
      if (largest - smallest > spread_) return;
      std::vector<int> candidate = current_;
      candidate.resize(candidate.size() + static_cast<std::size_t>(k), 1);
      if (largest - smallest < spread_ ||
          std::lexicographical_compare(best_.rbegin(), best_.rend(), candidate.rbegin(), candidate.rend())) {
        spread_ = largest - smallest;
        best_ = std::move(candidate);
      }
      return;
    }
    // The largest of the k factors left is at least rest^(1/k); the smallest at most
    // floor(rest^(1/k)), which bounds the spread any completion can reach.
    const int root = floor_root(rest, k);
    std::int64_t power = 1;
    for (int i = 0; i < k; ++i) power *= root;
    const int least_largest = power == rest ? root : root + 1;
    auto it = std::lower_bound(divisors_.begin(), divisors_.end(), least_largest);
    for (; it != divisors_.end() && *it <= upper; ++it) {
      const int f = *it;
      if (rest % f != 0) continue;
      const int largest = current_.empty() ? f : current_.front();
      if (largest - root > spread_) break;  // larger f only widens it (an equal spread may win a tie)
      current_.push_back(f);
      search(rest / f, k - 1, f);
      current_.pop_back();
    }
  }

  std::vector<int> divisors_;
  std::vector<int> current_;
  std::vector<int> best_;
  int spread_ = std::numeric_limits<int>::max();
};

}  // namespace

std::vector<int> dims_create(int nnodes, std::span<const int> dims) {
  const char* where = "MPI_Dims_create";
  if (nnodes < 1)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(nnodes={})", where, nnodes), "must be at least 1");
  std::int64_t fixed = 1;
  int free = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0)
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(dims[{}]={})", where, i, dims[i]),
                  "must be 0 (to be chosen) or positive (kept)");
    if (dims[i] == 0)
      ++free;
    else if (fixed <= nnodes)  // beyond nnodes it cannot divide it: stop before it overflows
      fixed *= dims[i];
  }
  if (nnodes % fixed != 0 || (free == 0 && fixed != nnodes))
    throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(dims)", where),
                fixed > nnodes ? fmt::format("the positive entries multiply to more than nnodes={}", nnodes)
                               : fmt::format("the positive entries multiply to {}, which {} nnodes={}", fixed,
                                             free == 0 ? "is not" : "does not divide", nnodes));
  std::vector<int> out(dims.begin(), dims.end());
  if (free == 0) return out;
  const std::vector<int> factors = BalancedFactors(static_cast<int>(nnodes / fixed), free).best();
  std::size_t next = 0;
  for (int& d : out)
    if (d == 0) d = factors[next++];
  return out;
}

}  // namespace twinfab::mpi
