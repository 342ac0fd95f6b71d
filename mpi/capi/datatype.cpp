// MPI C API: derived datatypes, their envelope and contents, pack and unpack.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "mpi/capi/attributes.hpp"
#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

// mpi.h's combiners and orders are mpi/core's values, passed through unchanged.
static_assert(MPI_COMBINER_NAMED == static_cast<int>(Combiner::Named));
static_assert(MPI_COMBINER_DUP == static_cast<int>(Combiner::Dup));
static_assert(MPI_COMBINER_CONTIGUOUS == static_cast<int>(Combiner::Contiguous));
static_assert(MPI_COMBINER_VECTOR == static_cast<int>(Combiner::Vector));
static_assert(MPI_COMBINER_HVECTOR == static_cast<int>(Combiner::Hvector));
static_assert(MPI_COMBINER_INDEXED == static_cast<int>(Combiner::Indexed));
static_assert(MPI_COMBINER_HINDEXED == static_cast<int>(Combiner::Hindexed));
static_assert(MPI_COMBINER_INDEXED_BLOCK == static_cast<int>(Combiner::IndexedBlock));
static_assert(MPI_COMBINER_STRUCT == static_cast<int>(Combiner::Struct));
static_assert(MPI_COMBINER_SUBARRAY == static_cast<int>(Combiner::Subarray));
static_assert(MPI_COMBINER_RESIZED == static_cast<int>(Combiner::Resized));
static_assert(MPI_COMBINER_HINDEXED_BLOCK == static_cast<int>(Combiner::HindexedBlock));
static_assert(MPI_ORDER_C == static_cast<int>(ArrayOrder::C));
static_assert(MPI_ORDER_FORTRAN == static_cast<int>(ArrayOrder::Fortran));
static_assert(MPI_COMBINER_DARRAY == static_cast<int>(Combiner::Darray));
static_assert(MPI_DISTRIBUTE_BLOCK == static_cast<int>(Datatype::Distribution::Block));
static_assert(MPI_DISTRIBUTE_CYCLIC == static_cast<int>(Datatype::Distribution::Cyclic));
static_assert(MPI_DISTRIBUTE_NONE == static_cast<int>(Datatype::Distribution::None));
static_assert(MPI_DISTRIBUTE_DFLT_DARG == Datatype::kDefaultDarg);

namespace {

/// A buffer MPI_Pack or MPI_Unpack reads or writes (bytes > 0): MPI_ERR_ARG for a
/// null pointer (MPICH's class), MPI_ERR_BUFFER for MPI_IN_PLACE.
void require_data(const void* buffer, const char* where, const char* arg) {
  reject_in_place(buffer, where, arg);
  require_pointer(buffer, where, arg);
}

/// The same for the user's side of MPI_Pack/MPI_Unpack, which may be MPI_BOTTOM for
/// a type built from absolute addresses (Datatype::may_be_absolute).
void require_user_data(const void* buffer, const Datatype& type, const char* where, const char* arg) {
  reject_in_place(buffer, where, arg);
  if (!type.may_be_absolute()) require_pointer(buffer, where, arg);
}

/// MPI_ERR_ARG for a negative buffer size (outsize, insize).
void require_size(std::int64_t size, const char* where, const char* arg) {
  if (size < 0)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}={})", where, arg, size), "negative buffer size");
}

void check_count(std::int64_t count, const char* where, const char* arg = "count") {
  if (count < 0)
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}({}={})", where, arg, count), "must not be negative");
}

/// MPI_Type_get_extent and MPI_Type_get_true_extent, and their _x forms (Bound is
/// MPI_Aint or MPI_Count): a pair of a type's bounds.
template <class Bound>
int get_bounds(const char* where, MPI_Datatype datatype, Bound* lb, const char* lb_name, Bound* extent,
               const char* extent_name, std::int64_t (Datatype::*get_lb)() const noexcept,
               std::int64_t (Datatype::*get_extent)() const noexcept) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(lb, where, lb_name);
    require_pointer(extent, where, extent_name);
    *lb = static_cast<Bound>(((*t).*get_lb)());
    *extent = static_cast<Bound>(((*t).*get_extent)());
    return MPI_SUCCESS;
  });
}

/// MPI_ERR_ARG for a negative block length (blocklength of the vector and block constructors).
void check_blocklength(std::int64_t blocklength, const char* where) {
  if (blocklength < 0)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(blocklength={})", where, blocklength),
                "must not be negative");
}

/// The block lengths and displacements of an indexed or struct constructor: the count
/// checked, the arrays required when it is positive, both widened to 64 bits.
struct BlockArrays {
  std::vector<std::int64_t> lengths;
  std::vector<std::int64_t> displacements;
};
template <class Length, class Displacement>
BlockArrays block_arrays(const char* where, std::int64_t count, const Length lengths[],
                         const Displacement displacements[]) {
  check_count(count, where);
  if (count > 0) {
    require_pointer(lengths, where, "array_of_blocklengths");
    require_pointer(displacements, where, "array_of_displacements");
  }
  const auto n = static_cast<std::size_t>(count);
  return {{lengths, lengths + n}, {displacements, displacements + n}};
}

/// MPI_Type_create_indexed_block and MPI_Type_create_hindexed_block (Displacement int
/// or MPI_Aint): the checks they share, then `make` builds the type.
template <class Displacement, class Make>
int block_indexed(const char* where, std::int64_t count, std::int64_t blocklength, const Displacement displacements[],
                  MPI_Datatype oldtype, MPI_Datatype* newtype, Make&& make) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, where, "oldtype");
    check_count(count, where);
    check_blocklength(blocklength, where);
    if (count > 0) require_pointer(displacements, where, "array_of_displacements");
    require_pointer(newtype, where, "newtype");
    const std::vector<std::int64_t> wide(displacements, displacements + static_cast<std::size_t>(count));
    *newtype = s.add_type(make(blocklength, wide, old));
    return MPI_SUCCESS;
  });
}

/// The order argument of MPI_Type_create_subarray and MPI_Type_create_darray.
ArrayOrder array_order(int order, const char* where) {
  if (order == MPI_ORDER_C) return ArrayOrder::C;
  if (order == MPI_ORDER_FORTRAN) return ArrayOrder::Fortran;
  throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(order={})", where, order),
              "must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
}

/// The constructors' bodies, shared by MPI_X and its large-count MPI_X_c (MPI-4.0
/// §5.2.2): Count is int or MPI_Count, Length and Disp the element types of the
/// arrays (int, MPI_Aint or MPI_Count); the core takes 64-bit values.
int type_contiguous(const char* where, std::int64_t count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, where, "oldtype");
    check_count(count, where);
    require_pointer(newtype, where, "newtype");
    *newtype = s.add_type(Datatype::contiguous(count, old));
    return MPI_SUCCESS;
  });
}

/// MPI_Type_vector (stride in elements) and MPI_Type_create_hvector (in bytes).
int type_vector(const char* where, bool bytes, std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, where, "oldtype");
    check_count(count, where);
    check_blocklength(blocklength, where);
    require_pointer(newtype, where, "newtype");
    *newtype = s.add_type(bytes ? Datatype::hvector(count, blocklength, stride, old)
                                : Datatype::vector(count, blocklength, stride, old));
    return MPI_SUCCESS;
  });
}

/// MPI_Type_indexed (displacements in elements) and MPI_Type_create_hindexed (bytes).
template <class Length, class Disp>
int type_indexed(const char* where, bool bytes, std::int64_t count, const Length lengths[], const Disp displacements[],
                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, where, "oldtype");
    const BlockArrays blocks = block_arrays(where, count, lengths, displacements);
    require_pointer(newtype, where, "newtype");
    *newtype = s.add_type(bytes ? Datatype::hindexed(blocks.lengths, blocks.displacements, old)
                                : Datatype::indexed(blocks.lengths, blocks.displacements, old));
    return MPI_SUCCESS;
  });
}

template <class Extent>
int type_subarray(const char* where, int ndims, const Extent array_of_sizes[], const Extent array_of_subsizes[],
                  const Extent array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, where, "oldtype");
    if (ndims <= 0)  // MPICH's class
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(ndims={})", where, ndims), "must be positive");
    require_pointer(array_of_sizes, where, "array_of_sizes");
    require_pointer(array_of_subsizes, where, "array_of_subsizes");
    require_pointer(array_of_starts, where, "array_of_starts");
    const ArrayOrder storage = array_order(order, where);
    require_pointer(newtype, where, "newtype");
    const auto n = static_cast<std::size_t>(ndims);
    const std::vector<std::int64_t> sizes(array_of_sizes, array_of_sizes + n);
    const std::vector<std::int64_t> subsizes(array_of_subsizes, array_of_subsizes + n);
    const std::vector<std::int64_t> starts(array_of_starts, array_of_starts + n);
    *newtype = s.add_type(Datatype::subarray(sizes, subsizes, starts, storage, old));  // checks the ranges
    return MPI_SUCCESS;
  });
}

/// An entry of array_of_distribs.
Datatype::Distribution distribution(int value, std::size_t i, const char* where) {
  switch (value) {
    case MPI_DISTRIBUTE_BLOCK: return Datatype::Distribution::Block;
    case MPI_DISTRIBUTE_CYCLIC: return Datatype::Distribution::Cyclic;
    case MPI_DISTRIBUTE_NONE: return Datatype::Distribution::None;
    default:
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(array_of_distribs[{}]={})", where, i, value),
                  "must be MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE");
  }
}

template <class Extent>
int type_darray(const char* where, int size, int rank, int ndims, const Extent array_of_gsizes[],
                const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order,
                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, where, "oldtype");
    if (ndims <= 0)  // MPICH's class
      throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(ndims={})", where, ndims), "must be positive");
    require_pointer(array_of_gsizes, where, "array_of_gsizes");
    require_pointer(array_of_distribs, where, "array_of_distribs");
    require_pointer(array_of_dargs, where, "array_of_dargs");
    require_pointer(array_of_psizes, where, "array_of_psizes");
    const ArrayOrder storage = array_order(order, where);
    require_pointer(newtype, where, "newtype");
    const auto n = static_cast<std::size_t>(ndims);
    std::vector<Datatype::Distribution> distribs;
    for (std::size_t i = 0; i < n; ++i) distribs.push_back(distribution(array_of_distribs[i], i, where));
    const std::vector<std::int64_t> gsizes(array_of_gsizes, array_of_gsizes + n);
    const std::vector<std::int64_t> dargs(array_of_dargs, array_of_dargs + n);
    const std::vector<std::int64_t> psizes(array_of_psizes, array_of_psizes + n);
    // The core checks the rest (sizes, grid, rank, block sizes).
    *newtype = s.add_type(Datatype::darray(size, rank, gsizes, distribs, dargs, psizes, storage, old));
    return MPI_SUCCESS;
  });
}

template <class Length, class Disp>
int type_struct(const char* where, std::int64_t count, const Length array_of_blocklengths[],
                const Disp array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const BlockArrays blocks = block_arrays(where, count, array_of_blocklengths, array_of_displacements);
    if (count > 0) require_pointer(array_of_types, where, "array_of_types");
    require_pointer(newtype, where, "newtype");
    const auto n = static_cast<std::size_t>(count);
    std::vector<DatatypePtr> types;
    types.reserve(n);
    for (std::size_t i = 0; i < n; ++i) types.push_back(s.type(array_of_types[i], where, "array_of_types"));
    *newtype = s.add_type(Datatype::create_struct(blocks.lengths, blocks.displacements, types));
    return MPI_SUCCESS;
  });
}

int get_address(const char* where, const void* location, MPI_Aint* address) {
  return entry(where, MPI_COMM_WORLD, [&](RankState&) {
    require_pointer(address, where, "address");
    *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
    return MPI_SUCCESS;
  });
}

/// MPI_Pack, MPI_Unpack and MPI_Pack_size, and their MPI_X_c forms (Size int or
/// MPI_Count: the type of the buffer sizes and positions).
template <class Size>
int pack_into(const char* where, const void* inbuf, std::int64_t incount, MPI_Datatype datatype, void* outbuf,
              Size outsize, Size* position, MPI_Comm comm) {
  return entry(where, comm, [&](RankState& s) {
    s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(position, where, "position");
    const std::int64_t bytes = packed_size(incount, *t, where);
    require_size(outsize, where, "outsize");
    if (*position < 0 || *position > outsize || bytes > outsize - *position)
      throw Error(ErrorClass::MPI_ERR_TRUNCATE, fmt::format("{}(outsize={}, position={})", where, outsize, *position),
                  fmt::format("{} packed bytes do not fit in the output buffer", bytes));
    if (bytes == 0) return MPI_SUCCESS;
    require_user_data(inbuf, *t, where, "inbuf");
    require_data(outbuf, where, "outbuf");
    auto* out = static_cast<std::byte*>(outbuf) + *position;
    pack(inbuf, incount, *t, 0, std::span<std::byte>(out, static_cast<std::size_t>(bytes)), where);
    *position += static_cast<Size>(bytes);
    return MPI_SUCCESS;
  });
}

template <class Size>
int unpack_from(const char* where, const void* inbuf, Size insize, Size* position, void* outbuf, std::int64_t outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
  return entry(where, comm, [&](RankState& s) {
    s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(position, where, "position");
    const std::int64_t bytes = packed_size(outcount, *t, where);
    require_size(insize, where, "insize");
    if (*position < 0 || *position > insize || bytes > insize - *position)
      throw Error(
          ErrorClass::MPI_ERR_TRUNCATE, fmt::format("{}(insize={}, position={})", where, insize, *position),
          fmt::format("{} elements need {} packed bytes; the input has {} left", outcount, bytes, insize - *position));
    if (bytes == 0) return MPI_SUCCESS;
    require_data(inbuf, where, "inbuf");
    require_user_data(outbuf, *t, where, "outbuf");
    const auto* in = static_cast<const std::byte*>(inbuf) + *position;
    unpack(std::span<const std::byte>(in, static_cast<std::size_t>(bytes)), outbuf, outcount, *t, 0, where);
    *position += static_cast<Size>(bytes);
    return MPI_SUCCESS;
  });
}

template <class Size>
int pack_size(const char* where, std::int64_t incount, MPI_Datatype datatype, MPI_Comm comm, Size* size) {
  return entry(where, comm, [&](RankState& s) {
    s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(size, where, "size");
    const std::int64_t bytes = packed_size(incount, *t, where);
    if (bytes > std::numeric_limits<Size>::max())
      throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(incount={})", where, incount),
                  "the packed size does not fit in an int (MPI_Pack_size_c gives it)");
    *size = static_cast<Size>(bytes);
    return MPI_SUCCESS;
  });
}

/// What an MPI_X_c constructor returns: its new type marked as built with large counts
/// (Datatype::large_count_constructor), for MPI_Type_get_envelope_c / _contents_c.
int marked_large(int rc, const MPI_Datatype* newtype) {
  if (rc == MPI_SUCCESS) current_state()->type(*newtype, "MPI_Type_*_c")->mark_large_count_constructor();
  return rc;
}

/// A type's constructor arguments as MPI_Type_get_envelope_c and MPI_Type_get_contents_c
/// give them (MPI-4.0 §5.1.13): an int constructor's as MPI_Type_get_contents does, no
/// large counts; a large-count constructor's MPI_Count arguments (counts, block
/// lengths, strides, displacements, bounds, array sizes) as large counts, in argument
/// order, and only its other integers (ndims, order, distributions, ...) as integers.
struct LargeContents {
  std::vector<std::int64_t> integers, addresses, large_counts;
};
LargeContents large_contents(const Datatype& t) {
  const Contents& c = *t.contents();
  if (!t.large_count_constructor()) return {c.integers, c.addresses, {}};
  const auto& in = c.integers;
  switch (t.combiner()) {
    case Combiner::Subarray:  // ndims, sizes, subsizes, starts, order
      return {{in.front(), in.back()}, {}, {in.begin() + 1, in.end() - 1}};
    case Combiner::Darray: {  // size, rank, ndims, gsizes[ndims], distribs, dargs, psizes, order
      const auto gsizes = in.begin() + 3, rest = gsizes + in[2];
      std::vector<std::int64_t> integers(in.begin(), gsizes);
      integers.insert(integers.end(), rest, in.end());
      return {std::move(integers), {}, {gsizes, rest}};
    }
    default: {  // every argument is an MPI_Count: the integers, then the addresses
      std::vector<std::int64_t> large = in;
      large.insert(large.end(), c.addresses.begin(), c.addresses.end());
      return {{}, {}, std::move(large)};
    }
  }
}

/// An output array of MPI_Type_get_contents: MPI_ERR_ARG when it has fewer than the
/// `needed` entries (max_integers, ...) or is null while some are needed.
template <class Max>
void require_room(Max max, std::size_t needed, const void* array, const char* max_name, const char* array_name,
                  const char* where = "MPI_Type_get_contents") {
  if (max < 0 || static_cast<std::size_t>(max) < needed)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}={})", where, max_name, max),
                fmt::format("the datatype has {} such arguments (MPI_Type_get_envelope counts them)", needed));
  if (needed > 0) require_pointer(array, where, array_name);
}

/// The contents of a derived type; MPI_ERR_ARG for a predefined one (MPI_Type_get_contents
/// and its _c form).
const Contents& derived_contents(const Datatype& t, const char* where) {
  if (t.contents() == nullptr)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(datatype={})", where, t.get_name()),
                "a predefined datatype (combiner MPI_COMBINER_NAMED) has no contents");
  return *t.contents();
}

MPI_Datatype contents_handle(RankState& s, const DatatypePtr& type);

/// Writes the integers (which fit in an int: checked by the caller), addresses and input
/// types of MPI_Type_get_contents(_c) into the program's arrays, once their room was
/// checked.
void write_contents(RankState& s, const std::vector<std::int64_t>& integers, const std::vector<std::int64_t>& addresses,
                    const std::vector<DatatypePtr>& types, int array_of_integers[], MPI_Aint array_of_addresses[],
                    MPI_Datatype array_of_datatypes[]) {
  std::ranges::transform(integers, array_of_integers, [](std::int64_t v) { return static_cast<int>(v); });
  std::ranges::transform(addresses, array_of_addresses, [](std::int64_t v) { return static_cast<MPI_Aint>(v); });
  std::ranges::transform(types, array_of_datatypes,
                         [&](const DatatypePtr& input) { return contents_handle(s, input); });
}

/// The handle MPI_Type_get_contents returns for an input type: a predefined type's
/// own, else a new handle the caller frees, so that freeing it leaves the type it was
/// made from, and the caller's own handles to the input, alone (as in MPICH).
MPI_Datatype contents_handle(RankState& s, const DatatypePtr& type) {
  if (type->is_predefined())
    return static_cast<MPI_Datatype>(kBasicTypeBase + static_cast<std::uint32_t>(*type->basic_kind()));
  return s.add_type(type);
}

/// MPI_Type_size_x and its MPI-4.0 twin MPI_Type_size_c.
int large_size(const char* where, MPI_Datatype datatype, MPI_Count* size) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(size, where, "size");
    *size = static_cast<MPI_Count>(t->size());
    return MPI_SUCCESS;
  });
}

int type_resized(const char* where, MPI_Datatype oldtype, std::int64_t lb, std::int64_t extent, MPI_Datatype* newtype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, where, "oldtype");
    require_pointer(newtype, where, "newtype");
    *newtype = s.add_type(Datatype::create_resized(old, lb, extent));
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return type_contiguous("MPI_Type_contiguous", count, oldtype, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return type_vector("MPI_Type_vector", false, count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return type_indexed("MPI_Type_indexed", false, count, array_of_blocklengths, array_of_displacements, oldtype,
                      newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return type_vector("MPI_Type_create_hvector", true, count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return type_indexed("MPI_Type_create_hindexed", true, count, array_of_blocklengths, array_of_displacements, oldtype,
                      newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  return block_indexed("MPI_Type_create_indexed_block", count, blocklength, array_of_displacements, oldtype, newtype,
                       &Datatype::indexed_block);
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return block_indexed("MPI_Type_create_hindexed_block", count, blocklength, array_of_displacements, oldtype, newtype,
                       &Datatype::hindexed_block);
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return type_subarray("MPI_Type_create_subarray", ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                       oldtype, newtype);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                           const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype* newtype) {
  return type_darray("MPI_Type_create_darray", size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                     array_of_psizes, order, oldtype, newtype);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return type_struct("MPI_Type_create_struct", count, array_of_blocklengths, array_of_displacements, array_of_types,
                     newtype);
}

int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return type_struct("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements, array_of_types,
                     newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  return type_resized("MPI_Type_create_resized", oldtype, lb, extent, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return entry("MPI_Type_dup", MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& old = s.type(oldtype, "MPI_Type_dup", "oldtype");
    require_pointer(newtype, "MPI_Type_dup", "newtype");
    MPI_Datatype dup = s.add_type(Datatype::dup(old));
    // MPI-3.1 §6.7.4: the attributes' copy callbacks run; when one fails the call
    // fails as a whole and the new handle goes again (copy_attributes has deleted the
    // copies already made).
    try {
      copy_attributes(s, Object::type(oldtype), Object::type(dup), "MPI_Type_dup");
    } catch (const std::exception&) {
      s.free_type(dup, "MPI_Type_dup");
      throw;
    }
    *newtype = dup;
    return MPI_SUCCESS;
  });
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return get_bounds("MPI_Type_get_true_extent", datatype, true_lb, "true_lb", true_extent, "true_extent",
                    &Datatype::true_lb, &Datatype::true_extent);
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  return get_address("MPI_Get_address", location, address);
}

int MPI_Address(void* location, MPI_Aint* address) { return get_address("MPI_Address", location, address); }

// Unsigned arithmetic: the sum or difference of two addresses may leave the range of a
// signed MPI_Aint in between, which is not an error for an address.
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(disp));
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) - static_cast<std::uintptr_t>(addr2));
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  return entry("MPI_Type_commit", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(datatype, "MPI_Type_commit", "datatype");
    s.type(*datatype, "MPI_Type_commit")->commit();
    return MPI_SUCCESS;
  });
}

int MPI_Type_free(MPI_Datatype* datatype) {
  return entry("MPI_Type_free", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(datatype, "MPI_Type_free", "datatype");
    // The delete callbacks run while the handle is still valid (they may use it); one
    // that fails keeps the type. Predefined types are refused by free_type with their
    // attributes untouched.
    if (!s.type(*datatype, "MPI_Type_free")->is_predefined())
      delete_all_attributes(s, Object::type(*datatype), "MPI_Type_free");
    s.free_type(*datatype, "MPI_Type_free");
    return MPI_SUCCESS;
  });
}

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  return entry("MPI_Type_size", MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, "MPI_Type_size");
    require_pointer(size, "MPI_Type_size", "size");
    *size = t->size() > 0x7fffffff ? MPI_UNDEFINED : static_cast<int>(t->size());
    return MPI_SUCCESS;
  });
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return get_bounds("MPI_Type_get_extent", datatype, lb, "lb", extent, "extent", &Datatype::lb, &Datatype::extent);
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) { return large_size("MPI_Type_size_x", datatype, size); }

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return get_bounds("MPI_Type_get_extent_x", datatype, lb, "lb", extent, "extent", &Datatype::lb, &Datatype::extent);
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return get_bounds("MPI_Type_get_true_extent_x", datatype, true_lb, "true_lb", true_extent, "true_extent",
                    &Datatype::true_lb, &Datatype::true_extent);
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                          int* combiner) {
  const char* where = "MPI_Type_get_envelope";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(num_integers, where, "num_integers");
    require_pointer(num_addresses, where, "num_addresses");
    require_pointer(num_datatypes, where, "num_datatypes");
    require_pointer(combiner, where, "combiner");
    const Contents* contents = t->contents();
    *num_integers = contents ? static_cast<int>(contents->integers.size()) : 0;
    *num_addresses = contents ? static_cast<int>(contents->addresses.size()) : 0;
    *num_datatypes = contents ? static_cast<int>(contents->types.size()) : 0;
    *combiner = static_cast<int>(t->combiner());
    return MPI_SUCCESS;
  });
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                          int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  const char* where = "MPI_Type_get_contents";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    const Contents* contents = &derived_contents(*t, where);
    require_room(max_integers, contents->integers.size(), array_of_integers, "max_integers", "array_of_integers");
    require_room(max_addresses, contents->addresses.size(), array_of_addresses, "max_addresses",
                 "array_of_addresses");
    require_room(max_datatypes, contents->types.size(), array_of_datatypes, "max_datatypes", "array_of_datatypes");
    // The integers of an int constructor fit; those of a large-count one (MPI_X_c) may
    // not: MPI_Type_get_contents_c returns them.
    for (const std::int64_t v : contents->integers)
      if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype={})", where, t->get_name()),
                    fmt::format("an argument of its constructor ({}) does not fit in an int: the type was built by a "
                                "large-count MPI_X_c call",
                                v));
    write_contents(s, contents->integers, contents->addresses, contents->types, array_of_integers, array_of_addresses,
                   array_of_datatypes);
    return MPI_SUCCESS;
  });
}

int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  return entry("MPI_Type_get_name", MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, "MPI_Type_get_name");
    require_pointer(type_name, "MPI_Type_get_name", "type_name");
    require_pointer(resultlen, "MPI_Type_get_name", "resultlen");
    const std::string& name = t->get_name();
    const std::size_t n = std::min<std::size_t>(name.size(), MPI_MAX_OBJECT_NAME - 1);
    std::memcpy(type_name, name.data(), n);
    type_name[n] = '\0';
    *resultlen = static_cast<int>(n);
    return MPI_SUCCESS;
  });
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  return entry("MPI_Type_set_name", MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, "MPI_Type_set_name");
    require_pointer(type_name, "MPI_Type_set_name", "type_name");
    t->set_name(std::string(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1)));
    return MPI_SUCCESS;
  });
}

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
             MPI_Comm comm) {
  return pack_into("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
               MPI_Comm comm) {
  return unpack_from("MPI_Unpack", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  return pack_size("MPI_Pack_size", incount, datatype, comm, size);
}

// ---- large counts (MPI-4.0 §5.2.2): MPI_Count counts, sizes and displacements.

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return marked_large(type_contiguous("MPI_Type_contiguous_c", count, oldtype, newtype), newtype);
}

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return marked_large(type_vector("MPI_Type_vector_c", false, count, blocklength, stride, oldtype, newtype), newtype);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  return marked_large(type_vector("MPI_Type_create_hvector_c", true, count, blocklength, stride, oldtype, newtype), newtype);
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return marked_large(type_indexed("MPI_Type_indexed_c", false, count, array_of_blocklengths, array_of_displacements, oldtype,
                      newtype), newtype);
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return marked_large(type_indexed("MPI_Type_create_hindexed_c", true, count, array_of_blocklengths, array_of_displacements, oldtype,
                      newtype), newtype);
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return marked_large(block_indexed("MPI_Type_create_indexed_block_c", count, blocklength, array_of_displacements, oldtype, newtype,
                       &Datatype::indexed_block), newtype);
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return marked_large(block_indexed("MPI_Type_create_hindexed_block_c", count, blocklength, array_of_displacements, oldtype, newtype,
                       &Datatype::hindexed_block), newtype);
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                             MPI_Datatype* newtype) {
  return marked_large(type_struct("MPI_Type_create_struct_c", count, array_of_blocklengths, array_of_displacements, array_of_types,
                     newtype), newtype);
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  return marked_large(type_subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                       oldtype, newtype), newtype);
}

int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                             int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return marked_large(type_darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                     array_of_psizes, order, oldtype, newtype), newtype);
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype) {
  return marked_large(type_resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype), newtype);
}

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) { return large_size("MPI_Type_size_c", datatype, size); }

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return get_bounds("MPI_Type_get_extent_c", datatype, lb, "lb", extent, "extent", &Datatype::lb, &Datatype::extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return get_bounds("MPI_Type_get_true_extent_c", datatype, true_lb, "true_lb", true_extent, "true_extent",
                    &Datatype::true_lb, &Datatype::true_extent);
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                            MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  const char* where = "MPI_Type_get_envelope_c";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(num_integers, where, "num_integers");
    require_pointer(num_addresses, where, "num_addresses");
    require_pointer(num_large_counts, where, "num_large_counts");
    require_pointer(num_datatypes, where, "num_datatypes");
    require_pointer(combiner, where, "combiner");
    *num_integers = *num_addresses = *num_large_counts = *num_datatypes = 0;
    if (t->contents() != nullptr) {
      const LargeContents c = large_contents(*t);
      *num_integers = static_cast<MPI_Count>(c.integers.size());
      *num_addresses = static_cast<MPI_Count>(c.addresses.size());
      *num_large_counts = static_cast<MPI_Count>(c.large_counts.size());
      *num_datatypes = static_cast<MPI_Count>(t->contents()->types.size());
    }
    *combiner = static_cast<int>(t->combiner());
    return MPI_SUCCESS;
  });
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                            MPI_Datatype array_of_datatypes[]) {
  const char* where = "MPI_Type_get_contents_c";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    const std::vector<DatatypePtr>& types = derived_contents(*t, where).types;
    const LargeContents c = large_contents(*t);
    require_room(max_integers, c.integers.size(), array_of_integers, "max_integers", "array_of_integers", where);
    require_room(max_addresses, c.addresses.size(), array_of_addresses, "max_addresses", "array_of_addresses",
                 where);
    require_room(max_large_counts, c.large_counts.size(), array_of_large_counts, "max_large_counts",
                 "array_of_large_counts", where);
    require_room(max_datatypes, types.size(), array_of_datatypes, "max_datatypes", "array_of_datatypes", where);
    // The integers left are ndims, orders, distributions and the like: ints (those of
    // an int constructor were its int arguments).
    write_contents(s, c.integers, c.addresses, types, array_of_integers, array_of_addresses, array_of_datatypes);
    std::ranges::copy(c.large_counts, array_of_large_counts);
    return MPI_SUCCESS;
  });
}

int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
               MPI_Count* position, MPI_Comm comm) {
  return pack_into("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
                 MPI_Datatype datatype, MPI_Comm comm) {
  return unpack_from("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return pack_size("MPI_Pack_size_c", incount, datatype, comm, size);
}

}  // extern "C"
