// MPI C API: persistent requests. MPI_Send_init / MPI_Ssend_init / MPI_Bsend_init /
// MPI_Rsend_init (a standard send, as MPI_Rsend) / MPI_Recv_init make
// an inactive request that remembers its arguments; MPI_Start / MPI_Startall begin
// one transfer with them; the wait or test that completes it leaves the request
// inactive (its handle stays valid) instead of freeing it; MPI_Request_free ends it.
// An inactive persistent request behaves as MPI_REQUEST_NULL in waits and tests.
// The persistent collectives (MPI_Bcast_init, ..., collectives.cpp) are persistent
// requests too: MPI_Start runs the collective's nonblocking form with the arguments of
// the init call.
#include <fmt/format.h>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

int make_persistent(const char* where, PersistentOp::Kind kind, void* buf, MPI_Count count, MPI_Datatype datatype,
                    int peer, int tag, MPI_Comm comm, MPI_Request* request) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(request, where, "request");
    check_buffer_type(count, t.get(), where);
    // Rank and tag are checked as a point-to-point call checks them, at each MPI_Start;
    // checking them here too reports the mistake where it was made.
    const bool recv = kind == PersistentOp::Kind::Recv;
    if (peer != kProcNull && !(recv && peer == kAnySource) && (peer < 0 || peer >= c.peer_count()))
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}({}={})", where, recv ? "source" : "dest", peer),
                  fmt::format("invalid rank; {} has {} ranks", c.is_inter() ? "the remote group" : "communicator",
                              c.peer_count()));
    if (!(recv && tag == kAnyTag) && (tag < 0 || tag > kTagUpperBound))
      throw Error(ErrorClass::MPI_ERR_TAG, fmt::format("{}(tag={})", where, tag),
                  fmt::format("invalid tag; must be in [0, {}]", kTagUpperBound));
    *request = s.add_persistent(PersistentOp{kind, buf, count, t, peer, tag, comm, {}}, where);
    return MPI_SUCCESS;
  });
}

/// Begins the transfer of the inactive persistent request `handle`.
void start(RankState& s, MPI_Request handle, const char* where) {
  RequestEntry& e = s.persistent(handle, where);
  if (e.id != kRequestNull)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(request)", where),
                "the request is already active; complete it (MPI_Wait, MPI_Test, ...) before starting it again");
  const PersistentOp& op = *e.persistent;
  const Communicator& c = s.comm(op.comm, where);
  switch (op.kind) {
    case PersistentOp::Kind::Recv:
      e.id = s.ctx().irecv(op.buffer, op.count, op.type, op.peer, op.tag, c, where);
      break;
    case PersistentOp::Kind::Ssend:
      e.id = s.ctx().isend(op.buffer, op.count, op.type, op.peer, op.tag, c, SendMode::Synchronous, where);
      break;
    case PersistentOp::Kind::Send:
      e.id = s.ctx().isend(op.buffer, op.count, op.type, op.peer, op.tag, c, SendMode::Standard, where);
      break;
    case PersistentOp::Kind::Bsend:
      // Into the attached buffer now (MPI_ERR_BUFFER from MPI_Start if there is none
      // or it is full); the request is complete once the message is copied.
      buffered_send(s, where, op.buffer, op.count, op.type, op.peer, op.tag, c);
      e.id = s.ctx().completed_send();
      break;
    case PersistentOp::Kind::Collective:
      // A new schedule each time (the communicator's next nonblocking sequence number);
      // the request is a collective's until it completes.
      e.id = op.start_collective(s, c, e.kept);
      e.collective = true;
      break;
  }
}

}  // namespace

extern "C" {

int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return make_persistent("MPI_Send_init", PersistentOp::Kind::Send, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_persistent("MPI_Ssend_init", PersistentOp::Kind::Ssend, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_persistent("MPI_Bsend_init", PersistentOp::Kind::Bsend, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_persistent("MPI_Rsend_init", PersistentOp::Kind::Send, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return make_persistent("MPI_Recv_init", PersistentOp::Kind::Recv, buf, count, datatype, source, tag, comm,
                         request);
}

int MPI_Start(MPI_Request* request) {
  const MPI_Comm comm = [&] {
    RankState* s = current_state();
    if (s == nullptr || !s->active() || request == nullptr) return MPI_COMM_WORLD;
    try {
      return s->persistent(*request, "MPI_Start").comm;
    } catch (const Error&) {
      return MPI_COMM_WORLD;
    }
  }();
  return entry("MPI_Start", comm, [&](RankState& s) {
    require_pointer(request, "MPI_Start", "request");
    start(s, *request, "MPI_Start");
    return MPI_SUCCESS;
  });
}

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  return entry("MPI_Startall", MPI_COMM_WORLD, [&](RankState& s) {
    if (count < 0)
      throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("MPI_Startall(count={})", count), "must not be negative");
    if (count > 0) require_pointer(array_of_requests, "MPI_Startall", "array_of_requests");
    // All checked before any starts: MPI_Startall starts all or none.
    for (int i = 0; i < count; ++i) {
      RequestEntry& e = s.persistent(array_of_requests[i], "MPI_Startall");
      if (e.id != kRequestNull)
        throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("MPI_Startall(array_of_requests[{}])", i),
                    "the request is already active");
    }
    for (int i = 0; i < count; ++i) start(s, array_of_requests[i], "MPI_Startall");
    return MPI_SUCCESS;
  });
}

// ---- large counts (MPI-4.0 §5.2.2)

int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return make_persistent("MPI_Send_init_c", PersistentOp::Kind::Send, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return make_persistent("MPI_Ssend_init_c", PersistentOp::Kind::Ssend, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return make_persistent("MPI_Bsend_init_c", PersistentOp::Kind::Bsend, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return make_persistent("MPI_Rsend_init_c", PersistentOp::Kind::Send, const_cast<void*>(buf), count, datatype, dest,
                         tag, comm, request);
}

int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return make_persistent("MPI_Recv_init_c", PersistentOp::Kind::Recv, buf, count, datatype, source, tag, comm, request);
}

}  // extern "C"
