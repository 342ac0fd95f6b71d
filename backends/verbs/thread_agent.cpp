#include "backends/verbs/thread_agent.hpp"

#include <fmt/format.h>
#include <pthread.h>

#include <utility>

#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::verbs {

namespace {
// Set once in each agent's thread, never cleared: the thread ends with the agent.
thread_local bool t_agent_thread = false;
}  // namespace

bool ThreadAgent::on_agent_thread() noexcept { return t_agent_thread; }

ThreadAgent::ThreadAgent(std::string name, std::function<void()> body)
    : name_(std::move(name)), thread_([this, body = std::move(body)] {
        t_agent_thread = true;
        try {
          body();
        } catch (...) {
          error_ = std::current_exception();
        }
      }) {
  // Linux limits thread names to 15 characters; the name is for debuggers only.
  pthread_setname_np(thread_.native_handle(), name_.substr(0, 15).c_str());
}

ThreadAgent::~ThreadAgent() {
  // Destroying a joinable std::thread would terminate the process.
  try {
    join();
  } catch (const std::exception& e) {
    fabric::log().error("agent '{}' was destroyed without join() and it had thrown: {}", name_, e.what());
  } catch (...) {
    fabric::log().error("agent '{}' was destroyed without join() and it had thrown a non-standard exception", name_);
  }
}

void ThreadAgent::join() {
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id())
    throw fabric::Error(fabric::Status::InvalidState,
                        fmt::format("Agent::join: agent '{}' joins itself and would never return; join it from the "
                                    "rank or another agent",
                                    name_));
  thread_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace twinfab::verbs
