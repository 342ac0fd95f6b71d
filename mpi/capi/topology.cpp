// MPI C API: Cartesian topologies (MPI_Dims_create, MPI_Cart_*, MPI_Topo_test). The
// grid logic is mpi/core/topology.hpp; the communicators come from Context.
#include <fmt/format.h>

#include <algorithm>
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
    *status = c.cart() != nullptr ? MPI_CART : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
