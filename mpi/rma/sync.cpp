// twinfab MPI one-sided: completion and active-target synchronization (MPI-3.1
// §11.5.1-2): flush, fence, and post/start/complete/wait with the RDMA-written
// counters of seed 001 §3.3.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "mpi/coll/collectives.hpp"
#include "mpi/rma/control_word.hpp"
#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

void RmaEngine::raise_target_error(Window& window, int target, const char* where) {
  TargetState& state = window.target(target);
  if (state.error == ErrorClass::MPI_SUCCESS) return;
  const ErrorClass error = state.error;
  state.error = ErrorClass::MPI_SUCCESS;
  throw Error(error, fmt::format("{}(target_rank={})", where, target),
              error == ErrorClass::MPI_ERR_RMA_RANGE
                  ? "an earlier operation addressed memory not attached to the target's dynamic window; it was "
                    "not applied"
                  : "an earlier operation to this target failed at the device");
}

void RmaEngine::request_flush(Window& window, int target) {
  TargetState& state = window.target(target);
  if (state.unflushed_messages == 0) return;
  ControlHeader h;
  h.kind = MessageKind::FlushRequest;
  h.sequence = ++state.flushes_sent;
  state.unflushed_messages = 0;
  send_control(window, target, h, true);
}

void RmaEngine::check_rank(const Window& window, int rank, const char* where) {
  const int n = window.comm->size();
  if (rank < 0 || rank >= n)
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(rank={})", where, rank),
                fmt::format("invalid rank; the window's group has {} ranks", n));
}

void RmaEngine::confirm_placement(Window& window, int target) {
  TargetState& state = window.target(target);
  if (state.writes_unconfirmed == 0) return;
  state.writes_unconfirmed = 0;
  // Only the designs whose unlock travels apart from the data (the lock service's own
  // QP): with the other designs on siw the read made MPICH's contention_putget fail
  // (a flushed channel QP, 4 of 4 runs; cause not found yet, docs/rma.md).
  if (target == window.rank() || !window.lock_service || context_.capabilities().link != fabric::LinkKind::IWarp)
    return;
  if (!placement_region_)
    placement_region_ = context_.device().register_memory(&placement_sink_, sizeof placement_sink_,
                                                          fabric::Access::LocalWrite);
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(target)];
  RdmaOp op;
  op.kind = RdmaOp::Kind::Read;
  op.local = placement_region_->sge(0, sizeof placement_sink_);
  op.remote_addr = peer.control;
  op.rkey = peer.control_rkey;
  RdmaInFlight entry;
  entry.window = window.id;
  entry.target = target;
  op.cookie = new_cookie(std::move(entry));
  ++state.rdma_in_flight;
  context_.post_rdma(window.comm->world_rank(target), op);
}

void RmaEngine::complete_target(Window& window, int target, bool local, const char* where) {
  TargetState& state = window.target(target);
  if (!local) {
    request_flush(window, target);
    confirm_placement(window, target);
  }
  for (bool waited = false;; waited = true) {
    reap_target(state, false);
    const std::uint32_t rdma_waited = local ? state.rdma_in_flight - state.rdma_inline_in_flight : state.rdma_in_flight;
    if (state.requests.empty() && rdma_waited == 0 && (local || state.flushes_acked >= state.flushes_sent)) {
      // Nothing to wait for (operations on this rank itself are done at once): still a
      // poll, as MPI_Test's, so that a program flushing in a loop while it waits for
      // another rank lets that rank run and, in the simulator, time pass.
      if (!waited) idle_poll(false);
      break;
    }
    context_.progress_or_wait();
  }
  raise_target_error(window, target, where);
}

void RmaEngine::complete_all(Window& window, bool local, const char* where) {
  // Ask every target first, then wait: the round trips overlap.
  std::vector<int> ranks;
  for (auto& [rank, state] : window.targets) ranks.push_back(rank);
  std::sort(ranks.begin(), ranks.end());
  if (!local) {
    for (int rank : ranks) request_flush(window, rank);
  }
  for (int rank : ranks) complete_target(window, rank, local, where);
}

void RmaEngine::flush(Window& window, int target, bool local, const char* where) {
  if (target == kProcNull) return;
  check_rank(window, target, where);
  const TargetState* state = window.find_target(target);
  const bool locked = state != nullptr && state->lock != TargetState::Lock::None;
  if (!locked && !window.epoch.lock_all)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(rank={})", where, target),
                "flush needs a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) to this target");
  complete_target(window, target, local, where);
}

void RmaEngine::flush_all(Window& window, bool local, const char* where) {
  if (window.epoch.locks_held == 0 && !window.epoch.lock_all)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "flush needs a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all)");
  complete_all(window, local, where);
}

void RmaEngine::sync(Window&, const char*) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // Programs poll a flag in a shared window with MPI_Win_sync in a loop: let the rank
  // that will write it run (and simulated time pass) as a failed MPI_Test does.
  idle_poll(true);
}

void RmaEngine::idle_poll(bool memory) {
  // What one unsuccessful MPI_Test costs (mpi/capi/pt2pt.cpp): 100 ns of waiting for
  // an event.
  constexpr double kIdlePollSeconds = 100e-9;
  const double until = context_.runtime().now() + kIdlePollSeconds;
  if (memory)
    context_.progress_or_wait_for_memory(until);
  else
    context_.progress_or_wait(until);
}

void RmaEngine::fence(Window& window, int assertions, const char* where) {
  EpochState& e = window.epoch;
  if (e.started || e.posted || e.locks_held > 0 || e.lock_all)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "a fence cannot end a PSCW or passive-target epoch (close it with MPI_Win_complete, MPI_Win_wait "
                "or MPI_Win_unlock first)");
  // Assertions are the program's promises; this fence completes whatever it has (a
  // wrong MPI_MODE_NOPRECEDE costs nothing here), as MPICH does. Only NOSUCCEED matters.
  complete_all(window, false, where);
  // Everyone's operations are complete at their targets once everyone got here.
  barrier(context_, *window.comm);
  e.fence = (assertions & assertion::kNoSucceed) == 0;  // NOSUCCEED: no access epoch follows
  e.fence_had_ops = false;
  ++counters_.fences;
}

std::vector<int> RmaEngine::group_ranks(const Window& window, const GroupPtr& group, const char* where) const {
  if (!group) throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}(group)", where), "null group");
  std::vector<int> ranks;
  const std::vector<int> world = window.comm->world_ranks();
  for (int member : group->world_ranks()) {
    auto it = std::find(world.begin(), world.end(), member);
    if (it == world.end())
      throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}(group)", where),
                  fmt::format("process {} of MPI_COMM_WORLD is not in the window's group", member));
    ranks.push_back(static_cast<int>(it - world.begin()));
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

void RmaEngine::write_counter(Window& window, int peer, std::size_t word, std::uint64_t value, int which) {
  if (peer == window.rank()) {
    store_control(window.control()[word], value);
    return;
  }
  const std::size_t staging = window.layout.staging(peer, which);
  window.control()[staging] = value;
  const PeerWindow& remote = window.peers[static_cast<std::size_t>(peer)];
  RdmaOp op;
  op.kind = RdmaOp::Kind::Write;
  op.local = window.control_region->sge(staging * sizeof(std::uint64_t), sizeof(std::uint64_t));
  op.remote_addr = remote.control + word * sizeof(std::uint64_t);
  op.rkey = remote.control_rkey;
  op.inline_data = sizeof(std::uint64_t) <= context_.max_inline_write();
  RdmaInFlight entry;
  entry.window = window.id;
  entry.target = peer;
  entry.inline_data = op.inline_data;
  op.cookie = new_cookie(std::move(entry));
  TargetState& state = window.target(peer);
  ++state.rdma_in_flight;
  if (op.inline_data) ++state.rdma_inline_in_flight;
  ++counters_.rdma_writes;
  context_.post_rdma(window.comm->world_rank(peer), op);
}

bool RmaEngine::completed(Window& window, int origin, std::uint64_t wanted) {
  // The epochs `origin` ended by its RDMA-written counter plus those it ended by a
  // Completed message (complete()).
  return load_control(window.control()[window.layout.complete_count(origin)]) + window.completes_received[origin] >=
         wanted;
}

void RmaEngine::post(Window& window, const GroupPtr& group, int assertions, const char* where) {
  (void)assertions;  // NOCHECK/NOSTORE/NOPUT only allow optimizations
  if (window.epoch.posted)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "an exposure epoch of MPI_Win_post is already open (MPI_Win_wait first)");
  if (window.epoch.fence && window.epoch.fence_had_ops)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "a fence epoch with operations is open (end it with MPI_Win_fence(MPI_MODE_NOSUCCEED))");
  window.epoch.fence = false;
  const std::vector<int> origins = group_ranks(window, group, where);
  // The window's memory must not change under the origins' feet before they were told:
  // writes this rank made are visible before the flag (release in write_counter).
  std::atomic_thread_fence(std::memory_order_release);
  for (int origin : origins) {
    const std::uint64_t count = ++window.posts_sent[origin];
    if (window.design == RmaDesign::SendRecv && origin != window.rank()) {
      ControlHeader h;
      h.kind = MessageKind::Posted;
      send_control(window, origin, h, true);
    } else {
      write_counter(window, origin, window.layout.post_count(window.rank()), count, ControlLayout::kStagePost);
    }
  }
  window.epoch.posted = true;
  window.epoch.post_group = origins;
}

void RmaEngine::start(Window& window, const GroupPtr& group, int assertions, const char* where) {
  if (window.epoch.started)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "an access epoch of MPI_Win_start is already open (MPI_Win_complete first)");
  if (window.epoch.lock_all || window.epoch.locks_held > 0)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "a passive-target epoch is open on this window");
  if (window.epoch.fence && window.epoch.fence_had_ops)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "a fence epoch with operations is open (end it with MPI_Win_fence(MPI_MODE_NOSUCCEED))");
  window.epoch.fence = false;
  const std::vector<int> targets = group_ranks(window, group, where);
  // Communication starts once each target posted (seed 001 §3.3): wait for their flags.
  for (int target : targets) {
    const std::uint64_t wanted = ++window.posts_seen[target];
    if ((assertions & assertion::kNoCheck) != 0) continue;
    if (window.design == RmaDesign::SendRecv && target != window.rank()) {
      wait_until([&] { return window.posts_received[target] >= wanted; });
      continue;
    }
    const std::uint64_t& flag = window.control()[window.layout.post_count(target)];
    wait_until([&] { return load_control(flag) >= wanted; });
  }
  window.epoch.started = true;
  window.epoch.start_group = targets;
}

void RmaEngine::complete(Window& window, const char* where) {
  if (!window.epoch.started)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "no access epoch of MPI_Win_start is open");
  // Each target learns that the epoch ended in one of two ways; it counts both
  // (completed()):
  //  - a Completed message, where operations went to it as messages (always in the
  //    send/receive design, seed 001's baseline): the target applies it in order behind
  //    them, so no round trip is needed first;
  //  - otherwise the RDMA-written counter of seed 001 §3.3, right behind the data where
  //    the device places one QP's writes in order;
  //  - or, with TWINFAB_RMA_PIGGYBACK, the flag of a held last put (send_held_put).
  // Without in-order placement (iWARP), RDMA data must be complete at the target before
  // either leaves.
  const bool in_order = context_.capabilities().in_order_placement;
  for (int target : window.epoch.start_group) {
    TargetState& state = window.target(target);
    if (target != window.rank() && !in_order) wait_until([&] { return state.rdma_in_flight == 0; });
    if (state.held_put) {  // the epoch's last operation carries its end (TWINFAB_RMA_PIGGYBACK)
      send_held_put(window, target, true);
      state.unflushed_messages = 0;
      continue;
    }
    const bool by_message = target != window.rank() && (window.design == RmaDesign::SendRecv ||
                                                        state.unflushed_messages > 0 || !state.requests.empty());
    if (by_message) {
      ControlHeader h;
      h.kind = MessageKind::Completed;
      send_control(window, target, h, true);
      state.unflushed_messages = 0;
    } else {
      write_counter(window, target, window.layout.complete_count(window.rank()), ++window.completes_sent[target], ControlLayout::kStageComplete);
    }
  }
  // Complete at the origin: buffers reusable, results arrived.
  for (int target : window.epoch.start_group) complete_target(window, target, true, where);
  window.epoch.started = false;
  window.epoch.start_group.clear();
}

void RmaEngine::wait(Window& window, const char* where) {
  if (!window.epoch.posted)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "no exposure epoch of MPI_Win_post is open");
  for (int origin : window.epoch.post_group) {
    const std::uint64_t wanted = ++window.completes_seen[origin];
    wait_until([&] { return completed(window, origin, wanted); });
  }
  // The post flags this rank wrote must have left before the epoch's end lets the
  // staging words be reused.
  for (int origin : window.epoch.post_group) complete_target(window, origin, true, where);
  std::atomic_thread_fence(std::memory_order_acquire);
  window.epoch.posted = false;
  window.epoch.post_group.clear();
}

bool RmaEngine::test(Window& window, const char* where) {
  if (!window.epoch.posted)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "no exposure epoch of MPI_Win_post is open");
  for (int origin : window.epoch.post_group) {
    if (!completed(window, origin, window.completes_seen[origin] + 1)) {
      idle_poll(true);
      return false;
    }
  }
  wait(window, where);
  return true;
}

}  // namespace twinfab::mpi::rma
