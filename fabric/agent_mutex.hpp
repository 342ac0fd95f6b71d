// A mutex for state that a rank shares with its agents (fabric/runtime.hpp, Agent).
//
// Why not std::mutex: in the simulator a rank and its agents are SimGrid actors on one
// OS thread, and an actor switches only inside a runtime call. An actor that blocked
// in std::mutex::lock() while another actor of the same thread held it would block
// that thread, and with it every actor, for ever. AgentMutex waits by
// Runtime::yield() instead: in the simulator the holder runs meanwhile (no simulated
// time passes), on hardware the thread gives up its core between tries.
//
// Use: short critical sections over data, as a spin lock; a holder may make runtime
// calls that do not wait (posting, polling, now(), yield()), never a wait or a
// sleep. Not reentrant: a second lock() by the holder never returns. Works with
// std::lock_guard / std::unique_lock.
#pragma once

#include <atomic>

#include "fabric/runtime.hpp"

namespace twinfab::fabric {

class AgentMutex {
 public:
  /// `runtime`: the rank's runtime (its agents use the same one).
  explicit AgentMutex(Runtime& runtime) noexcept : runtime_(runtime) {}
  AgentMutex(const AgentMutex&) = delete;
  AgentMutex& operator=(const AgentMutex&) = delete;

  /// Takes the mutex, yielding to the other actors or threads while it is held.
  void lock() {
    while (!try_lock()) runtime_.yield();
  }
  /// Takes the mutex if it is free; false (and nothing else) otherwise.
  bool try_lock() noexcept {
    // Test before the exchange: a waiter reads a shared line instead of writing it.
    return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  Runtime& runtime_;
  std::atomic<bool> held_{false};
};

}  // namespace twinfab::fabric
