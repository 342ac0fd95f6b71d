// MPI C API: the blocking collectives (mpi/coll). MPI_IN_PLACE has mpi/coll's value
// (kInPlace), so buffers pass through unchanged.
#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;


namespace {

/// A send/recv datatype argument that MPI ignores on this rank may be anything; only
/// look it up when it is used.
const DatatypePtr* type_if(RankState& s, bool used, MPI_Datatype handle, const char* where, const char* arg) {
  return used ? &s.type(handle, where, arg) : nullptr;
}

const DatatypePtr& or_byte(RankState& s, const DatatypePtr* t) {
  return t != nullptr ? *t : s.ctx().datatype(BasicKind::Byte);
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  return entry("MPI_Barrier", comm, [&](RankState& s) {
    barrier(s.ctx(), s.comm(comm, "MPI_Barrier"));
    return MPI_SUCCESS;
  });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return entry("MPI_Bcast", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Bcast");
    bcast(s.ctx(), buffer, count, s.type(datatype, "MPI_Bcast"), root, c);
    return MPI_SUCCESS;
  });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return entry("MPI_Reduce", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Reduce");
    reduce(s.ctx(), sendbuf, recvbuf, count, s.type(datatype, "MPI_Reduce"), op_of(op, "MPI_Reduce"), root, c);
    return MPI_SUCCESS;
  });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return entry("MPI_Allreduce", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Allreduce");
    allreduce(s.ctx(), sendbuf, recvbuf, count, s.type(datatype, "MPI_Allreduce"), op_of(op, "MPI_Allreduce"), c);
    return MPI_SUCCESS;
  });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return entry("MPI_Gather", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Gather");
    const bool at_root = c.rank() == root;
    const DatatypePtr* st = type_if(s, sendbuf != MPI_IN_PLACE, sendtype, "MPI_Gather", "sendtype");
    const DatatypePtr* rt = type_if(s, at_root, recvtype, "MPI_Gather", "recvtype");
    gather(s.ctx(), sendbuf, sendcount, or_byte(s, st), recvbuf, recvcount, or_byte(s, rt), root, c);
    return MPI_SUCCESS;
  });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return entry("MPI_Scatter", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Scatter");
    const bool at_root = c.rank() == root;
    const DatatypePtr* st = type_if(s, at_root, sendtype, "MPI_Scatter", "sendtype");
    const DatatypePtr* rt = type_if(s, recvbuf != MPI_IN_PLACE, recvtype, "MPI_Scatter", "recvtype");
    scatter(s.ctx(), sendbuf, sendcount, or_byte(s, st), recvbuf, recvcount, or_byte(s, rt), root, c);
    return MPI_SUCCESS;
  });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return entry("MPI_Allgather", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Allgather");
    const DatatypePtr* st = type_if(s, sendbuf != MPI_IN_PLACE, sendtype, "MPI_Allgather", "sendtype");
    allgather(s.ctx(), sendbuf, sendcount, or_byte(s, st), recvbuf, recvcount,
              s.type(recvtype, "MPI_Allgather", "recvtype"), c);
    return MPI_SUCCESS;
  });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  return entry("MPI_Alltoall", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Alltoall");
    const DatatypePtr* st = type_if(s, sendbuf != MPI_IN_PLACE, sendtype, "MPI_Alltoall", "sendtype");
    alltoall(s.ctx(), sendbuf, sendcount, or_byte(s, st), recvbuf, recvcount,
             s.type(recvtype, "MPI_Alltoall", "recvtype"), c);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
