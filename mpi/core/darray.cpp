// MPI_Type_create_darray (MPI-3.1 §4.1.4), built from the other constructors as
// MPICH's type_create_darray.c (after ROMIO) builds it: one dimension at a time,
// fastest first, a block distribution as a contiguous or strided run of the local
// elements, cyclic(k) as an hvector of k-element blocks with the remainder block added
// by a struct; then the local part is placed at its start in the global array and
// given the global array's bounds (lower bound 0, its whole extent). The type that
// comes out has the layout of that construction and reports MPI_COMBINER_DARRAY with
// the caller's arguments.
//
// One deliberate difference from MPICH: in a dimension after the fastest, a cyclic
// block of k > 1 elements is made of the type built so far placed k times at the
// distance between consecutive elements of that dimension. MPICH places them at the
// type's own extent, which is that distance only when the faster dimensions are not
// distributed by blocks over several processes (e.g. C order, cyclic(2) rows over
// block-distributed columns gives the wrong rows in MPICH 4.0.2's algorithm).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "mpi/core/datatype.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

constexpr const char* kWhere = "MPI_Type_create_darray";

[[noreturn]] void bad(const std::string& arg, std::int64_t value, const std::string& why,
                      ErrorClass error = ErrorClass::MPI_ERR_ARG) {
  throw Error(error, fmt::format("{}({}={})", kWhere, arg, value), why);
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error(ErrorClass::MPI_ERR_ARG, kWhere, "the global array's size in bytes overflows 64 bits");
  return r;
}

// MPICH's checks, in its order, with its classes.
void check_darray(std::int64_t size, std::int64_t rank, std::span<const std::int64_t> gsizes,
                  std::span<const Datatype::Distribution> distribs, std::span<const std::int64_t> dargs,
                  std::span<const std::int64_t> psizes) {
  using D = Datatype::Distribution;
  if (size <= 0) bad("size", size, "must be positive");
  if (rank < 0 || rank >= size)
    bad("rank", rank, fmt::format("must be between 0 and size - 1 = {}", size - 1), ErrorClass::MPI_ERR_RANK);
  if (gsizes.empty()) bad("ndims", 0, "must be positive", ErrorClass::MPI_ERR_DIMS);
  if (distribs.size() != gsizes.size() || dargs.size() != gsizes.size() || psizes.size() != gsizes.size())
    throw Error(ErrorClass::MPI_ERR_ARG, kWhere, "each array must have ndims entries");
  std::int64_t processes = 1;
  for (std::size_t i = 0; i < gsizes.size(); ++i) {
    const auto at = [i](const char* array) { return fmt::format("{}[{}]", array, i); };
    if (gsizes[i] <= 0) bad(at("array_of_gsizes"), gsizes[i], "must be positive");
    if (psizes[i] <= 0) bad(at("array_of_psizes"), psizes[i], "must be positive");
    if (dargs[i] != Datatype::kDefaultDarg && dargs[i] <= 0)
      bad(at("array_of_dargs"), dargs[i], "must be positive or MPI_DISTRIBUTE_DFLT_DARG");
    if (distribs[i] == D::None && psizes[i] != 1)
      bad(at("array_of_psizes"), psizes[i], "must be 1 in a dimension distributed with MPI_DISTRIBUTE_NONE");
    if (distribs[i] == D::Block && dargs[i] != Datatype::kDefaultDarg && dargs[i] * psizes[i] < gsizes[i])
      bad(at("array_of_dargs"), dargs[i],
          fmt::format("blocks of {} on {} processes do not cover the {} elements of the dimension", dargs[i],
                      psizes[i], gsizes[i]));
    processes = checked_mul(processes, psizes[i]);
  }
  if (processes != size)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(array_of_psizes)", kWhere),
                fmt::format("the process grid has {} processes; size is {}", processes, size));
}

/// One dimension's part: the type of this process's elements along it (made from the
/// type of the faster dimensions), and where its first one is, in elements of the
/// dimension (0 when the construction placed it already).
struct Part {
  DatatypePtr type;
  std::int64_t start;
};

/// `step`: bytes between consecutive elements along the dimension; `fastest`: whether
/// it is the first dimension built (its elements are old_type itself).
Part block(std::int64_t gsize, std::int64_t nprocs, std::int64_t coord, std::int64_t darg, bool fastest,
           std::int64_t step, const DatatypePtr& inner) {
  const std::int64_t blksize = darg == Datatype::kDefaultDarg ? (gsize + nprocs - 1) / nprocs : darg;
  const std::int64_t mine = std::clamp<std::int64_t>(gsize - blksize * coord, 0, blksize);
  DatatypePtr t = fastest ? Datatype::contiguous(mine, inner) : Datatype::hvector(mine, 1, step, inner);
  return {std::move(t), mine == 0 ? 0 : blksize * coord};
}

Part cyclic(std::int64_t gsize, std::int64_t nprocs, std::int64_t coord, std::int64_t darg, bool fastest,
            std::int64_t step, const DatatypePtr& inner) {
  const std::int64_t blksize = darg == Datatype::kDefaultDarg ? 1 : darg;
  const std::int64_t first = coord * blksize;
  std::int64_t mine = 0;
  if (first < gsize) {
    const std::int64_t rest = gsize - first;
    mine = rest / (nprocs * blksize) * blksize + std::min(rest % (nprocs * blksize), blksize);
  }
  const std::int64_t count = mine / blksize;
  const std::int64_t rem = mine % blksize;
  const std::int64_t stride = checked_mul(checked_mul(nprocs, blksize), step);
  // The k elements of a block are `step` apart (see the file's comment).
  const DatatypePtr unit = !fastest && blksize > 1 ? Datatype::create_resized(inner, inner->lb(), step) : inner;
  DatatypePtr t = Datatype::hvector(count, blksize, stride, unit);
  if (rem != 0) {
    const std::int64_t lengths[] = {1, rem};
    const std::int64_t displacements[] = {0, count * stride};
    const DatatypePtr types[] = {t, unit};
    t = Datatype::create_struct(lengths, displacements, types);
  }
  if (fastest) {
    // Placed at its first element, with the bounds of the whole dimension.
    const std::int64_t at[] = {first * step};
    t = Datatype::create_resized(Datatype::hindexed_block(1, at, t), 0, checked_mul(step, gsize));
    return {std::move(t), 0};
  }
  return {std::move(t), mine == 0 ? 0 : first};
}

}  // namespace

DatatypePtr Datatype::darray(std::int64_t size, std::int64_t rank, std::span<const std::int64_t> gsizes,
                             std::span<const Distribution> distribs, std::span<const std::int64_t> dargs,
                             std::span<const std::int64_t> psizes, ArrayOrder order, const DatatypePtr& old_type) {
  if (!old_type) throw Error(ErrorClass::MPI_ERR_TYPE, "MPI_Type_create_darray(oldtype)", "datatype is MPI_DATATYPE_NULL");
  check_darray(size, rank, gsizes, distribs, dargs, psizes);
  const std::size_t ndims = gsizes.size();
  // The process's coordinates in the grid, row-major as MPI_Cart_create numbers them.
  std::vector<std::int64_t> coords(ndims);
  std::int64_t procs = size, r = rank;
  for (std::size_t i = 0; i < ndims; ++i) {
    procs /= psizes[i];
    coords[i] = r / procs;
    r %= procs;
  }
  // Fastest dimension first: the last in C order, the first in Fortran order.
  std::vector<std::size_t> dims(ndims);
  for (std::size_t i = 0; i < ndims; ++i) dims[i] = order == ArrayOrder::C ? ndims - 1 - i : i;

  DatatypePtr t = old_type;
  std::int64_t step = old_type->extent();  // bytes between consecutive elements of the dimension
  std::int64_t start = 0;                  // bytes from the array's start to the process's first element
  for (std::size_t k = 0; k < ndims; ++k) {
    const std::size_t d = dims[k];
    Part part{nullptr, 0};
    switch (distribs[d]) {
      case Distribution::Block: part = block(gsizes[d], psizes[d], coords[d], dargs[d], k == 0, step, t); break;
      case Distribution::Cyclic: part = cyclic(gsizes[d], psizes[d], coords[d], dargs[d], k == 0, step, t); break;
      case Distribution::None: part = block(gsizes[d], 1, 0, kDefaultDarg, k == 0, step, t); break;
    }
    t = std::move(part.type);
    start += checked_mul(part.start, step);
    step = checked_mul(step, gsizes[d]);
  }
  // step is now the whole array's extent.
  const std::int64_t at[] = {start};
  const DatatypePtr built = create_resized(hindexed_block(1, at, t), 0, step);

  std::vector<std::int64_t> integers{size, rank, static_cast<std::int64_t>(ndims)};
  integers.insert(integers.end(), gsizes.begin(), gsizes.end());
  for (Distribution d : distribs) integers.push_back(static_cast<std::int64_t>(d));
  integers.insert(integers.end(), dargs.begin(), dargs.end());
  integers.insert(integers.end(), psizes.begin(), psizes.end());
  integers.push_back(static_cast<std::int64_t>(order));

  DatatypePtr result(new Datatype(*built));
  result->combiner_ = Combiner::Darray;
  result->committed_ = false;
  result->name_.clear();
  result->contents_ = std::make_shared<const Contents>(Contents{std::move(integers), {}, {old_type}});
  result->layout_source_ = built;
  return result;
}

}  // namespace twinfab::mpi
