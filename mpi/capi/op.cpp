// MPI C API: user-defined reduction operations (MPI_Op_create, MPI_Op_free,
// MPI_Op_commutative) and MPI_Reduce_local (MPI-3.1 §5.9.5, §5.9.7). The ops live in
// the rank's table (RankState); reductions resolve a handle through OpCall. Errors
// go to MPI_COMM_WORLD's handler, as for every call without a communicator. Classes
// as in MPICH and Open MPI: a null function or pointer argument is MPI_ERR_ARG, an
// invalid, freed or null op handle MPI_ERR_OP, freeing a predefined op MPI_ERR_OP.
#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

extern "C" {

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  const char* where = "MPI_Op_create";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    if (user_fn == nullptr) throw Error(ErrorClass::MPI_ERR_ARG, "MPI_Op_create(user_fn)", "null function pointer");
    require_pointer(op, where, "op");
    *op = s.add_op(user_fn, commute != 0);
    return MPI_SUCCESS;
  });
}

int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  const char* where = "MPI_Op_create_c";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    if (user_fn == nullptr) throw Error(ErrorClass::MPI_ERR_ARG, "MPI_Op_create_c(user_fn)", "null function pointer");
    require_pointer(op, where, "op");
    *op = s.add_op(user_fn, commute != 0);
    return MPI_SUCCESS;
  });
}

int MPI_Op_free(MPI_Op* op) {
  const char* where = "MPI_Op_free";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(op, where, "op");
    s.free_op(*op, where);
    return MPI_SUCCESS;
  });
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  const char* where = "MPI_Op_commutative";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const OpCall resolved(s, op, MPI_DATATYPE_NULL, where);
    require_pointer(commute, where, "commute");
    *commute = resolved.op().is_commutative() ? 1 : 0;
    return MPI_SUCCESS;
  });
}

namespace {
int reduce_local(const char* where, const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const OpCall reduction(s, op, datatype, where);
    reduce_local_checked(inbuf, inoutbuf, count, s.type(datatype, where), reduction.op());
    return MPI_SUCCESS;
  });
}
}  // namespace

int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}

}  // extern "C"
