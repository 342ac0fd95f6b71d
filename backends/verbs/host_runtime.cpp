#include "backends/verbs/host_runtime.hpp"

#include <pthread.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "backends/verbs/verbs_completion_queue.hpp"
#include "fabric/completion_queue.hpp"

namespace twinfab::verbs {
namespace {

// Rounds of polling before each round also yields the CPU: polling a verbs CQ is a
// memory read, so a few hundred rounds cost microseconds and catch fast replies
// without a trip through the scheduler.
constexpr int kSpinRounds = 200;

class ThreadAgent final : public fabric::Agent {
 public:
  ThreadAgent(const std::string& name, std::function<void()> body) : thread_(std::move(body)) {
    // Linux limits thread names to 15 characters; the name is for debuggers only.
    pthread_setname_np(thread_.native_handle(), name.substr(0, 15).c_str());
  }
  ~ThreadAgent() override {
    // Destroying a joinable std::thread would terminate the process.
    if (thread_.joinable()) thread_.join();
  }
  void join() override {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace

double HostRuntime::now() const {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

fabric::Status HostRuntime::wait(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  std::vector<VerbsCompletionQueue*> cqs;
  cqs.reserve(sources.size());
  for (fabric::CompletionQueue* source : sources) {
    if (source == nullptr) continue;
    auto* cq = dynamic_cast<VerbsCompletionQueue*>(&source->underlying());
    // A CQ this runtime cannot look into (another backend's) might hold anything:
    // returning at once is the only answer that never hangs.
    if (cq == nullptr) return fabric::Status::Ok;
    cqs.push_back(cq);
  }
  const double start = now();
  for (int round = 0;; ++round) {
    for (VerbsCompletionQueue* cq : cqs) {
      if (cq->has_completion()) return fabric::Status::Ok;
    }
    const double t = now();
    if (t >= deadline) return fabric::Status::Timeout;
    if (t - start >= kMemoryRecheck) return fabric::Status::Ok;
    if (round < kSpinRounds) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
}

void HostRuntime::sleep_for(double seconds) {
  if (!(seconds > 0)) return;
  if (std::isinf(seconds)) seconds = 1e9;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void HostRuntime::yield() { std::this_thread::yield(); }

std::unique_ptr<fabric::Agent> HostRuntime::spawn(const std::string& name, std::function<void()> body) {
  return std::make_unique<ThreadAgent>(name, std::move(body));
}

}  // namespace twinfab::verbs
