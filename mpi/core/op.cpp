#include "mpi/core/op.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "mpi/core/error.hpp"

namespace twinfab::mpi {

std::string_view to_string(Op op) noexcept {
  switch (op) {
    case Op::Max: return "MPI_MAX";
    case Op::Min: return "MPI_MIN";
    case Op::Sum: return "MPI_SUM";
    case Op::Prod: return "MPI_PROD";
    case Op::Land: return "MPI_LAND";
    case Op::Band: return "MPI_BAND";
    case Op::Lor: return "MPI_LOR";
    case Op::Bor: return "MPI_BOR";
    case Op::Lxor: return "MPI_LXOR";
    case Op::Bxor: return "MPI_BXOR";
    case Op::Maxloc: return "MPI_MAXLOC";
    case Op::Minloc: return "MPI_MINLOC";
    case Op::Replace: return "MPI_REPLACE";
    case Op::NoOp: return "MPI_NO_OP";
  }
  return "MPI_OP_NULL";
}

namespace {

bool defined_on(Op op, TypeGroup group) noexcept {
  using G = TypeGroup;
  switch (op) {
    case Op::Max:
    case Op::Min: return group == G::CInteger || group == G::Floating;
    case Op::Sum:
    case Op::Prod: return group == G::CInteger || group == G::Floating || group == G::Complex;
    case Op::Land:
    case Op::Lor:
    case Op::Lxor: return group == G::CInteger || group == G::Logical;
    case Op::Band:
    case Op::Bor:
    case Op::Bxor: return group == G::CInteger || group == G::Byte;
    case Op::Maxloc:
    case Op::Minloc: return group == G::Pair;
    case Op::Replace:
    case Op::NoOp: return true;
  }
  return false;
}

// One element. The `if constexpr` guards keep each op to the C types it is defined
// on, so that e.g. BAND on float is never instantiated; defined_on() has already
// excluded those combinations at run time.
template <class T, TypeGroup G>
void combine(Op op, const T& in, T& inout) noexcept {
  if (op == Op::Replace) {
    inout = in;
    return;
  }
  if (op == Op::NoOp) return;
  if constexpr (G == TypeGroup::Pair) {
    // Ties keep the lower index whichever side it came from (MPI-3 §5.9.4), so the
    // result does not depend on the order of the reduction tree.
    const bool is_max = op == Op::Maxloc;
    if (in.value == inout.value) {
      inout.index = std::min(in.index, inout.index);
    } else if (is_max ? in.value > inout.value : in.value < inout.value) {
      inout = in;
    }
  } else if constexpr (G == TypeGroup::CInteger || G == TypeGroup::Floating || G == TypeGroup::Complex ||
                       G == TypeGroup::Logical || G == TypeGroup::Byte) {
    if constexpr (G == TypeGroup::CInteger || G == TypeGroup::Floating) {
      if (op == Op::Max) inout = in > inout ? in : inout;
      if (op == Op::Min) inout = in < inout ? in : inout;
    }
    if constexpr (G == TypeGroup::CInteger || G == TypeGroup::Floating || G == TypeGroup::Complex) {
      // Small integer types promote to int; the cast back is MPI's wrap-around.
      if (op == Op::Sum) inout = static_cast<T>(in + inout);
      if (op == Op::Prod) inout = static_cast<T>(in * inout);
    }
    if constexpr (G == TypeGroup::CInteger || G == TypeGroup::Logical) {
      if (op == Op::Land) inout = static_cast<T>(in && inout);
      if (op == Op::Lor) inout = static_cast<T>(in || inout);
      if (op == Op::Lxor) inout = static_cast<T>(static_cast<bool>(in) != static_cast<bool>(inout));
    }
    if constexpr (G == TypeGroup::CInteger || G == TypeGroup::Byte) {
      if (op == Op::Band) inout = static_cast<T>(in & inout);
      if (op == Op::Bor) inout = static_cast<T>(in | inout);
      if (op == Op::Bxor) inout = static_cast<T>(in ^ inout);
    }
  }
}

template <class T, TypeGroup G>
void apply_typed(Op op, const void* in, void* inout, std::size_t n) noexcept {
  const bool aligned = reinterpret_cast<std::uintptr_t>(in) % alignof(T) == 0 &&
                       reinterpret_cast<std::uintptr_t>(inout) % alignof(T) == 0;
  if (aligned) {
    const T* a = static_cast<const T*>(in);
    T* b = static_cast<T*>(inout);
    for (std::size_t i = 0; i < n; ++i) combine<T, G>(op, a[i], b[i]);
    return;
  }
  // MPI allows elements at any byte offset (an accumulate at displacement 3 of a
  // window with disp_unit 1, a reduction on a char buffer's interior): go through
  // properly aligned copies rather than misaligned references.
  const auto* a = static_cast<const std::byte*>(in);
  auto* b = static_cast<std::byte*>(inout);
  for (std::size_t i = 0; i < n; ++i) {
    T x;
    T y;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b + i * sizeof(T), sizeof(T));
    combine<T, G>(op, x, y);
    std::memcpy(b + i * sizeof(T), &y, sizeof(T));
  }
}

// A pair type in packed form (value bytes then index bytes, no padding): copy each
// element through its C layout. Only MAXLOC/MINLOC on derived types get here.
template <class T>
void apply_packed_pairs(Op op, const std::byte* in, std::byte* inout, std::size_t n) noexcept {
  constexpr std::size_t value_bytes = sizeof(T::value);
  constexpr std::size_t packed = value_bytes + sizeof(int);
  for (std::size_t i = 0; i < n; ++i) {
    T a{};
    T b{};
    std::memcpy(&a.value, in + i * packed, value_bytes);
    std::memcpy(&a.index, in + i * packed + value_bytes, sizeof(int));
    std::memcpy(&b.value, inout + i * packed, value_bytes);
    std::memcpy(&b.index, inout + i * packed + value_bytes, sizeof(int));
    combine<T, TypeGroup::Pair>(op, a, b);
    std::memcpy(inout + i * packed, &b.value, value_bytes);
    std::memcpy(inout + i * packed + value_bytes, &b.index, sizeof(int));
  }
}

void apply_packed(Op op, BasicKind kind, const std::byte* in, std::byte* inout, std::size_t n) noexcept {
  switch (kind) {
    case BasicKind::FloatInt: return apply_packed_pairs<pair::FloatInt>(op, in, inout, n);
    case BasicKind::DoubleInt: return apply_packed_pairs<pair::DoubleInt>(op, in, inout, n);
    case BasicKind::LongInt: return apply_packed_pairs<pair::LongInt>(op, in, inout, n);
    case BasicKind::TwoInt: return apply_packed_pairs<pair::TwoInt>(op, in, inout, n);
    case BasicKind::ShortInt: return apply_packed_pairs<pair::ShortInt>(op, in, inout, n);
    case BasicKind::LongDoubleInt: return apply_packed_pairs<pair::LongDoubleInt>(op, in, inout, n);
    default: return apply(op, kind, in, inout, n);  // packed form == C layout
  }
}

}  // namespace

bool is_defined(Op op, BasicKind kind) noexcept { return defined_on(op, group_of(kind)); }

void apply(Op op, BasicKind kind, const void* in, void* inout, std::size_t n) noexcept {
  switch (kind) {
#define TWINFAB_MPI_APPLY_CASE(k, name, ctype, group)                     \
  case BasicKind::k:                                                       \
    return apply_typed<ctype, TypeGroup::group>(op, in, inout, n);
    TWINFAB_MPI_BASIC_TYPE_LIST(TWINFAB_MPI_APPLY_CASE)
#undef TWINFAB_MPI_APPLY_CASE
  }
}

void check_op(Op op, const Datatype* type, std::string_view where) {
  if (type == nullptr) {
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype)", where), "datatype is MPI_DATATYPE_NULL");
  }
  const auto kind = type->basic_kind();
  if (!kind) {
    if (op == Op::Replace || op == Op::NoOp) return;
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype)", where),
                fmt::format("{} needs a datatype built from one basic type; this one mixes several", to_string(op)));
  }
  if (!is_defined(op, *kind)) {
    throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op={})", where, to_string(op)),
                fmt::format("{} is not defined on {}", to_string(op), to_string(*kind)));
  }
}

void reduce_local(Op op, const void* in, void* inout, std::int64_t count, const Datatype& type,
                  std::string_view where) {
  check_buffer_type(count, &type, where);
  check_op(op, &type, where);
  if (count == 0 || type.size() == 0 || op == Op::NoOp) return;
  const auto kind = type.basic_kind();
  if (type.is_predefined()) {
    apply(op, *kind, in, inout, static_cast<std::size_t>(count));
    return;
  }
  const auto bytes = static_cast<std::size_t>(count * type.size());
  if (kind && type.is_contiguous() && basic_size(*kind) == basic_extent(*kind)) {
    // The data is one run of whole elements in their C layout: reduce in place (apply
    // copes with a run that byte displacements left unaligned).
    const std::int64_t offset = type.blocks().front().offset;
    apply(op, *kind, static_cast<const std::byte*>(in) + offset, static_cast<std::byte*>(inout) + offset,
          bytes / static_cast<std::size_t>(basic_size(*kind)));
    return;
  }
  // A type of mixed basics can only be here for REPLACE, which is a byte copy.
  std::vector<std::byte> packed_in(bytes);
  std::vector<std::byte> packed_inout(bytes);
  pack(in, count, type, 0, packed_in, where);
  if (op == Op::Replace) {
    unpack(packed_in, inout, count, type, 0, where);
    return;
  }
  pack(inout, count, type, 0, packed_inout, where);
  // In packed form a type of one basic kind is an array of that kind (pairs without
  // padding); std::vector's storage is aligned for every basic type.
  apply_packed(op, *kind, packed_in.data(), packed_inout.data(), bytes / static_cast<std::size_t>(basic_size(*kind)));
  unpack(packed_inout, inout, count, type, 0, where);
}

std::string_view to_string(const ReductionOp& op) noexcept {
  return op.is_user() ? "a user-defined op" : to_string(op.predefined());
}

void check_op(const ReductionOp& op, const Datatype* type, std::string_view where) {
  if (!op.is_user()) {
    check_op(op.predefined(), type, where);
    return;
  }
  if (type == nullptr) {
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype)", where), "datatype is MPI_DATATYPE_NULL");
  }
}

void reduce_local_user(const ReductionOp& op, const void* in, void* inout, std::int64_t count, const Datatype& type,
                       std::string_view where) {
  check_buffer_type(count, &type, where);
  if (count == 0 || type.size() == 0) return;
  op.call(in, inout, count, type);
}

}  // namespace twinfab::mpi
