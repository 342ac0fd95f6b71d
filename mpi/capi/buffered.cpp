// MPI C API: buffered sends (MPI_Buffer_attach, MPI_Buffer_detach, MPI_Bsend,
// MPI_Ibsend) and ready sends (MPI_Rsend, MPI_Irsend).
//
// A buffered send packs the message into the attached buffer and starts an ordinary
// send from that copy, whose request the rank keeps (BsendBuffer in rank_state.hpp):
// MPI_Bsend returns once the data is copied, whatever the receiver does, which is
// what the mode promises (a large message goes by rendezvous from the copy later);
// MPI_Ibsend's request is complete then too, as in MPICH.
// Ready mode only promises that the receive is already posted: a standard send is a
// correct implementation, as in MPICH and Open MPI.
#include <fmt/format.h>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace twinfab::mpi::capi {

void RankState::drain_bsends() {
  while (!bsend.active.empty()) {
    RequestId id = bsend.active.front().request;
    bsend.active.pop_front();
    context->wait(id);
  }
}

}  // namespace twinfab::mpi::capi

namespace {

/// How long MPI_Bsend lets messages already in the buffer finish before it reports
/// that the buffer is full (simulated time in the simulator).
constexpr double kBsendGraceSeconds = 1e-3;

/// Forgets the buffered sends that have left (their space is free again).
void reap_bsends(RankState& s) {
  auto& active = s.bsend.active;
  for (auto it = active.begin(); it != active.end();) {
    if (s.ctx().is_done(it->request)) {
      RequestId id = it->request;
      s.ctx().wait(id);  // done: releases the request at once
      it = active.erase(it);
    } else {
      ++it;
    }
  }
}

/// Where `bytes` fit in the buffer: after the newest segment, or before the oldest
/// one once the space after it is used up; nothing if neither has room.
bool find_space(const BsendBuffer& b, std::size_t bytes, std::size_t& offset) {
  if (b.active.empty()) {
    offset = 0;
    return bytes <= b.size;
  }
  const std::size_t first = b.active.front().offset;
  const std::size_t end = b.active.back().offset + b.active.back().bytes;
  if (end > first) {  // the segments do not wrap: room after them, or at the start
    if (b.size - end >= bytes) {
      offset = end;
      return true;
    }
    offset = 0;
    return first >= bytes;
  }
  offset = end;  // wrapped: the room between the newest and the oldest
  return first - end >= bytes;
}

}  // namespace

namespace twinfab::mpi::capi {

void buffered_send(RankState& s, const char* where, const void* buf, MPI_Count count, const DatatypePtr& t, int dest,
                   int tag, const Communicator& c) {
  s.ctx().check_send(where, buf, count, t, dest, tag, c);
  const std::uint64_t packed = static_cast<std::uint64_t>(count * t->size());
  if (dest == kProcNull) return;
  if (!s.bsend.attached)
    throw Error(ErrorClass::MPI_ERR_BUFFER, where, "no buffer attached (MPI_Buffer_attach)");
  const std::size_t bytes = packed + MPI_BSEND_OVERHEAD;
  std::size_t offset = 0;
  reap_bsends(s);
  // No room: earlier messages may be on their way out (their receives matched, the
  // data moving); give them up to kBsendGraceSeconds of progress. What still holds
  // space after that waits for a receiver, and the standard makes that an error.
  const double deadline = s.ctx().runtime().now() + kBsendGraceSeconds;
  while (!find_space(s.bsend, bytes, offset)) {
    if (s.bsend.active.empty() || s.ctx().runtime().now() >= deadline)
      throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(count={})", where, count),
                  fmt::format("not enough space in the attached buffer: the message needs {} bytes ({} + "
                              "MPI_BSEND_OVERHEAD), the buffer has {} bytes of which {} messages still use some",
                              bytes, packed, s.bsend.size, s.bsend.active.size()));
    s.ctx().progress_or_wait(deadline);
    reap_bsends(s);
  }
  std::byte* copy = s.bsend.base + offset;
  if (packed > 0) pack(buf, count, *t, 0, {copy, static_cast<std::size_t>(packed)}, where);
  const RequestId id = s.ctx().isend(copy, static_cast<std::int64_t>(packed), s.ctx().datatype(BasicKind::Byte),
                                     dest, tag, c, SendMode::Standard, where);
  s.bsend.active.push_back({offset, bytes, id});
}

}  // namespace twinfab::mpi::capi

namespace {

int buffer_attach(const char* where, void* buffer, MPI_Count size) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    if (s.bsend.attached)
      throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(buffer)", where),
                  "a buffer is already attached; detach it first (one buffer per process)");
    if (size < 0) throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(size={})", where, size), "must not be negative");
    if (buffer == nullptr && size > 0)
      throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(buffer)", where), "null buffer with a non-zero size");
    s.bsend.base = static_cast<std::byte*>(buffer);
    s.bsend.size = static_cast<std::size_t>(size);
    s.bsend.attached = true;
    return MPI_SUCCESS;
  });
}

int buffer_detach(const char* where, void* buffer_addr, MPI_Count* size) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(buffer_addr, where, "buffer_addr");
    require_pointer(size, where, "size");
    // Blocks until every message in the buffer has been delivered (MPI 3.1, 3.6).
    s.drain_bsends();
    *static_cast<void**>(buffer_addr) = s.bsend.attached ? s.bsend.base : nullptr;
    *size = s.bsend.attached ? static_cast<MPI_Count>(s.bsend.size) : 0;
    s.bsend = BsendBuffer{};
    return MPI_SUCCESS;
  });
}

int bsend(const char* where, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
          MPI_Comm comm) {
  return entry(where, comm, [&](RankState& s) {
    buffered_send(s, where, buf, count, s.type(datatype, where), dest, tag, s.comm(comm, where));
    return MPI_SUCCESS;
  });
}

int ibsend(const char* where, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request* request) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(request, where, "request");
    buffered_send(s, where, buf, count, t, dest, tag, c);
    *request = s.add_request(s.ctx().completed_send(), comm, where);
    return MPI_SUCCESS;
  });
}

int rsend(const char* where, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
          MPI_Comm comm) {
  return entry(where, comm, [&](RankState& s) {
    s.ctx().send(buf, count, s.type(datatype, where), dest, tag, s.comm(comm, where), SendMode::Standard, where);
    s.reap_detached(false);
    return MPI_SUCCESS;
  });
}

int irsend(const char* where, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
           MPI_Request* request) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(request, where, "request");
    *request = s.add_request(s.ctx().isend(buf, count, t, dest, tag, c, SendMode::Standard, where), comm, where);
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int MPI_Buffer_attach(void* buffer, int size) { return buffer_attach("MPI_Buffer_attach", buffer, size); }

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  MPI_Count detached = 0;
  const int rc = buffer_detach("MPI_Buffer_detach", buffer_addr, size == nullptr ? nullptr : &detached);
  // The attached size came in as an int.
  if (rc == MPI_SUCCESS) *size = static_cast<int>(detached);
  return rc;
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return bsend("MPI_Bsend", buf, count, datatype, dest, tag, comm);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return ibsend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return rsend("MPI_Rsend", buf, count, datatype, dest, tag, comm);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return irsend("MPI_Irsend", buf, count, datatype, dest, tag, comm, request);
}

// ---- large counts (MPI-4.0 §5.2.2)

int MPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return bsend("MPI_Bsend_c", buf, count, datatype, dest, tag, comm);
}

int MPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return ibsend("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request);
}

int MPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return rsend("MPI_Rsend_c", buf, count, datatype, dest, tag, comm);
}

int MPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return irsend("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, request);
}

int MPI_Buffer_attach_c(void* buffer, MPI_Count size) { return buffer_attach("MPI_Buffer_attach_c", buffer, size); }

int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size);
}

}  // extern "C"
