// MPI C API: the blocking collectives (mpi/coll). MPI_IN_PLACE has mpi/coll's value
// (kInPlace), so buffers pass through unchanged. A reduction's op goes through an
// OpCall (rank_state.hpp), which binds a user-defined op to the call's datatype handle.
#include <fmt/format.h>

#include <vector>

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

/// A counts or displacements array of a v-collective: one int per rank of `comm`
/// (MPI_ERR_ARG for a null pointer where it is used).
std::span<const int> per_rank(const int* array, const Communicator& comm, const char* where, const char* arg) {
  require_pointer(array, where, arg);
  return {array, static_cast<std::size_t>(comm.size())};
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
    const OpCall reduction(s, op, datatype, "MPI_Reduce");
    reduce(s.ctx(), sendbuf, recvbuf, count, s.type(datatype, "MPI_Reduce"), reduction.op(), root, c);
    return MPI_SUCCESS;
  });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return entry("MPI_Allreduce", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Allreduce");
    const OpCall reduction(s, op, datatype, "MPI_Allreduce");
    allreduce(s.ctx(), sendbuf, recvbuf, count, s.type(datatype, "MPI_Allreduce"), reduction.op(), c);
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

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* where = "MPI_Gatherv";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const bool at_root = c.rank() == root;
    const DatatypePtr* st = type_if(s, sendbuf != MPI_IN_PLACE, sendtype, where, "sendtype");
    const DatatypePtr* rt = type_if(s, at_root, recvtype, where, "recvtype");
    std::span<const int> counts, offsets;
    if (at_root && root >= 0 && root < c.size()) {
      counts = per_rank(recvcounts, c, where, "recvcounts");
      offsets = per_rank(displs, c, where, "displs");
    }
    gatherv(s.ctx(), sendbuf, sendcount, or_byte(s, st), recvbuf, counts, offsets, or_byte(s, rt), root, c);
    return MPI_SUCCESS;
  });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* where = "MPI_Scatterv";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const bool at_root = c.rank() == root;
    const DatatypePtr* st = type_if(s, at_root, sendtype, where, "sendtype");
    const DatatypePtr* rt = type_if(s, recvbuf != MPI_IN_PLACE, recvtype, where, "recvtype");
    std::span<const int> counts, offsets;
    if (at_root) {
      counts = per_rank(sendcounts, c, where, "sendcounts");
      offsets = per_rank(displs, c, where, "displs");
    }
    scatterv(s.ctx(), sendbuf, counts, offsets, or_byte(s, st), recvbuf, recvcount, or_byte(s, rt), root, c);
    return MPI_SUCCESS;
  });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* where = "MPI_Allgatherv";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr* st = type_if(s, sendbuf != MPI_IN_PLACE, sendtype, where, "sendtype");
    allgatherv(s.ctx(), sendbuf, sendcount, or_byte(s, st), recvbuf, per_rank(recvcounts, c, where, "recvcounts"),
               per_rank(displs, c, where, "displs"), s.type(recvtype, where, "recvtype"), c);
    return MPI_SUCCESS;
  });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* where = "MPI_Alltoallv";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const DatatypePtr* st = type_if(s, !in_place, sendtype, where, "sendtype");
    std::span<const int> counts, offsets;
    if (!in_place) {
      counts = per_rank(sendcounts, c, where, "sendcounts");
      offsets = per_rank(sdispls, c, where, "sdispls");
    }
    alltoallv(s.ctx(), sendbuf, counts, offsets, or_byte(s, st), recvbuf, per_rank(recvcounts, c, where, "recvcounts"),
              per_rank(rdispls, c, where, "rdispls"), s.type(recvtype, where, "recvtype"), c);
    return MPI_SUCCESS;
  });
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  const char* where = "MPI_Alltoallw";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const auto n = static_cast<std::size_t>(c.size());
    // One datatype per rank, each resolved (MPI_ERR_TYPE naming its index).
    const auto resolve = [&](const MPI_Datatype* handles, const char* arg) {
      require_pointer(handles, where, arg);
      std::vector<DatatypePtr> types;
      types.reserve(n);
      for (std::size_t i = 0; i < n; ++i)
        types.push_back(s.type(handles[i], where, fmt::format("{}[{}]", arg, i).c_str()));
      return types;
    };
    const bool in_place = sendbuf == MPI_IN_PLACE;
    std::span<const int> counts, offsets;
    std::vector<DatatypePtr> send_types;
    if (!in_place) {
      counts = per_rank(sendcounts, c, where, "sendcounts");
      offsets = per_rank(sdispls, c, where, "sdispls");
      send_types = resolve(sendtypes, "sendtypes");
    }
    const std::vector<DatatypePtr> recv_types = resolve(recvtypes, "recvtypes");
    alltoallw(s.ctx(), sendbuf, counts, offsets, send_types, recvbuf, per_rank(recvcounts, c, where, "recvcounts"),
              per_rank(rdispls, c, where, "rdispls"), recv_types, c);
    return MPI_SUCCESS;
  });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  const char* where = "MPI_Reduce_scatter";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const OpCall reduction(s, op, datatype, where);
    reduce_scatter(s.ctx(), sendbuf, recvbuf, per_rank(recvcounts, c, where, "recvcounts"), s.type(datatype, where),
                   reduction.op(), c);
    return MPI_SUCCESS;
  });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  const char* where = "MPI_Reduce_scatter_block";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const OpCall reduction(s, op, datatype, where);
    reduce_scatter_block(s.ctx(), sendbuf, recvbuf, recvcount, s.type(datatype, where), reduction.op(), c);
    return MPI_SUCCESS;
  });
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return entry("MPI_Scan", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Scan");
    const OpCall reduction(s, op, datatype, "MPI_Scan");
    scan(s.ctx(), sendbuf, recvbuf, count, s.type(datatype, "MPI_Scan"), reduction.op(), c);
    return MPI_SUCCESS;
  });
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return entry("MPI_Exscan", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Exscan");
    const OpCall reduction(s, op, datatype, "MPI_Exscan");
    exscan(s.ctx(), sendbuf, recvbuf, count, s.type(datatype, "MPI_Exscan"), reduction.op(), c);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
