// twinfab MPI core: the predefined reduction operations.
//
// reduce_local(op, in, inout, count, type) computes inout[i] = in[i] op inout[i]
// (MPI_Reduce_local), the step every reduction algorithm in coll/ repeats. Which op
// is defined on which type follows MPI-3 §5.9.2 (TypeGroup in datatype.hpp): an op
// applied to a type outside its groups is MPI_ERR_OP, e.g. MPI_BAND on MPI_FLOAT.
//
// Derived datatypes are accepted when every entry of their type map is the same basic
// type (MPI's rule for predefined ops); a contiguous one is reduced in place, others
// through a packed copy. User-defined ops (MPI_Op_create) are not here yet.
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

}  // namespace twinfab::mpi
