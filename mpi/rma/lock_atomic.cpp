// twinfab MPI one-sided: the lock designs built on remote atomics (seed 001 §4.3), which
// need no cooperation from the target's CPU.
//
// Test-and-set (seed 001 §4.3.3): the lock word in the target's control block is 0
// when free, -1 while held exclusively, and counts shared holders otherwise. An
// exclusive request is a compare-and-swap of 0 to -1; a shared one a compare-and-swap
// of the last value seen to that value plus one (starting from 0). A failed attempt
// that found the lock held exclusively backs off exponentially before the next one
// (the seed's remedy for the traffic repeated attempts cause); release is a
// fetch-and-add (+1 from -1, -1 from a count). This rank's own lock word is taken
// through the HCA as well, by a loopback connection (loopback.hpp).
//
// MCS (seed 001 §4.3.4, Mellor-Crummey and Scott): exclusive requests queue. The
// target's control block holds the queue's tail (the last queued rank + 1); each
// origin's queue node for that target is two words of its own control block, `next`
// and the hand-over flag. Enqueueing is a swap of the tail with this rank's id,
// emulated by compare-and-swap since verbs has no remote swap: guess the tail (first
// 0), and retry with the value the failure returned until the guess was right, one
// round trip per rank that got in first (the seed's message count growing with the
// origins). A rank that found a predecessor writes its id into the predecessor's
// `next` by RDMA write and spins on its own flag, in its own memory; the releasing
// predecessor hands the lock over with one RDMA write of that flag (the seed's lowest
// synchronization delay). A release that finds no successor compare-and-swaps the tail
// from itself back to 0; when that fails, a successor is between its swap and its
// `next` write, and the release waits for the link.
//
// Shared locks (the seed does not say how its MCS design serves them; this is the
// reader-writer extension twinfab documents in docs/rma.md): readers take the
// test-and-set lock word's count as in `ts`; writers queue in MCS, and the head of the
// queue takes the lock word from 0 to -1 (backing off while readers hold it, as `ts`;
// its first compare-and-swap travels right behind the first swap attempt, so that an
// uncontended exclusive lock costs one round trip; a rank that turns out not to be the
// head gives the word back with a fetch-and-add),
// which then passes from writer to writer with the flag and is set back to 0 by the
// last writer, after it left the queue. Readers meanwhile find -1 and back off, so
// writers are not starved by a stream of readers once they hold the word; readers may
// wait behind a queue of writers.
#include <algorithm>

#include "mpi/rma/control_word.hpp"
#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

namespace {

/// Exponential backoff of the test-and-set design: the most any wait lasts (seconds of
/// the runtime's clock; the first is TWINFAB_RMA_LOCK_BACKOFF), and the least a lock
/// round trip is taken to last.
constexpr double kBackoffMax = 1e-3;
constexpr double kLeastRoundTrip = 1e-6;
/// Quick re-locks of one target in a row after which a rank leaves the lock free for a
/// round trip (ts_acquire()). 1: every one. Measured with MPICH's linked_list_bench_lock_excl
/// and _shr (4 ranks): with every 8th (and every 4th for _shr) the ranks that backed off
/// (up to kBackoffMax) rarely hit the rarer windows, and the tests did not end in 300 s;
/// with every one they take 0.15 s. Seed 001's single-origin lock overhead pays for it:
/// a round trip more per lock+unlock pair (docs/rma.md).
constexpr std::uint32_t kRelocksBeforeCourtesy = 1;

}  // namespace

RmaEngine::PendingAtomic RmaEngine::post_atomic(Window& window, int target, std::size_t word, RdmaOp::Kind kind,
                                                std::uint64_t compare_add, std::uint64_t swap, std::size_t slot) {
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(target)];
  return post_atomic_at(window, target, peer.control + word * sizeof(std::uint64_t), peer.control_rkey, kind,
                        compare_add, swap, slot);
}

RmaEngine::PendingAtomic RmaEngine::post_atomic_at(Window& window, int target, std::uint64_t remote_addr,
                                                   std::uint32_t rkey, RdmaOp::Kind kind, std::uint64_t compare_add,
                                                   std::uint64_t swap, std::size_t slot) {
  ++counters_.remote_atomics;
  PendingAtomic pending;
  pending.slot = window.layout.result(slot);
  if (target == window.rank()) {
    // Through the HCA too (loopback.hpp): the CPU's atomics are not atomic with the HCA's.
    if (!loopback_) loopback_ = std::make_unique<LoopbackAtomics>(context_.device());
    pending.done = true;
    pending.value = loopback_->execute(kind, remote_addr, rkey, compare_add, swap);
    return pending;
  }
  RdmaOp op;
  op.kind = kind;
  op.local = window.control_region->sge(pending.slot * sizeof(std::uint64_t), sizeof(std::uint64_t));
  op.remote_addr = remote_addr;
  op.rkey = rkey;
  op.compare_add = compare_add;
  op.swap = swap;
  RdmaInFlight entry;
  entry.window = window.id;
  entry.target = target;
  pending.cookie = new_cookie(std::move(entry));
  op.cookie = pending.cookie;
  ++window.target(target).rdma_in_flight;
  context_.post_rdma(window.comm->world_rank(target), op);
  return pending;
}

std::uint64_t RmaEngine::wait_atomic(Window& window, const PendingAtomic& pending) {
  if (pending.done) return pending.value;
  while (rdma_.contains(pending.cookie)) context_.progress_or_wait();
  return load_control(window.control()[pending.slot]);
}

std::uint64_t RmaEngine::remote_atomic(Window& window, int target, std::size_t word, RdmaOp::Kind kind,
                                       std::uint64_t compare_add, std::uint64_t swap, bool wait) {
  // A release that is not waited for lands its old value in a slot of its own, so that
  // it cannot overwrite the result of the next acquisition.
  const PendingAtomic pending = post_atomic(window, target, word, kind, compare_add, swap, wait ? 0 : 1);
  return wait ? wait_atomic(window, pending) : 0;
}

void RmaEngine::ts_acquire(Window& window, int target, LockType type) {
  TargetState& state = window.target(target);
  // A rank that locks again right after its release (within one of its lock round
  // trips) sends its compare-and-swap right behind the release on the QP: it lands
  // before anyone else's, so a rank locking in a loop would hold the lock against all
  // others for ever (found by MPICH's linked_list_bench_lock_excl: 4 ranks, one
  // spinning on its own element while the others backed off). Every
  // kRelocksBeforeCourtesy-th such quick re-lock in a row therefore first leaves the
  // lock free for one round trip, unless TWINFAB_RMA_LOCK_FAIR=0 asks for seed 001's
  // plain design.
  const auto now = [this] { return context_.runtime().now(); };
  const Config& config = context_.config();
  if (config.rma_lock_fair != 0 && state.released_at >= 0 && now() < state.released_at + state.lock_round_trip) {
    if (++state.quick_relocks % kRelocksBeforeCourtesy == 0) {
      const double until = state.released_at + state.lock_round_trip;
      while (now() < until) context_.progress_or_wait(until);
    }
  } else {
    state.quick_relocks = 0;
  }
  // 0: no backoff, the next attempt at once (seed 001 sec. 4.4.5's "without backoff").
  double backoff = config.rma_lock_backoff_us * 1e-6;
  std::uint64_t expected = 0;
  for (;;) {
    const std::uint64_t desired = type == LockType::Exclusive ? kExclusiveLockWord : expected + 1;
    ++counters_.lock_attempts;
    const double attempt_start = now();
    const std::uint64_t old =
        remote_atomic(window, target, ControlLayout::kLockWord, RdmaOp::Kind::CompareSwap, expected, desired, true);
    state.lock_round_trip = std::max(kLeastRoundTrip, now() - attempt_start);
    if (old == expected) break;
    if (type == LockType::Shared && old != kExclusiveLockWord) {
      expected = old;  // other shared holders: try again at once with their count
      continue;
    }
    // Held against us: back off, then try from a free lock.
    expected = 0;
    if (backoff > 0) {
      const double until = now() + backoff;
      while (now() < until) context_.progress_or_wait(until);
      backoff = std::min(backoff * 2, kBackoffMax);
    }
  }
}

void RmaEngine::ts_release(Window& window, int target) {
  TargetState& state = window.target(target);
  const std::uint64_t add = state.lock_type == LockType::Exclusive ? 1 : ~std::uint64_t{0};
  // The operations are complete; the release itself is not waited for (seed 001
  // §4.3.3): it leaves behind them on the QP, and a later lock or the window's free
  // waits for it.
  remote_atomic(window, target, ControlLayout::kLockWord, RdmaOp::Kind::FetchAdd, add, 0, false);
  state.released_at = context_.runtime().now();
}

void RmaEngine::mcs_acquire(Window& window, int target) {
  std::uint64_t* control = window.control();
  const std::size_t next = window.layout.lock_next(target);
  const std::size_t flag = window.layout.lock_grant(target);
  // The node is reset before this rank can be found in the queue (the swap below).
  store_control(control[next], 0);
  store_control(control[flag], 0);
  const std::uint64_t me = static_cast<std::uint64_t>(window.rank()) + 1;
  // The first guess of the swap goes out with a compare-and-swap of the lock word from
  // 0 to -1 right behind it (the target's HCA applies them in order): an uncontended
  // lock then costs one round trip, as the seed's MCS. The word taken by a rank that is
  // not the head of the queue is given back at once.
  std::uint64_t tail = 0;
  ++counters_.lock_attempts;
  const PendingAtomic swap =
      post_atomic(window, target, ControlLayout::kMcsTail, RdmaOp::Kind::CompareSwap, tail, me, 0);
  const PendingAtomic word =
      post_atomic(window, target, ControlLayout::kLockWord, RdmaOp::Kind::CompareSwap, 0, kExclusiveLockWord, 2);
  std::uint64_t old = wait_atomic(window, swap);
  const bool took_word = wait_atomic(window, word) == 0;
  while (old != tail) {
    tail = old;
    ++counters_.lock_attempts;
    old = remote_atomic(window, target, ControlLayout::kMcsTail, RdmaOp::Kind::CompareSwap, tail, me, true);
  }
  if (tail == 0) {
    // Head of the queue: the lock word may still be held by readers or by the last
    // writer's release in flight.
    if (!took_word) ts_acquire(window, target, LockType::Exclusive);
    return;
  }
  if (took_word) remote_atomic(window, target, ControlLayout::kLockWord, RdmaOp::Kind::FetchAdd, 1, 0, false);
  write_counter(window, static_cast<int>(tail - 1), window.layout.lock_next(target), me,
                ControlLayout::kStageMcsNext);
  wait_until([&] { return load_control(control[flag]) != 0; });
}

void RmaEngine::mcs_release(Window& window, int target) {
  std::uint64_t* control = window.control();
  const std::size_t next = window.layout.lock_next(target);
  const std::uint64_t me = static_cast<std::uint64_t>(window.rank()) + 1;
  if (load_control(control[next]) == 0) {
    ++counters_.lock_attempts;
    const std::uint64_t old =
        remote_atomic(window, target, ControlLayout::kMcsTail, RdmaOp::Kind::CompareSwap, me, 0, true);
    if (old == me) {
      ts_release(window, target);  // nobody queued: the lock word back to free
      return;
    }
    // A successor swapped itself in and is about to link: wait for it.
    wait_until([&] { return load_control(control[next]) != 0; });
  }
  // Hand over: the successor inherits the lock word at -1.
  const int successor = static_cast<int>(load_control(control[next]) - 1);
  write_counter(window, successor, window.layout.lock_grant(target), 1, ControlLayout::kStageMcsFlag);
}

}  // namespace twinfab::mpi::rma
