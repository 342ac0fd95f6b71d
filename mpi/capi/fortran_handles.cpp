// MPI C API: the handle conversions of the language interoperability chapter
// (MPI-3.1 §17.2.4), MPI_<Handle>_c2f / _f2c and MPI_Status_c2f / _f2c. twinfab has
// no Fortran bindings, but C libraries that serve Fortran callers, and MPICH's tests,
// use these. A handle is an int in C (MPICH's convention), so MPI_Fint holds it
// unchanged: the conversions are the identity, as MPICH's macros are. They are
// functions here so that they also have PMPI_ names. A Fortran status is the C
// status' ints, MPI_F_STATUS_SIZE of them.
#include <cstring>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "MPI_F_STATUS_SIZE is out of date");

extern "C" {

#define TWINFAB_HANDLE_CONVERSIONS(Kind, Handle)                  \
  MPI_Fint MPI_##Kind##_c2f(Handle handle) { return handle; }     \
  Handle MPI_##Kind##_f2c(MPI_Fint handle) { return handle; }

TWINFAB_HANDLE_CONVERSIONS(Comm, MPI_Comm)
TWINFAB_HANDLE_CONVERSIONS(Type, MPI_Datatype)
TWINFAB_HANDLE_CONVERSIONS(Group, MPI_Group)
TWINFAB_HANDLE_CONVERSIONS(Request, MPI_Request)
TWINFAB_HANDLE_CONVERSIONS(Op, MPI_Op)
TWINFAB_HANDLE_CONVERSIONS(Info, MPI_Info)
TWINFAB_HANDLE_CONVERSIONS(Errhandler, MPI_Errhandler)
TWINFAB_HANDLE_CONVERSIONS(Message, MPI_Message)
TWINFAB_HANDLE_CONVERSIONS(Session, MPI_Session)
#undef TWINFAB_HANDLE_CONVERSIONS

int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return entry("MPI_Status_c2f", MPI_COMM_WORLD, [&](RankState&) {
    require_pointer(c_status, "MPI_Status_c2f", "c_status");
    require_pointer(f_status, "MPI_Status_c2f", "f_status");
    if (c_status == MPI_STATUS_IGNORE)
      throw Error(ErrorClass::MPI_ERR_ARG, "MPI_Status_c2f(c_status)", "MPI_STATUS_IGNORE is not a status");
    std::memcpy(f_status, c_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
  });
}

int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return entry("MPI_Status_f2c", MPI_COMM_WORLD, [&](RankState&) {
    require_pointer(f_status, "MPI_Status_f2c", "f_status");
    require_pointer(c_status, "MPI_Status_f2c", "c_status");
    if (c_status == MPI_STATUS_IGNORE)
      throw Error(ErrorClass::MPI_ERR_ARG, "MPI_Status_f2c(c_status)", "MPI_STATUS_IGNORE is not a status");
    std::memcpy(c_status, f_status, sizeof(MPI_Status));
    return MPI_SUCCESS;
  });
}

}  // extern "C"
