// twinfab MPI one-sided: passive-target synchronization (MPI-3.1 §11.5.3) with the
// lock designs of seed 001 chapter 4 (rma_engine.hpp lists them).
//
// Test-and-set (seed 001 §4.3.3): the lock word in the target's control block is 0
// when free, -1 while held exclusively, and counts shared holders otherwise. An
// exclusive request is a compare-and-swap of 0 to -1; a shared one a compare-and-swap
// of the last value seen to that value plus one (starting from 0). A failed attempt
// that found the lock held exclusively backs off exponentially before the next one
// (the seed's remedy for the traffic repeated attempts cause); release is a
// fetch-and-add (+1 from -1, -1 from a count). This rank's own lock word is taken
// through the HCA as well, by a loopback connection (loopback.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

namespace {

/// Exponential backoff of the test-and-set design: the first wait after a failed
/// attempt, and the most any wait lasts (seconds of the runtime's clock).
constexpr double kBackoffInitial = 1e-6;
constexpr double kBackoffMax = 1e-3;
/// Quick re-locks of one target in a row after which a rank leaves the lock free for a
/// round trip (acquire()). 1: every one. Measured with MPICH's linked_list_bench_lock_excl
/// and _shr (4 ranks): with every 8th (and every 4th for _shr) the ranks that backed off
/// (up to kBackoffMax) rarely hit the rarer windows, and the tests did not end in 300 s;
/// with every one they take 0.15 s. Seed 001's single-origin lock overhead pays for it:
/// a round trip more per lock+unlock pair (docs/rma.md).
constexpr std::uint32_t kRelocksBeforeCourtesy = 1;

}  // namespace

std::uint64_t RmaEngine::remote_atomic(Window& window, int target, RdmaOp::Kind kind, std::uint64_t compare_add,
                                       std::uint64_t swap, bool wait) {
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(target)];
  ++counters_.remote_atomics;
  if (target == window.rank()) {
    // Through the HCA too (loopback.hpp): the CPU's atomics are not atomic with the HCA's.
    if (!loopback_) loopback_ = std::make_unique<LoopbackAtomics>(context_.device());
    return loopback_->execute(kind, peer.control + ControlLayout::kLockWord * sizeof(std::uint64_t),
                              peer.control_rkey, compare_add, swap);
  }
  // A release that is not waited for lands its old value in a slot of its own, so that
  // it cannot overwrite the result of the next acquisition.
  const std::size_t slot = window.layout.result(wait ? 0 : 1);
  RdmaOp op;
  op.kind = kind;
  op.local = window.control_region->sge(slot * sizeof(std::uint64_t), sizeof(std::uint64_t));
  op.remote_addr = peer.control + ControlLayout::kLockWord * sizeof(std::uint64_t);
  op.rkey = peer.control_rkey;
  op.compare_add = compare_add;
  op.swap = swap;
  RdmaInFlight entry;
  entry.window = window.id;
  entry.target = target;
  const std::uint32_t cookie = new_cookie(std::move(entry));
  op.cookie = cookie;
  ++window.target(target).rdma_in_flight;
  context_.post_rdma(window.comm->world_rank(target), op);
  if (!wait) return 0;
  while (rdma_.count(cookie) != 0) context_.progress_or_wait();
  return std::atomic_ref<std::uint64_t>(window.control()[slot]).load(std::memory_order_acquire);
}

void RmaEngine::acquire(Window& window, int target, LockType type, int assertions, const char* where) {
  TargetState& state = window.target(target);
  state.lock_type = type;
  state.lock_nocheck = (assertions & assertion::kNoCheck) != 0;
  if (state.lock_nocheck) {
    state.lock = TargetState::Lock::Held;
    return;
  }
  if (window.lock_design == RmaLockDesign::TargetProgress) {
    state.lock = TargetState::Lock::Requested;
    ++counters_.lock_attempts;
    if (target == window.rank()) {
      handle_lock_request(window, target, type);
    } else {
      ControlHeader h;
      h.kind = MessageKind::LockRequest;
      h.op = static_cast<std::uint8_t>(type);
      send_control(window, target, h, true);
    }
    wait_until([&] { return window.target(target).lock == TargetState::Lock::Held; });
    return;
  }
  // Test-and-set.
  (void)where;
  // A rank that locks again right after its release (within one of its lock round
  // trips) sends its compare-and-swap right behind the release on the QP: it lands
  // before anyone else's, so a rank locking in a loop would hold the lock against all
  // others for ever (found by MPICH's linked_list_bench_lock_excl: 4 ranks, one
  // spinning on its own element while the others backed off). Every
  // kRelocksBeforeCourtesy-th such quick re-lock in a row therefore first leaves the
  // lock free for one round trip.
  const auto now = [this] { return context_.runtime().now(); };
  if (state.released_at >= 0 && now() < state.released_at + state.lock_round_trip) {
    if (++state.quick_relocks % kRelocksBeforeCourtesy == 0) {
      const double until = state.released_at + state.lock_round_trip;
      while (now() < until) context_.progress_or_wait(until);
    }
  } else {
    state.quick_relocks = 0;
  }
  double backoff = kBackoffInitial;
  std::uint64_t expected = 0;
  for (;;) {
    const std::uint64_t desired = type == LockType::Exclusive ? kExclusiveLockWord : expected + 1;
    ++counters_.lock_attempts;
    const double attempt_start = now();
    const std::uint64_t old = remote_atomic(window, target, RdmaOp::Kind::CompareSwap, expected, desired, true);
    state.lock_round_trip = std::max(kBackoffInitial, now() - attempt_start);
    if (old == expected) break;
    if (type == LockType::Shared && old != kExclusiveLockWord) {
      expected = old;  // other shared holders: try again at once with their count
      continue;
    }
    // Held against us: back off, then try from a free lock.
    expected = 0;
    const double until = context_.runtime().now() + backoff;
    while (context_.runtime().now() < until) context_.progress_or_wait(until);
    backoff = std::min(backoff * 2, kBackoffMax);
  }
  state.lock = TargetState::Lock::Held;
}

void RmaEngine::release(Window& window, int target, const char* where) {
  TargetState& state = window.target(target);
  if (state.lock_nocheck) {
    complete_target(window, target, false, where);
  } else if (window.lock_design == RmaLockDesign::TargetProgress) {
    // The Unlock is applied after every operation sent before it, so its
    // acknowledgement also says they are complete: waited for when operations went as
    // messages. RDMA ones are complete when they completed here, and then the Unlock
    // need not be waited for (the next request from this rank queues behind it).
    const bool messages = state.unflushed_messages > 0 || !state.requests.empty();
    complete_target(window, target, true, where);
    if (target == window.rank()) {
      release_lock(window, target);
    } else {
      ControlHeader h;
      h.kind = MessageKind::Unlock;
      h.sequence = ++state.unlocks_sent;
      state.unflushed_messages = 0;
      send_control(window, target, h, true);
      if (messages) {
        wait_until([&] { return state.unlocks_acked >= h.sequence; });
        raise_target_error(window, target, where);
      }
    }
  } else {
    complete_target(window, target, false, where);
    const std::uint64_t add = state.lock_type == LockType::Exclusive ? 1 : ~std::uint64_t{0};
    // The operations are complete; the release itself is not waited for (seed 001
    // §4.3.3): it leaves behind them on the QP, and a later lock or the window's free
    // waits for it.
    remote_atomic(window, target, RdmaOp::Kind::FetchAdd, add, 0, false);
    state.released_at = context_.runtime().now();
  }
  state.lock = TargetState::Lock::None;
  state.lock_nocheck = false;
}

void RmaEngine::lock(Window& window, LockType type, int target, int assertions, const char* where) {
  if (target == kProcNull) return;
  check_rank(window, target, where);
  if ((assertions & ~assertion::kAll) != 0)
    throw Error(ErrorClass::MPI_ERR_ASSERT, fmt::format("{}(assert={})", where, assertions), "unknown assertion bits");
  EpochState& e = window.epoch;
  if (e.lock_all)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(rank={})", where, target),
                "MPI_Win_lock_all's epoch is open on this window");
  if (e.started || (e.fence && e.fence_had_ops))
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(rank={})", where, target),
                "an active-target epoch is open on this window");
  auto it = window.targets.find(target);
  if (it != window.targets.end() && it->second.lock != TargetState::Lock::None)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(rank={})", where, target),
                "this rank already holds a lock on the target");
  e.fence = false;
  acquire(window, target, type, assertions, where);
  ++e.locks_held;
}

void RmaEngine::unlock(Window& window, int target, const char* where) {
  if (target == kProcNull) return;
  check_rank(window, target, where);
  auto it = window.targets.find(target);
  if (window.epoch.lock_all || it == window.targets.end() || it->second.lock == TargetState::Lock::None)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(rank={})", where, target),
                "this rank holds no lock on the target (MPI_Win_lock first)");
  release(window, target, where);
  --window.epoch.locks_held;
}

void RmaEngine::lock_all(Window& window, int assertions, const char* where) {
  EpochState& e = window.epoch;
  if (e.lock_all || e.locks_held > 0 || e.started || (e.fence && e.fence_had_ops))
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                e.lock_all ? "MPI_Win_lock_all's epoch is already open" : "another epoch is open on this window");
  e.fence = false;
  // Shared locks on every member, taken at once (MPI allows taking them lazily; the
  // designs' costs then show in MPI_Win_lock_all itself, as in the seed's experiments).
  for (int target = 0; target < window.comm->size(); ++target)
    acquire(window, target, LockType::Shared, assertions, where);
  e.lock_all = true;
}

void RmaEngine::unlock_all(Window& window, const char* where) {
  if (!window.epoch.lock_all)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                "no epoch of MPI_Win_lock_all is open");
  for (int target = 0; target < window.comm->size(); ++target) release(window, target, where);
  window.epoch.lock_all = false;
}

}  // namespace twinfab::mpi::rma
