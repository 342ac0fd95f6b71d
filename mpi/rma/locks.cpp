// twinfab MPI one-sided: passive-target synchronization (MPI-3.1 §11.5.3): the calls,
// their checks, and the dispatch to the lock designs of seed 001 chapter 4
// (rma_engine.hpp lists them; docs/rma.md has their reasons and costs):
//  - lock_atomic.cpp: test-and-set and MCS, by remote atomics on the target's control block;
//  - lock_service.cpp: the dedicated-thread and event-driven designs, a lock agent at the
//    target granting requests that arrive as messages;
//  - target.cpp: the progress design, requests served by the target's progress engine.
#include <fmt/format.h>

#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

void RmaEngine::acquire(Window& window, int target, LockType type, int assertions, const char* where) {
  TargetState& state = window.target(target);
  state.lock_type = type;
  state.lock_nocheck = (assertions & assertion::kNoCheck) != 0;
  if (state.lock_nocheck) {
    state.lock = TargetState::Lock::Held;
    return;
  }
  switch (window.lock_design) {
    case RmaLockDesign::TargetProgress:
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
    case RmaLockDesign::Thread:
    case RmaLockDesign::Event:
      service_acquire(window, target, type, where);
      break;
    case RmaLockDesign::Mcs:
      if (type == LockType::Exclusive) {
        mcs_acquire(window, target);
      } else {
        ts_acquire(window, target, type);
      }
      break;
    default:
      ts_acquire(window, target, type);
      break;
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
    // Every other design releases only once the epoch's operations are complete at the
    // target (docs/rma.md, "Completion"); the release itself is not waited for.
    complete_target(window, target, false, where);
    switch (window.lock_design) {
      case RmaLockDesign::Thread:
      case RmaLockDesign::Event:
        service_release(window, target, where);
        break;
      case RmaLockDesign::Mcs:
        if (state.lock_type == LockType::Exclusive) {
          mcs_release(window, target);
        } else {
          ts_release(window, target);
        }
        break;
      default:
        ts_release(window, target);
        break;
    }
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
  const TargetState* state = window.find_target(target);
  if (state != nullptr && state->lock != TargetState::Lock::None)
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(rank={})", where, target),
                "this rank already holds a lock on the target");
  e.fence = false;
  acquire(window, target, type, assertions, where);
  ++e.locks_held;
}

void RmaEngine::unlock(Window& window, int target, const char* where) {
  if (target == kProcNull) return;
  check_rank(window, target, where);
  const TargetState* state = window.find_target(target);
  if (window.epoch.lock_all || state == nullptr || state->lock == TargetState::Lock::None)
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
