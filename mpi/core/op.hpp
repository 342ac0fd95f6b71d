// twinfab MPI core: reduction operations, predefined and user-defined.
//
// reduce_local(op, in, inout, count, type) computes inout[i] = in[i] op inout[i]
// (MPI_Reduce_local), the step every reduction algorithm in coll/ repeats: `in` is the
// left operand. Which predefined op is defined on which type follows MPI-3 §5.9.2
// (TypeGroup in datatype.hpp): an op applied to a type outside its groups is
// MPI_ERR_OP, e.g. MPI_BAND on MPI_FLOAT.
//
// Derived datatypes are accepted by the predefined ops when every entry of their type
// map is the same basic type (MPI's rule for predefined ops); a contiguous one is
// reduced in place, others through a packed copy.
//
// User-defined ops (MPI_Op_create, MPI-3.1 §5.9.5) are a ReductionOp holding a
// function and whether the op commutes. The core calls the function with the
// caller's buffers, the element count and the datatype, whatever the datatype (MPI
// lets a user function handle any type, derived ones included; it sees their layout,
// so nothing is packed for it). What the function is on the C side (the
// MPI_User_function pointer, the C datatype handle it must receive) is the C API's
// business: the core only passes back the opaque `user_data` it was given.
// Collectives apply a non-commutative op in rank order: op(op(a0, a1), a2)...
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mpi/core/datatype.hpp"

namespace twinfab::mpi {

enum class Op {
  Max,
  Min,
  Sum,
  Prod,
  Land,
  Band,
  Lor,
  Bor,
  Lxor,
  Bxor,
  Maxloc,  // pair types: the larger value; on a tie, the lower index
  Minloc,  // pair types: the smaller value; on a tie, the lower index
  Replace, // MPI_REPLACE (MPI_Accumulate): inout = in, any type
  NoOp,    // MPI_NO_OP (MPI_Get_accumulate): inout unchanged, any type
};

/// The MPI name, e.g. "MPI_MAXLOC".
std::string_view to_string(Op op) noexcept;

/// Whether `op` is defined on elements of `kind`.
bool is_defined(Op op, BasicKind kind) noexcept;

/// Throws MPI_ERR_TYPE for a null type or one that mixes basic types, MPI_ERR_OP when
/// `op` is not defined on the type's basic type. `where` names the MPI call.
void check_op(Op op, const Datatype* type, std::string_view where);

/// inout[i] = in[i] op inout[i] for `count` elements of `type`. Checks as check_op and
/// check_buffer_type do. `in` and `inout` must not overlap.
void reduce_local(Op op, const void* in, void* inout, std::int64_t count, const Datatype& type,
                  std::string_view where = "MPI_Reduce_local");

/// The unchecked kernel: `n` consecutive elements of `kind` in their C layout.
/// Precondition: is_defined(op, kind).
void apply(Op op, BasicKind kind, const void* in, void* inout, std::size_t n) noexcept;

/// The operation a reduction applies: a predefined Op (implicitly, so Op::Sum can be
/// passed wherever a ReductionOp is taken) or a user-defined function. A small value
/// that refers to nothing it owns: whoever makes a user op keeps `user_data` alive
/// while the op is in use (the C API binds it to one call, on that call's stack).
class ReductionOp {
 public:
  /// inout[i] = in[i] op inout[i] for `count` elements of `type` (MPI_User_function's
  /// contract; `count` > 0). `user_data` is what ReductionOp::user was given.
  using UserFunction = void (*)(const void* user_data, const void* in, void* inout, std::int64_t count,
                                const Datatype& type);

  constexpr ReductionOp(Op predefined) noexcept : predefined_(predefined) {}  // NOLINT: implicit on purpose
  /// A user-defined op. `commutative` false: collectives keep operands in rank order.
  static constexpr ReductionOp user(UserFunction function, const void* user_data, bool commutative) noexcept {
    ReductionOp op(Op::NoOp);
    op.function_ = function;
    op.user_data_ = user_data;
    op.commutative_ = commutative;
    return op;
  }

  constexpr bool is_user() const noexcept { return function_ != nullptr; }
  /// The predefined op (meaningful when !is_user()).
  constexpr Op predefined() const noexcept { return predefined_; }
  /// MPI_Op_commutative: every predefined op commutes.
  constexpr bool is_commutative() const noexcept { return commutative_; }
  /// Calls the user function (precondition: is_user()).
  void call(const void* in, void* inout, std::int64_t count, const Datatype& type) const {
    function_(user_data_, in, inout, count, type);
  }

 private:
  Op predefined_;
  bool commutative_ = true;
  UserFunction function_ = nullptr;
  const void* user_data_ = nullptr;
};

/// "MPI_SUM", ..., or "a user-defined op".
std::string_view to_string(const ReductionOp& op) noexcept;

/// check_op for a predefined op; a user-defined op accepts every datatype (only a
/// null one is MPI_ERR_TYPE).
void check_op(const ReductionOp& op, const Datatype* type, std::string_view where);

/// reduce_local for either kind of op. A user-defined op gets (in, inout, count,
/// type) as they are, after the checks of check_buffer_type; count 0 or an empty
/// type does not call it. The predefined path is the Op overload, unchanged.
void reduce_local_user(const ReductionOp& op, const void* in, void* inout, std::int64_t count, const Datatype& type,
                       std::string_view where);
inline void reduce_local(const ReductionOp& op, const void* in, void* inout, std::int64_t count,
                         const Datatype& type, std::string_view where = "MPI_Reduce_local") {
  if (!op.is_user()) [[likely]] {
    reduce_local(op.predefined(), in, inout, count, type, where);
    return;
  }
  reduce_local_user(op, in, inout, count, type, where);
}

}  // namespace twinfab::mpi
