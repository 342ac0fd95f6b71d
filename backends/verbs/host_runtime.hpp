// Internal: the fabric::Runtime for real hardware.
//
// The clock is std::chrono::steady_clock; agents are OS threads. wait() busy-polls
// the verbs CQs it is given and returns as soon as one has a completion, which stays
// in the CQ for poll(). The device writes RDMA data into memory without telling the
// CPU, so wait() also returns Ok after about kMemoryRecheck seconds (the clock is read
// every few polling rounds), and after a single round when it has no CQ to poll:
// callers that poll memory (RDMA fast path, write latency) re-check it, callers that
// wait for a CQ simply call wait() again.
//
// How a wait uses the CPU depends on how long the thread has been waiting: it spins
// first, then yields, then naps (host_runtime.cpp). A call continues the thread's
// previous wait when that one returned only for the recheck and nothing was done on
// the device since (note_device_activity()): a poller looping on
// wait({}) therefore moves from spinning to napping, while a ping-pong that posts
// between its waits always spins. A runtime made with yield_when_idle (an
// oversubscribed host, idle_policy.hpp) does not spin: it yields from the start. One
// made with blocking_wait does not nap in wait_for_completion(): it sleeps in the
// kernel until one of its CQs has a completion (idle_policy.hpp). wait_for_event()
// always sleeps that way, from the start.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "fabric/runtime.hpp"

namespace twinfab::verbs {

class HostRuntime final : public fabric::Runtime {
 public:
  /// How long one wait() may go without returning, so memory pollers re-check.
  /// Short: a memory poller notices data at most this late (plus a few polling rounds).
  static constexpr double kMemoryRecheck = 1e-6;
  /// How long a wait spins (polls without giving up the CPU) before it yields.
  static constexpr double kSpinTime = 200e-6;

  /// How long a wait yields (when not spinning) before it naps or, with
  /// blocking_wait, sleeps until a completion comes.
  static constexpr double kYieldTime = 1e-3;

  /// `yield_when_idle`: waits yield the CPU from the start instead of spinning for
  /// kSpinTime first. `blocking_wait`: a wait_for_completion() that has lasted
  /// kYieldTime sleeps on its CQs' completion channels instead of napping.
  explicit HostRuntime(bool yield_when_idle = false, bool blocking_wait = false) noexcept
      : spin_time_(yield_when_idle ? 0 : kSpinTime), blocking_wait_(blocking_wait) {}
  bool yields_when_idle() const noexcept { return spin_time_ == 0; }
  bool blocks_when_idle() const noexcept { return blocking_wait_; }

  double now() const override;
  fabric::Status wait(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  fabric::Status wait_for_completion(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  /// Arms the CQs' completion channels and sleeps in ppoll() until one has a
  /// completion or the deadline; a CQ without a channel is napped on (1 ms at most).
  fabric::Status wait_for_event(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  void sleep_for(double seconds) override;
  void yield() override;
  std::unique_ptr<fabric::Agent> spawn(const std::string& name, std::function<void()> body) override;
  /// Whether the calling thread is a ThreadAgent's (thread_agent.hpp).
  bool on_agent() const override;
  /// std::this_thread::sleep_for, as sleep_for() (a thread computing or sleeping
  /// costs the same here: the kernel schedules both).
  void idle_for(double seconds) override;
 private:
  /// wait() (`memory`: returns every kMemoryRecheck) and wait_for_completion().
  fabric::Status wait_until(std::span<fabric::CompletionQueue* const> sources, double deadline, bool memory);
  double spin_time_;
  bool blocking_wait_;
};

/// Device activity (posts, completions polled) so far, in this process. Process-wide,
/// not per thread: a thread_local in a shared library is reached through
/// __tls_get_addr, a call on every post and poll, and all this count decides is
/// whether a wait spins or naps; another thread's activity making a wait spin again
/// is harmless.
inline std::atomic<uint64_t> device_activity{0};

/// Called by posts and completion polls that did something: the next wait() starts
/// a new wait (spinning) instead of continuing the previous one. A relaxed load and
/// store, not an atomic increment (a locked instruction): two threads that count at
/// once may lose one count, which changes nothing (each still counts).
inline void note_device_activity() noexcept {
  device_activity.store(device_activity.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace twinfab::verbs
