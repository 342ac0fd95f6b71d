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
// previous wait when that one returned only for the recheck and the thread has done
// nothing on the device since (note_device_activity()): a poller looping on
// wait({}) therefore moves from spinning to napping, while a ping-pong that posts
// between its waits always spins.
#pragma once

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

  double now() const override;
  fabric::Status wait(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  fabric::Status wait_for_completion(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  void sleep_for(double seconds) override;
  void yield() override;
  std::unique_ptr<fabric::Agent> spawn(const std::string& name, std::function<void()> body) override;
 private:
  /// wait() (`memory`: returns every kMemoryRecheck) and wait_for_completion().
  fabric::Status wait_until(std::span<fabric::CompletionQueue* const> sources, double deadline, bool memory);
};

/// Per thread: device activity (posts, completions polled) so far.
inline thread_local uint64_t device_activity = 0;

/// Called by the calling thread's posts and completion polls that did something: its
/// next wait() starts a new wait (spinning) instead of continuing the previous one.
/// Inline: it is on every post and poll.
inline void note_device_activity() noexcept { ++device_activity; }

}  // namespace twinfab::verbs
