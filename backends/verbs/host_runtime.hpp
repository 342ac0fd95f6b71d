// Internal: the fabric::Runtime for real hardware.
//
// The clock is std::chrono::steady_clock; agents are OS threads. wait() busy-polls
// the verbs CQs it is given (a short spin, then sched_yield between rounds) and
// returns as soon as one has a completion, which stays in the CQ for poll(). The
// device writes RDMA data into memory without telling the CPU, so wait() also
// returns Ok every kMemoryRecheck seconds: callers that poll memory (RDMA fast path)
// re-check it, callers that wait for a CQ simply call wait() again.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "fabric/runtime.hpp"

namespace twinfab::verbs {

class HostRuntime final : public fabric::Runtime {
 public:
  /// How long one wait() may go without returning, so memory pollers re-check.
  static constexpr double kMemoryRecheck = 200e-6;

  double now() const override;
  fabric::Status wait(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  void sleep_for(double seconds) override;
  void yield() override;
  std::unique_ptr<fabric::Agent> spawn(const std::string& name, std::function<void()> body) override;
};

}  // namespace twinfab::verbs
