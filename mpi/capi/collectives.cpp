// MPI C API: the collectives (mpi/coll), blocking and nonblocking. MPI_IN_PLACE has
// mpi/coll's value (kInPlace), so buffers pass through unchanged. Each MPI_X and its
// MPI_IX share one body: they resolve the same arguments, and the core runs the same
// algorithm in Mode::Blocking or Mode::Nonblocking.
//
// A reduction's op goes through an OpCall (rank_state.hpp), which binds a
// user-defined op to the call's datatype handle. The schedule of a nonblocking
// reduction calls it after the MPI_I... call returned, so the OpCall lives on the heap
// and its request entry keeps it (RankState::add_collective_request) until the request completes.
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <span>
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

/// A counts or displacements argument of a v-collective: int entries (MPI_X),
/// MPI_Count or MPI_Aint entries (the large-count MPI_X_c, MPI-4.0 §5.2.2; and MPI_Aint
/// for the byte displacements of MPI_Neighbor_alltoallw). The core takes 64-bit
/// entries; take() widens a copy, which the core reads before the call returns (a
/// nonblocking schedule keeps what they said, not the array).
class ArrayArg {
 public:
  ArrayArg(const int* entries) : int_(entries) {}              // NOLINT: converts as the C argument
  ArrayArg(const MPI_Count* entries) : count_(entries) {}      // NOLINT
  ArrayArg(const MPI_Aint* entries) : aint_(entries) {}        // NOLINT
  bool null() const noexcept { return int_ == nullptr && count_ == nullptr && aint_ == nullptr; }
  std::vector<std::int64_t> take(std::size_t n) const {
    if (int_ != nullptr) return {int_, int_ + n};
    if (count_ != nullptr) return {count_, count_ + n};
    if (aint_ != nullptr) return {aint_, aint_ + n};
    return {};
  }

 private:
  const int* int_ = nullptr;
  const MPI_Count* count_ = nullptr;
  const MPI_Aint* aint_ = nullptr;
};

/// One entry per rank of `comm`, or of its remote group for an intercommunicator
/// (MPI_ERR_ARG for a null pointer where it is used).
std::vector<std::int64_t> per_rank(ArrayArg array, const Communicator& comm, const char* where, const char* arg) {
  if (array.null()) require_pointer(nullptr, where, arg);
  return array.take(static_cast<std::size_t>(comm.peer_count()));
}

/// Whether this rank is the root of a rooted collective: its rank is `root`, or on an
/// intercommunicator, it passed MPI_ROOT.
bool is_root(const Communicator& comm, int root) { return comm.is_inter() ? root == MPI_ROOT : comm.rank() == root; }

/// Whether this rank's send side of a gather (receive side of a scatter) is used: not
/// MPI_IN_PLACE (at an intracommunicator's root), and on an intercommunicator, in the
/// group opposite the root's (the root's group passes MPI_ROOT or MPI_PROC_NULL).
bool own_block_used(const Communicator& comm, int root, const void* buffer) {
  return comm.is_inter() ? root >= 0 : buffer != MPI_IN_PLACE;
}

/// What a collective body gets: the rank, the communicator, the mode, the function's
/// name, and where to put what the request must keep alive.
struct Call {
  RankState& s;
  const Communicator& comm;
  Mode mode;
  const char* where;
  std::shared_ptr<const void> kept;

  /// The call's reduction op (see the top of the file).
  const ReductionOp& op(MPI_Op handle, MPI_Datatype datatype) {
    auto call = std::make_shared<const OpCall>(s, handle, datatype, where);
    const ReductionOp& reduction = call->op();
    kept = std::move(call);
    return reduction;
  }
};

/// Which form of a collective an entry point is: blocking (no name), nonblocking
/// (MPI_IX: its name), or persistent (MPI_X_init, MPI-4.0 §6.13: its name and info).
struct Variant {
  Variant() = default;
  Variant(const char* nonblocking_name) : name(nonblocking_name) {}  // NOLINT: MPI_IX passes its name
  static Variant persistent(const char* init_name, MPI_Info info) {
    Variant v(init_name);
    v.is_persistent = true;
    v.info = info;
    return v;
  }
  /// A blocking call named otherwise than its helper's MPI_X: MPI_X_c.
  static Variant blocking(const char* blocking_name) {
    Variant v;
    v.blocking_name = blocking_name;
    return v;
  }
  const char* name = nullptr;  ///< null: blocking
  const char* blocking_name = nullptr;
  bool is_persistent = false;
  MPI_Info info = MPI_INFO_NULL;
};

/// MPI_X_init: an inactive persistent request whose MPI_Start runs `body` as the
/// nonblocking collective (a new schedule, with the arguments given here, each time).
/// The arguments are checked at each start, as the nonblocking call checks them; the
/// buffers, arrays, datatypes and op must stay valid until the request is freed. The
/// collective's sequence number on the communicator (its tags) is taken here, in init
/// order, and reused by every start: the members may start their persistent
/// collectives in different orders (MPI-4.0 §6.13; MPICH's p_order).
template <class Body>
int persistent_collective(const Variant& variant, MPI_Comm comm, MPI_Request* request, Body body) {
  const char* where = variant.name;
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    if (variant.info != MPI_INFO_NULL) s.infos.check_hints(variant.info, where);  // no hint is used
    require_pointer(request, where, "request");
    PersistentOp op;
    op.kind = PersistentOp::Kind::Collective;
    op.comm = comm;
    const std::uint32_t sequence = c.next_nonblocking_sequence();
    // The node map as known at init (null: not yet), which every start uses, so that
    // members starting at different points choose the same algorithm (mpi/coll/
    // node_map.hpp).
    std::shared_ptr<const NodeMap> nodes = c.shared_node_map();
    op.start_collective = [body, where, sequence, nodes](RankState& state, const Communicator& on,
                                                          std::shared_ptr<const void>& kept) {
      Call call{state, on, Mode::Nonblocking, where, nullptr};
      on.reuse_sequence_once(sequence);
      on.pin_node_map(nodes);
      RequestId id = kRequestNull;
      try {
        id = body(call);
      } catch (...) {
        on.clear_reused_sequence();  // refused before its schedule took the number
        on.unpin_node_map();
        throw;
      }
      on.clear_reused_sequence();
      on.unpin_node_map();
      kept = std::move(call.kept);
      return id;
    };
    *request = s.add_persistent(std::move(op), where);
    return MPI_SUCCESS;
  });
}

/// The entry point of a collective: MPI_X (blocking), MPI_IX (nonblocking) or
/// MPI_X_init (persistent). `body(call)` starts the collective in call.mode and returns
/// its request.
template <class Body>
int collective(const char* blocking, const Variant& variant, MPI_Comm comm, MPI_Request* request, Body&& body) {
  if (variant.is_persistent) return persistent_collective(variant, comm, request, std::forward<Body>(body));
  const Mode mode = variant.name != nullptr ? Mode::Nonblocking : Mode::Blocking;
  const char* where =
      mode == Mode::Nonblocking ? variant.name : (variant.blocking_name != nullptr ? variant.blocking_name : blocking);
  return entry(where, comm, [&](RankState& s) {
    if (mode == Mode::Nonblocking) require_pointer(request, where, "request");
    Call call{s, s.comm(comm, where), mode, where, nullptr};
    const RequestId id = body(call);
    if (mode == Mode::Nonblocking) *request = s.add_collective_request(id, comm, where, std::move(call.kept));
    return MPI_SUCCESS;
  });
}

int barrier(MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Barrier", variant, comm, request,
                    [=](Call& c) { return twinfab::mpi::barrier(c.s.ctx(), c.comm, c.mode); });
}

int bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request,
          Variant variant = {}) {
  return collective("MPI_Bcast", variant, comm, request, [=](Call& c) {
    return twinfab::mpi::bcast(c.s.ctx(), buffer, count, c.s.type(datatype, c.where), root, c.comm, c.mode);
  });
}

int reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
           MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Reduce", variant, comm, request, [=](Call& c) {
    const ReductionOp& reduction = c.op(op, datatype);
    return twinfab::mpi::reduce(c.s.ctx(), sendbuf, recvbuf, count, c.s.type(datatype, c.where), reduction, root,
                                c.comm, c.mode);
  });
}

/// MPI_Allreduce, MPI_Scan and MPI_Exscan (and their MPI_I forms): every rank passes
/// the same arguments; `run` is the core's allreduce, scan or exscan.
using EveryRankReduction = RequestId (*)(Context&, const void*, void*, std::int64_t, const DatatypePtr&,
                                         const ReductionOp&, const Communicator&, Mode);
int every_rank_reduction(const char* blocking, EveryRankReduction run, const void* sendbuf, void* recvbuf,
                         MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request,
                         Variant variant) {
  return collective(blocking, variant, comm, request, [=](Call& c) {
    const ReductionOp& reduction = c.op(op, datatype);
    return run(c.s.ctx(), sendbuf, recvbuf, count, c.s.type(datatype, c.where), reduction, c.comm, c.mode);
  });
}

int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request* request, Variant variant = {}) {
  return every_rank_reduction("MPI_Allreduce", twinfab::mpi::allreduce, sendbuf, recvbuf, count, datatype, op, comm,
                              request, variant);
}

int gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Gather", variant, comm, request, [=](Call& c) {
    const bool at_root = is_root(c.comm, root);
    const DatatypePtr* st = type_if(c.s, own_block_used(c.comm, root, sendbuf), sendtype, c.where, "sendtype");
    const DatatypePtr* rt = type_if(c.s, at_root, recvtype, c.where, "recvtype");
    return twinfab::mpi::gather(c.s.ctx(), sendbuf, sendcount, or_byte(c.s, st), recvbuf, recvcount,
                                or_byte(c.s, rt), root, c.comm, c.mode);
  });
}

int scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Scatter", variant, comm, request, [=](Call& c) {
    const bool at_root = is_root(c.comm, root);
    const DatatypePtr* st = type_if(c.s, at_root, sendtype, c.where, "sendtype");
    const DatatypePtr* rt = type_if(c.s, own_block_used(c.comm, root, recvbuf), recvtype, c.where, "recvtype");
    return twinfab::mpi::scatter(c.s.ctx(), sendbuf, sendcount, or_byte(c.s, st), recvbuf, recvcount,
                                 or_byte(c.s, rt), root, c.comm, c.mode);
  });
}

/// MPI_Allgather and MPI_Alltoall (and their MPI_I forms): one block per rank from
/// every rank, the same arguments; `run` is the core's allgather or alltoall.
using BlockPerRank = RequestId (*)(Context&, const void*, std::int64_t, const DatatypePtr&, void*, std::int64_t,
                                   const DatatypePtr&, const Communicator&, Mode);
int block_per_rank(const char* blocking, BlockPerRank run, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
                   Variant variant) {
  return collective(blocking, variant, comm, request, [=](Call& c) {
    const DatatypePtr* st = type_if(c.s, sendbuf != MPI_IN_PLACE, sendtype, c.where, "sendtype");
    return run(c.s.ctx(), sendbuf, sendcount, or_byte(c.s, st), recvbuf, recvcount,
               c.s.type(recvtype, c.where, "recvtype"), c.comm, c.mode);
  });
}

int allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return block_per_rank("MPI_Allgather", twinfab::mpi::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm, request, variant);
}

int alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return block_per_rank("MPI_Alltoall", twinfab::mpi::alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm, request, variant);
}

int gatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, ArrayArg recvcounts,
            ArrayArg displs, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request,
            Variant variant = {}) {
  return collective("MPI_Gatherv", variant, comm, request, [=](Call& c) {
    const bool at_root = is_root(c.comm, root);
    const DatatypePtr* st = type_if(c.s, own_block_used(c.comm, root, sendbuf), sendtype, c.where, "sendtype");
    const DatatypePtr* rt = type_if(c.s, at_root, recvtype, c.where, "recvtype");
    std::vector<std::int64_t> counts, offsets;
    if (at_root && (c.comm.is_inter() || (root >= 0 && root < c.comm.size()))) {
      counts = per_rank(recvcounts, c.comm, c.where, "recvcounts");
      offsets = per_rank(displs, c.comm, c.where, "displs");
    }
    return twinfab::mpi::gatherv(c.s.ctx(), sendbuf, sendcount, or_byte(c.s, st), recvbuf, counts, offsets,
                                 or_byte(c.s, rt), root, c.comm, c.mode);
  });
}

int scatterv(const void* sendbuf, ArrayArg sendcounts, ArrayArg displs, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request,
             Variant variant = {}) {
  return collective("MPI_Scatterv", variant, comm, request, [=](Call& c) {
    const bool at_root = is_root(c.comm, root);
    const DatatypePtr* st = type_if(c.s, at_root, sendtype, c.where, "sendtype");
    const DatatypePtr* rt = type_if(c.s, own_block_used(c.comm, root, recvbuf), recvtype, c.where, "recvtype");
    std::vector<std::int64_t> counts, offsets;
    if (at_root) {
      counts = per_rank(sendcounts, c.comm, c.where, "sendcounts");
      offsets = per_rank(displs, c.comm, c.where, "displs");
    }
    return twinfab::mpi::scatterv(c.s.ctx(), sendbuf, counts, offsets, or_byte(c.s, st), recvbuf, recvcount,
                                  or_byte(c.s, rt), root, c.comm, c.mode);
  });
}

int allgatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, ArrayArg recvcounts,
               ArrayArg displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
               Variant variant = {}) {
  return collective("MPI_Allgatherv", variant, comm, request, [=](Call& c) {
    const DatatypePtr* st = type_if(c.s, sendbuf != MPI_IN_PLACE, sendtype, c.where, "sendtype");
    return twinfab::mpi::allgatherv(c.s.ctx(), sendbuf, sendcount, or_byte(c.s, st), recvbuf,
                                    per_rank(recvcounts, c.comm, c.where, "recvcounts"),
                                    per_rank(displs, c.comm, c.where, "displs"),
                                    c.s.type(recvtype, c.where, "recvtype"), c.comm, c.mode);
  });
}

int alltoallv(const void* sendbuf, ArrayArg sendcounts, ArrayArg sdispls, MPI_Datatype sendtype, void* recvbuf,
              ArrayArg recvcounts, ArrayArg rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
              Variant variant = {}) {
  return collective("MPI_Alltoallv", variant, comm, request, [=](Call& c) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const DatatypePtr* st = type_if(c.s, !in_place, sendtype, c.where, "sendtype");
    std::vector<std::int64_t> counts, offsets;
    if (!in_place) {
      counts = per_rank(sendcounts, c.comm, c.where, "sendcounts");
      offsets = per_rank(sdispls, c.comm, c.where, "sdispls");
    }
    return twinfab::mpi::alltoallv(c.s.ctx(), sendbuf, counts, offsets, or_byte(c.s, st), recvbuf,
                                   per_rank(recvcounts, c.comm, c.where, "recvcounts"),
                                   per_rank(rdispls, c.comm, c.where, "rdispls"),
                                   c.s.type(recvtype, c.where, "recvtype"), c.comm, c.mode);
  });
}

int alltoallw(const void* sendbuf, ArrayArg sendcounts, ArrayArg sdispls, const MPI_Datatype sendtypes[],
              void* recvbuf, ArrayArg recvcounts, ArrayArg rdispls, const MPI_Datatype recvtypes[],
              MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Alltoallw", variant, comm, request, [=](Call& c) {
    const auto n = static_cast<std::size_t>(c.comm.peer_count());
    // One datatype per rank, each resolved (MPI_ERR_TYPE naming its index).
    const auto resolve = [&](const MPI_Datatype* handles, const char* arg) {
      require_pointer(handles, c.where, arg);
      std::vector<DatatypePtr> types;
      types.reserve(n);
      for (std::size_t i = 0; i < n; ++i)
        types.push_back(c.s.type(handles[i], c.where, fmt::format("{}[{}]", arg, i).c_str()));
      return types;
    };
    const bool in_place = sendbuf == MPI_IN_PLACE;
    std::vector<std::int64_t> counts, offsets;
    std::vector<DatatypePtr> send_types;
    if (!in_place) {
      counts = per_rank(sendcounts, c.comm, c.where, "sendcounts");
      offsets = per_rank(sdispls, c.comm, c.where, "sdispls");
      send_types = resolve(sendtypes, "sendtypes");
    }
    const std::vector<DatatypePtr> recv_types = resolve(recvtypes, "recvtypes");
    return twinfab::mpi::alltoallw(c.s.ctx(), sendbuf, counts, offsets, send_types, recvbuf,
                                   per_rank(recvcounts, c.comm, c.where, "recvcounts"),
                                   per_rank(rdispls, c.comm, c.where, "rdispls"), recv_types, c.comm, c.mode);
  });
}

int reduce_scatter(const void* sendbuf, void* recvbuf, ArrayArg recvcounts, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Reduce_scatter", variant, comm, request, [=](Call& c) {
    const ReductionOp& reduction = c.op(op, datatype);
    // One count per rank of the (local) group, also on an intercommunicator.
    if (recvcounts.null()) require_pointer(nullptr, c.where, "recvcounts");
    const std::vector<std::int64_t> counts = recvcounts.take(static_cast<std::size_t>(c.comm.size()));
    return twinfab::mpi::reduce_scatter(c.s.ctx(), sendbuf, recvbuf, counts, c.s.type(datatype, c.where), reduction,
                                        c.comm, c.mode, c.where);
  });
}

int reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Reduce_scatter_block", variant, comm, request, [=](Call& c) {
    const ReductionOp& reduction = c.op(op, datatype);
    return twinfab::mpi::reduce_scatter_block(c.s.ctx(), sendbuf, recvbuf, recvcount, c.s.type(datatype, c.where),
                                              reduction, c.comm, c.mode);
  });
}

int scan(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
         MPI_Request* request, Variant variant = {}) {
  return every_rank_reduction("MPI_Scan", twinfab::mpi::scan, sendbuf, recvbuf, count, datatype, op, comm, request,
                              variant);
}

int exscan(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
           MPI_Request* request, Variant variant = {}) {
  return every_rank_reduction("MPI_Exscan", twinfab::mpi::exscan, sendbuf, recvbuf, count, datatype, op, comm, request,
                              variant);
}

// ---- neighbourhood collectives: the per-neighbour arrays have one entry per source
// (receive side) or destination (send side) of the communicator's topology.

/// A per-neighbour array of `count` entries (MPI_ERR_ARG for a null pointer when
/// there is at least one).
std::vector<std::int64_t> per_neighbour(ArrayArg array, int count, const char* where, const char* arg) {
  if (count == 0) return {};
  if (array.null()) require_pointer(nullptr, where, arg);
  return array.take(static_cast<std::size_t>(count));
}

/// One datatype per neighbour, each resolved (MPI_ERR_TYPE naming its index).
std::vector<DatatypePtr> neighbour_types(RankState& s, const MPI_Datatype* handles, MPI_Count count, const char* where,
                                         const char* arg) {
  std::vector<DatatypePtr> types;
  if (count == 0) return types;
  require_pointer(handles, where, arg);
  types.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) types.push_back(s.type(handles[i], where, fmt::format("{}[{}]", arg, i).c_str()));
  return types;
}

int neighbor_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Neighbor_allgather", variant, comm, request, [=](Call& c) {
    neighbour_counts(c.comm, c.where);  // MPI_ERR_TOPOLOGY before the datatypes
    return twinfab::mpi::neighbor_allgather(c.s.ctx(), sendbuf, sendcount, c.s.type(sendtype, c.where, "sendtype"),
                                            recvbuf, recvcount, c.s.type(recvtype, c.where, "recvtype"), c.comm,
                                            c.mode);
  });
}

int neighbor_allgatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        ArrayArg recvcounts, ArrayArg displs, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Neighbor_allgatherv", variant, comm, request, [=](Call& c) {
    const int in = neighbour_counts(c.comm, c.where).first;
    return twinfab::mpi::neighbor_allgatherv(
        c.s.ctx(), sendbuf, sendcount, c.s.type(sendtype, c.where, "sendtype"), recvbuf,
        per_neighbour(recvcounts, in, c.where, "recvcounts"), per_neighbour(displs, in, c.where, "displs"),
        c.s.type(recvtype, c.where, "recvtype"), c.comm, c.mode);
  });
}

int neighbor_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Neighbor_alltoall", variant, comm, request, [=](Call& c) {
    neighbour_counts(c.comm, c.where);
    return twinfab::mpi::neighbor_alltoall(c.s.ctx(), sendbuf, sendcount, c.s.type(sendtype, c.where, "sendtype"),
                                           recvbuf, recvcount, c.s.type(recvtype, c.where, "recvtype"), c.comm,
                                           c.mode);
  });
}

int neighbor_alltoallv(const void* sendbuf, ArrayArg sendcounts, ArrayArg sdispls, MPI_Datatype sendtype,
                       void* recvbuf, ArrayArg recvcounts, ArrayArg rdispls, MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request* request, Variant variant = {}) {
  return collective("MPI_Neighbor_alltoallv", variant, comm, request, [=](Call& c) {
    const auto [in, out] = neighbour_counts(c.comm, c.where);
    return twinfab::mpi::neighbor_alltoallv(
        c.s.ctx(), sendbuf, per_neighbour(sendcounts, out, c.where, "sendcounts"),
        per_neighbour(sdispls, out, c.where, "sdispls"), c.s.type(sendtype, c.where, "sendtype"), recvbuf,
        per_neighbour(recvcounts, in, c.where, "recvcounts"), per_neighbour(rdispls, in, c.where, "rdispls"),
        c.s.type(recvtype, c.where, "recvtype"), c.comm, c.mode);
  });
}


int neighbor_alltoallw(const void* sendbuf, ArrayArg sendcounts, ArrayArg sdispls,
                       const MPI_Datatype sendtypes[], void* recvbuf, ArrayArg recvcounts,
                       ArrayArg rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request,
                       Variant variant = {}) {
  return collective("MPI_Neighbor_alltoallw", variant, comm, request, [=](Call& c) {
    const auto [in, out] = neighbour_counts(c.comm, c.where);
    const std::vector<DatatypePtr> send_types = neighbour_types(c.s, sendtypes, out, c.where, "sendtypes");
    const std::vector<DatatypePtr> recv_types = neighbour_types(c.s, recvtypes, in, c.where, "recvtypes");
    return twinfab::mpi::neighbor_alltoallw(
        c.s.ctx(), sendbuf, per_neighbour(sendcounts, out, c.where, "sendcounts"),
        per_neighbour(sdispls, out, c.where, "sdispls"), send_types, recvbuf,
        per_neighbour(recvcounts, in, c.where, "recvcounts"), per_neighbour(rdispls, in, c.where, "rdispls"),
        recv_types, c.comm, c.mode);
  });
}

}  // namespace

extern "C" {

// ---- blocking

int MPI_Barrier(MPI_Comm comm) { return barrier(comm, nullptr); }

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast(buffer, count, datatype, root, comm, nullptr);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return allreduce(sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, nullptr);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, nullptr);
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nullptr);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  return reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, nullptr);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, nullptr);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return scan(sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return exscan(sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}

// ---- nonblocking (MPI-3.1 §5.12)

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) { return barrier(comm, request, "MPI_Ibarrier"); }

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return bcast(buffer, count, datatype, root, comm, request, "MPI_Ibcast");
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, request, "MPI_Ireduce");
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return allreduce(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iallreduce");
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, "MPI_Igather");
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, "MPI_Iscatter");
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, "MPI_Iallgather");
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, "MPI_Ialltoall");
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request,
                 "MPI_Igatherv");
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                  "MPI_Iscatterv");
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                    "MPI_Iallgatherv");
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request,
                   "MPI_Ialltoallv");
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request* request) {
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request,
                   "MPI_Ialltoallw");
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request, "MPI_Ireduce_scatter");
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request, "MPI_Ireduce_scatter_block");
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  return scan(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iscan");
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  return exscan(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iexscan");
}

// ---- neighbourhood collectives (MPI-3.1 §7.6, §7.7)

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr);
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            nullptr);
}

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            nullptr);
}

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                            "MPI_Ineighbor_allgather");
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                             "MPI_Ineighbor_allgatherv");
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                           "MPI_Ineighbor_alltoall");
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request* request) {
  return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            request, "MPI_Ineighbor_alltoallv");
}

int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            request, "MPI_Ineighbor_alltoallw");
}

// ---- persistent (MPI-4.0 §6.13): MPI_X_init makes an inactive request; each MPI_Start
// runs the collective anew with the arguments given here.

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return barrier(comm, request, Variant::persistent("MPI_Barrier_init", info));
}

int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request* request) {
  return bcast(buffer, count, datatype, root, comm, request, Variant::persistent("MPI_Bcast_init", info));
}

int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, request,
                Variant::persistent("MPI_Reduce_init", info));
}

int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request* request) {
  return allreduce(sendbuf, recvbuf, count, datatype, op, comm, request,
                   Variant::persistent("MPI_Allreduce_init", info));
}

int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                Variant::persistent("MPI_Gather_init", info));
}

int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                 Variant::persistent("MPI_Scatter_init", info));
}

int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                   Variant::persistent("MPI_Allgather_init", info));
}

int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                  Variant::persistent("MPI_Alltoall_init", info));
}

int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
  return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request,
                 Variant::persistent("MPI_Gatherv_init", info));
}

int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                  Variant::persistent("MPI_Scatterv_init", info));
}

int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
  return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                    Variant::persistent("MPI_Allgatherv_init", info));
}

int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request,
                   Variant::persistent("MPI_Alltoallv_init", info));
}

int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                       const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request,
                   Variant::persistent("MPI_Alltoallw_init", info));
}

int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request,
                        Variant::persistent("MPI_Reduce_scatter_init", info));
}

int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request,
                              Variant::persistent("MPI_Reduce_scatter_block_init", info));
}

int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request* request) {
  return scan(sendbuf, recvbuf, count, datatype, op, comm, request, Variant::persistent("MPI_Scan_init", info));
}

int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request* request) {
  return exscan(sendbuf, recvbuf, count, datatype, op, comm, request, Variant::persistent("MPI_Exscan_init", info));
}

int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  return neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                            Variant::persistent("MPI_Neighbor_allgather_init", info));
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                             Variant::persistent("MPI_Neighbor_allgatherv_init", info));
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  return neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                           Variant::persistent("MPI_Neighbor_alltoall_init", info));
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            request, Variant::persistent("MPI_Neighbor_alltoallv_init", info));
}

int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            request, Variant::persistent("MPI_Neighbor_alltoallw_init", info));
}

// ---- large counts (MPI-4.0 §5.2.2): the same bodies with MPI_Count counts and
// MPI_Aint displacements.

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast(buffer, count, datatype, root, comm, nullptr, Variant::blocking("MPI_Bcast_c"));
}

int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm) {
  return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr, Variant::blocking("MPI_Reduce_c"));
}

int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  return allreduce(sendbuf, recvbuf, count, datatype, op, comm, nullptr, Variant::blocking("MPI_Allreduce_c"));
}

int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr,
                Variant::blocking("MPI_Gather_c"));
}

int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr,
                 Variant::blocking("MPI_Scatter_c"));
}

int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                   Variant::blocking("MPI_Allgather_c"));
}

int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                  Variant::blocking("MPI_Alltoall_c"));
}

int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, nullptr,
                 Variant::blocking("MPI_Gatherv_c"));
}

int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr,
                  Variant::blocking("MPI_Scatterv_c"));
}

int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr,
                    Variant::blocking("MPI_Allgatherv_c"));
}

int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm) {
  return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, nullptr,
                   Variant::blocking("MPI_Alltoallv_c"));
}

int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nullptr,
                   Variant::blocking("MPI_Alltoallw_c"));
}

int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  return reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, nullptr,
                        Variant::blocking("MPI_Reduce_scatter_c"));
}

int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, nullptr,
                              Variant::blocking("MPI_Reduce_scatter_block_c"));
}

int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return scan(sendbuf, recvbuf, count, datatype, op, comm, nullptr, Variant::blocking("MPI_Scan_c"));
}

int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return exscan(sendbuf, recvbuf, count, datatype, op, comm, nullptr, Variant::blocking("MPI_Exscan_c"));
}

int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return bcast(buffer, count, datatype, root, comm, request, "MPI_Ibcast_c");
}

int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm, MPI_Request* request) {
  return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, request, "MPI_Ireduce_c");
}

int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Request* request) {
  return allreduce(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iallreduce_c");
}

int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, "MPI_Igather_c");
}

int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, "MPI_Iscatter_c");
}

int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, "MPI_Iallgather_c");
}

int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, "MPI_Ialltoall_c");
}

int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request* request) {
  return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request,
                 "MPI_Igatherv_c");
}

int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                  "MPI_Iscatterv_c");
}

int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                    "MPI_Iallgatherv_c");
}

int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request* request) {
  return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request,
                   "MPI_Ialltoallv_c");
}

int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request,
                   "MPI_Ialltoallw_c");
}

int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request, "MPI_Ireduce_scatter_c");
}

int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request, "MPI_Ireduce_scatter_block_c");
}

int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  return scan(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iscan_c");
}

int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Request* request) {
  return exscan(sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iexscan_c");
}

int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                            Variant::blocking("MPI_Neighbor_allgather_c"));
}

int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr,
                             Variant::blocking("MPI_Neighbor_allgatherv_c"));
}

int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                           Variant::blocking("MPI_Neighbor_alltoall_c"));
}

int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            nullptr, Variant::blocking("MPI_Neighbor_alltoallv_c"));
}

int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            nullptr, Variant::blocking("MPI_Neighbor_alltoallw_c"));
}

int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                            "MPI_Ineighbor_allgather_c");
}

int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                             "MPI_Ineighbor_allgatherv_c");
}

int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                           "MPI_Ineighbor_alltoall_c");
}

int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            request, "MPI_Ineighbor_alltoallv_c");
}

int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                              MPI_Request* request) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            request, "MPI_Ineighbor_alltoallw_c");
}

int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
  return bcast(buffer, count, datatype, root, comm, request, Variant::persistent("MPI_Bcast_init_c", info));
}

int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, request,
                Variant::persistent("MPI_Reduce_init_c", info));
}

int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allreduce(sendbuf, recvbuf, count, datatype, op, comm, request,
                   Variant::persistent("MPI_Allreduce_init_c", info));
}

int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                Variant::persistent("MPI_Gather_init_c", info));
}

int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                 Variant::persistent("MPI_Scatter_init_c", info));
}

int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                   Variant::persistent("MPI_Allgather_init_c", info));
}

int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                  Variant::persistent("MPI_Alltoall_init_c", info));
}

int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request,
                 Variant::persistent("MPI_Gatherv_init_c", info));
}

int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                  Variant::persistent("MPI_Scatterv_init_c", info));
}

int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request* request) {
  return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                    Variant::persistent("MPI_Allgatherv_init_c", info));
}

int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                         MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request,
                   Variant::persistent("MPI_Alltoallv_init_c", info));
}

int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request,
                   Variant::persistent("MPI_Alltoallw_init_c", info));
}

int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request,
                        Variant::persistent("MPI_Reduce_scatter_init_c", info));
}

int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request,
                              Variant::persistent("MPI_Reduce_scatter_block_init_c", info));
}

int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scan(sendbuf, recvbuf, count, datatype, op, comm, request, Variant::persistent("MPI_Scan_init_c", info));
}

int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return exscan(sendbuf, recvbuf, count, datatype, op, comm, request, Variant::persistent("MPI_Exscan_init_c", info));
}

int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  return neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                            Variant::persistent("MPI_Neighbor_allgather_init_c", info));
}

int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,
                             Variant::persistent("MPI_Neighbor_allgatherv_init_c", info));
}

int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  return neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                           Variant::persistent("MPI_Neighbor_alltoall_init_c", info));
}

int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            request, Variant::persistent("MPI_Neighbor_alltoallv_init_c", info));
}

int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request) {
  return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            request, Variant::persistent("MPI_Neighbor_alltoallw_init_c", info));
}
}  // extern "C"
