// twinfab MPI core: Cartesian process topologies (MPI-3.1 §7.5) as pure logic.
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
#pragma once

#include <span>
#include <utility>
#include <vector>

namespace twinfab::mpi {

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

/// MPI_Dims_create: `dims` (ndims entries) with every 0 replaced so that the product
/// of all entries is `nnodes`, the replaced ones as balanced as possible and in
/// non-increasing order; positive entries are kept. Throws MPI_ERR_ARG for nnodes < 1,
/// MPI_ERR_DIMS for a negative entry or when nnodes is not a multiple of the product
/// of the positive entries (or no zero entry is left to make up the difference).
std::vector<int> dims_create(int nnodes, std::span<const int> dims);

}  // namespace twinfab::mpi
