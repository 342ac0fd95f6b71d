// Internal: an agent on hardware (fabric::Agent): an OS thread running the body.
//
// The body's exception is caught on its thread and rethrown by join(); an agent
// destroyed unjoined is joined, and an exception nobody collected is logged then
// (fabric/runtime.hpp has the contract, docs/agents.md the design).
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <thread>

#include "fabric/runtime.hpp"

namespace twinfab::verbs {

class ThreadAgent final : public fabric::Agent {
 public:
  ThreadAgent(std::string name, std::function<void()> body);
  ~ThreadAgent() override;
  void join() override;
  const std::string& name() const override { return name_; }
  /// Whether the calling thread is an agent's (the process's threads other than
  /// ThreadAgents' belong to the rank).
  static bool on_agent_thread() noexcept;

 private:
  std::string name_;
  std::exception_ptr error_;  ///< written by the thread, read after it was joined
  std::thread thread_;        ///< last: starts once the members above exist
};

}  // namespace twinfab::verbs
