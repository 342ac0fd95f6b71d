// twinfab MPI one-sided: the engine's side of the thread-based lock designs (seed 001
// §4.2; lock_service.hpp has the protocol): starting a window's lock service at
// creation, and MPI_Win_lock/unlock through it.
#include <fmt/format.h>

#include <algorithm>

#include "mpi/coll/collectives.hpp"
#include "mpi/rma/control_word.hpp"
#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

void RmaEngine::start_lock_service(Window& window, const char* where) {
  const int n = window.comm->size();
  const int me = window.rank();
  std::vector<LockService::Peer> peers(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) {
    const PeerWindow& peer = window.peers[static_cast<std::size_t>(p)];
    LockService::Peer& out = peers[static_cast<std::size_t>(p)];
    out.grant_addr = peer.control + window.layout.lock_grant(me) * sizeof(std::uint64_t);
    out.probe_addr = peer.control;
    out.rkey = peer.control_rkey;
    out.world_rank = window.comm->world_rank(p);
  }
  auto service = std::make_unique<LockService>(context_.device(), window.lock_design, me, std::move(peers),
                                               &window.control()[window.layout.lock_grant(me)],
                                               &counters_.lock_messages);
  // Everyone's QP addresses, padded to the longest blob (they are length-prefixed).
  std::vector<std::byte> mine = service->local_addresses();
  std::int64_t longest = static_cast<std::int64_t>(mine.size());
  allreduce(context_, kInPlace, &longest, 1, context_.datatype(BasicKind::Int64), Op::Max, *window.comm);
  mine.resize(static_cast<std::size_t>(longest));
  std::vector<std::byte> all(static_cast<std::size_t>(longest) * static_cast<std::size_t>(n));
  const DatatypePtr& bytes = context_.datatype(BasicKind::Byte);
  allgather(context_, mine.data(), longest, bytes, all.data(), longest, bytes, *window.comm);
  std::vector<std::vector<std::byte>> addresses(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p)
    addresses[static_cast<std::size_t>(p)].assign(all.begin() + p * longest, all.begin() + (p + 1) * longest);
  service->connect(addresses, where);
  barrier(context_, *window.comm);  // every receive is posted before anyone sends
  service->start(where);
  window.lock_service = std::move(service);
}

void RmaEngine::service_acquire(Window& window, int target, LockType type, const char* where) {
  LockService& service = *window.lock_service;
  ++counters_.lock_attempts;
  const std::uint64_t sequence = service.request(target, type, where);
  const std::uint64_t& grant = window.control()[window.layout.lock_grant(target)];
  fabric::Runtime& runtime = context_.runtime();
  const double since = runtime.now();
  while (load_control(grant) < sequence) {
    service.check(target, since, where);
    // A remote agent's grant is an RDMA write, which ends the wait; the rank's own
    // agent stores it, which the simulator cannot see, so that one is polled for.
    const double deadline = runtime.now() + (target == window.rank() ? LockService::kSelfGrantPoll
                                                                      : LockService::kLivenessInterval);
    context_.progress_or_wait_for_memory(deadline);
  }
  if (target != window.rank()) service.grant_seen();
}

void RmaEngine::service_release(Window& window, int target, const char* where) {
  // Releasing the lock on this rank's own window may grant it to waiting origins: the
  // rank tells them itself, through its Context.
  for (const LockTable::Grant& g : window.lock_service->release(target, where)) {
    write_counter(window, g.origin, window.layout.lock_grant(window.rank()), g.sequence,
                  ControlLayout::kStageMcsFlag);
    if (g.origin != window.rank()) window.lock_service->count_message();
  }
}

}  // namespace twinfab::mpi::rma
