#include "backends/verbs/host_runtime.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>
#include <typeinfo>

#include "backends/verbs/cpu_relax.hpp"
#include "backends/verbs/thread_agent.hpp"
#include "backends/verbs/verbs_completion_queue.hpp"
#include "fabric/completion_queue.hpp"
#include "fabric/error.hpp"

namespace twinfab::verbs {
namespace {

// How a wait uses the CPU, by how long it has been waiting:
// - spin (poll) for HostRuntime::kSpinTime: polling a verbs CQ or a word of memory costs
//   nanoseconds and catches fast replies without a trip through the scheduler (a
//   round trip on a software device in a TCG VM takes 20-100 us). CQ polls follow
//   each other without PAUSE, as perftest's do (under QEMU TCG a PAUSE leaves the
//   translated code); waits on memory alone pause between looks;
// - then sched_yield between rounds until kYieldTime, so that other runnable threads
//   (and the kernel threads that move the data of software devices) get the CPU;
// - then sleep between rounds: a thread that waits for long (a peer that only waits
//   for the end of a bandwidth test) must leave its CPU idle, and, in a VM, the host
//   core to the vCPU that does the work. A nap is a tenth of the time waited so far,
//   from kNapTime up to kMaxNapTime: each wake-up costs a context switch (tens of us
//   in a TCG VM), and noticing the completion up to 10 % late only matters little to
//   a wait that has lasted that long.
// A runtime made to yield when idle (an oversubscribed host: idle_policy.hpp) skips
// the spin.
// With blocking_wait, a wait for completions alone (wait_for_completion(), MPI's) does
// not nap: past kYieldTime it arms its CQs and sleeps in the kernel until one of them
// has a completion (ppoll() of their completion channels), the deadline, or
// kMaxBlockTime, which only bounds the cost of a wake-up taken by another thread
// waiting on the same CQ (the CQ's event is read once). The process then takes
// almost no CPU while it waits. Not the default: blocking right away made MPICH's
// oversubscribed tests ~25 % slower in the micro-VM (an interrupt and a scheduler
// wake-up per message), and past 1 ms it saves CPU but no time there (docs/hardware.md).
constexpr double kYieldTime = HostRuntime::kYieldTime;
constexpr double kMaxBlockTime = 0.1;
constexpr double kNapTime = 20e-6;
constexpr double kMaxNapTime = 1e-3;
// A wait() call continues the previous one only if that one returned for the recheck
// less than this ago (and nothing happened on the device since): a caller that
// computed for longer than that in between was not waiting.
constexpr double kResumeGap = 100e-6;
// While spinning, the clock (deadline, recheck, spin -> yield -> nap) is read once per
// this many polling rounds: a clock read costs as much as a CQ poll, more in a VM.
constexpr unsigned kRoundsPerClock = 8;

// Per thread: the device activity count (device_activity, process-wide) and the clock
// when the thread's last wait() returned for a recheck (-1: it returned for something
// else); when its current wait began.
thread_local uint64_t recheck_activity = 0;
thread_local double recheck_return = -1;
thread_local double wait_began = 0;

/// How long to sleep after waiting `waited` seconds (past kYieldTime), before `deadline`.
double nap(double waited, double now, double deadline) noexcept {
  return std::min({std::clamp(waited / 10, kNapTime, kMaxNapTime), deadline - now});
}

/// One pause of a wait that has lasted `waited` seconds at `now`: spin (for the first
/// `spin_time` seconds), yield or nap.
void pause_after(double waited, double spin_time, double now, double deadline) {
  if (waited < spin_time) {
    cpu_relax();
  } else if (waited < kYieldTime) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(nap(waited, now, deadline)));
  }
}

/// Sleeps until one of `cqs` may have a completion (see kMaxBlockTime), or `deadline`.
/// False, without sleeping, when one of them cannot be armed (no completion
/// channel): the caller naps instead.
bool block_on_events(std::span<VerbsCompletionQueue* const> cqs, double now, double deadline) {
  constexpr size_t kMaxFds = 16;
  std::array<pollfd, kMaxFds> fds;
  size_t n = 0;
  for (VerbsCompletionQueue* cq : cqs) {
    if (n == kMaxFds || !cq->arm()) return false;
    fds[n++] = pollfd{cq->event_fd(), POLLIN, 0};
  }
  // A completion that came before the CQ was armed raises no event: look once more.
  for (VerbsCompletionQueue* cq : cqs) {
    if (cq->has_completion()) return true;
  }
  const double seconds = std::clamp(deadline - now, 0.0, kMaxBlockTime);
  timespec timeout{};
  timeout.tv_sec = static_cast<time_t>(seconds);
  timeout.tv_nsec = static_cast<long>((seconds - static_cast<double>(timeout.tv_sec)) * 1e9);
  // EINTR (a signal) is a spurious return: the caller looks and waits again.
  if (ppoll(fds.data(), n, &timeout, nullptr) > 0) {
    for (size_t i = 0; i < n; ++i) {
      if (fds[i].revents != 0) cqs[i]->consume_events();
    }
  }
  return true;
}

/// At most this many CQs per wait (no allocation on the waiting path).
constexpr size_t kMaxCqs = 16;

/// `sources` as verbs CQs in `cqs`; returns how many, or kMaxCqs + 1 when there are
/// more (the caller then returns at once). Throws fabric::Error(InvalidArgument)
/// naming `where` for a null or non-verbs source.
size_t verbs_cqs(std::span<fabric::CompletionQueue* const> sources, const char* where,
                 std::array<VerbsCompletionQueue*, kMaxCqs>& cqs) {
  size_t n = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i] == nullptr)
      throw fabric::Error(fabric::Status::InvalidArgument, fmt::format("{}: source {} is a null CQ", where, i));
    fabric::CompletionQueue& cq = sources[i]->underlying();
    // VerbsCompletionQueue is final: comparing the dynamic type is the whole
    // dynamic_cast, at a fraction of its cost on this (spun) path.
    if (typeid(cq) != typeid(VerbsCompletionQueue))
      throw fabric::Error(fabric::Status::InvalidArgument,
                          fmt::format("{}: source {} is not a CQ of a verbs device; a verbs runtime can only wait "
                                      "on CQs of verbs device contexts",
                                      where, i));
    if (n == kMaxCqs) return kMaxCqs + 1;
    cqs[n++] = static_cast<VerbsCompletionQueue*>(&cq);
  }
  return n;
}

}  // namespace

double HostRuntime::now() const {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

fabric::Status HostRuntime::wait(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  return wait_until(sources, deadline, true);
}

fabric::Status HostRuntime::wait_for_completion(std::span<fabric::CompletionQueue* const> sources,
                                                double deadline) {
  return wait_until(sources, deadline, false);
}

fabric::Status HostRuntime::wait_until(std::span<fabric::CompletionQueue* const> sources, double deadline,
                                       bool memory) {
  const char* where = memory ? "Runtime::wait" : "Runtime::wait_for_completion";
  check_time(deadline, where);
  // At most a few CQs per wait; no allocation on this path.
  std::array<VerbsCompletionQueue*, kMaxCqs> cqs;
  const size_t n = verbs_cqs(sources, where, cqs);
  // A CQ beyond kMaxCqs might hold anything: returning at once never hangs.
  if (n > kMaxCqs) return fabric::Status::Ok;
  // What is already there ends the wait before any clock read (a reply that came
  // while the caller was busy: the common case of a ping-pong).
  for (size_t i = 0; i < n; ++i) {
    if (cqs[i]->has_completion()) {
      recheck_return = -1;
      return fabric::Status::Ok;
    }
  }
  const double start = now();
  const bool resumed = recheck_return >= 0 && recheck_activity == device_activity && start - recheck_return <= kResumeGap;
  if (!resumed) wait_began = start;
  recheck_return = -1;
  if (n == 0 && !memory) {
    // Nothing can end this wait but the deadline.
    for (double t = start; t < deadline; t = now()) pause_after(t - wait_began, spin_time_, t, deadline);
    return fabric::Status::Timeout;
  }
  if (n == 0) {
    // Nothing here to poll: the caller polls memory; one round (a single clock read),
    // then let it look again.
    if (start >= deadline) return fabric::Status::Timeout;
    pause_after(start - wait_began, spin_time_, start, deadline);
    recheck_return = start;
    recheck_activity = device_activity;
    return fabric::Status::Ok;
  }
  // While spinning, the clock (deadline, recheck, spin -> yield -> nap) is read once
  // every kRoundsPerClock rounds: a clock read per round would only delay noticing the
  // completion.
  bool spinning = start - wait_began < spin_time_;
  for (unsigned round = 1;; ++round) {
    for (size_t i = 0; i < n; ++i) {
      if (cqs[i]->has_completion()) return fabric::Status::Ok;
    }
    if (spinning && round % kRoundsPerClock != 0) continue;
    const double t = now();
    if (t >= deadline) return fabric::Status::Timeout;
    if (memory && t - start >= kMemoryRecheck) {
      recheck_return = t;
      recheck_activity = device_activity;
      return fabric::Status::Ok;
    }
    const double waited = t - wait_began;
    spinning = waited < spin_time_;
    if (blocking_wait_ && !memory && waited >= kYieldTime && block_on_events(std::span(cqs.data(), n), t, deadline))
      continue;
    if (!spinning) pause_after(waited, spin_time_, t, deadline);
  }
}

fabric::Status HostRuntime::wait_for_event(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  const char* where = "Runtime::wait_for_event";
  check_time(deadline, where);
  std::array<VerbsCompletionQueue*, kMaxCqs> cqs;
  const size_t n = verbs_cqs(sources, where, cqs);
  if (n == 0)
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("{}: no source; an event wait ends on a completion of one of its CQs, so it needs "
                                    "at least one (sleep_for() waits for time alone)",
                                    where));
  if (n > kMaxCqs) return fabric::Status::Ok;
  recheck_return = -1;
  const auto waiting = std::span(cqs.data(), n);
  for (;;) {
    for (VerbsCompletionQueue* cq : waiting) {
      if (cq->has_completion()) return fabric::Status::Ok;
    }
    const double t = now();
    if (t >= deadline) return fabric::Status::Timeout;
    // Sleeps in the kernel until an event (block_on_events re-checks the CQs after
    // arming them); a CQ without a channel cannot raise one: nap and look again.
    if (!block_on_events(waiting, t, deadline))
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(kMaxNapTime, deadline - t)));
  }
}

void HostRuntime::sleep_for(double seconds) {
  check_time(seconds, "Runtime::sleep_for");
  if (!(seconds > 0)) return;
  if (std::isinf(seconds)) seconds = 1e9;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void HostRuntime::idle_for(double seconds) {
  check_time(seconds, "Runtime::idle_for");
  if (!(seconds > 0)) return;
  if (std::isinf(seconds)) seconds = 1e9;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void HostRuntime::yield() { std::this_thread::yield(); }

bool HostRuntime::on_agent() const { return ThreadAgent::on_agent_thread(); }

std::unique_ptr<fabric::Agent> HostRuntime::spawn(const std::string& name, std::function<void()> body) {
  check_agent_body(name, body);
  return std::make_unique<ThreadAgent>(name, std::move(body));
}

}  // namespace twinfab::verbs
