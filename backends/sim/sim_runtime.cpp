#include "backends/sim/sim_runtime.hpp"

#include <fmt/format.h>
#include <simgrid/Exception.hpp>

#include <algorithm>
#include <cmath>
#include <typeinfo>

#include "backends/sim/sim_device.hpp"
#include "backends/sim/sim_fabric.hpp"
#include "backends/sim/sim_objects.hpp"
#include "backends/sim/sim_queue_pair.hpp"
#include "fabric/error.hpp"

namespace twinfab::sim {

namespace s4u = simgrid::s4u;
using fabric::Status;

namespace {

constexpr uint64_t kMaxEmptyPolls = 10'000'000;

class SimAgent final : public fabric::Agent {
 public:
  SimAgent(SimFabric& fabric, s4u::ActorPtr actor, std::shared_ptr<bool> done)
      : fabric_(fabric), actor_(std::move(actor)), done_(std::move(done)) {}
  ~SimAgent() override {
    if (!*done_) join();
  }
  void join() override {
    // Keep serving this actor's device contexts while the agent finishes; the backoff
    // bounds how late the join returns (at most 10 us of simulated time).
    SimRuntime& rt = fabric_.runtime_of_self();
    double step = 1e-7;
    while (!*done_) {
      rt.sleep_for(step);
      step = std::min(step * 2, 1e-5);
    }
  }

 private:
  SimFabric& fabric_;
  s4u::ActorPtr actor_;
  std::shared_ptr<bool> done_;
};

}  // namespace

void SimRuntime::remove_device(SimDevice* d) {
  devices_.erase(std::remove(devices_.begin(), devices_.end(), d), devices_.end());
  // Packets that reached it and were not processed go with it; the others keep their
  // order (one pass around the ring, at a device's close only).
  for (std::size_t n = arrivals_.size(); n > 0; --n) {
    const auto arrival = arrivals_.pop_front();
    if (arrival.first == d) {
      fabric_.free_message(arrival.second);
    } else {
      arrivals_.push_back(arrival);
    }
  }
}

void SimRuntime::schedule_completion(double when, SimQueuePair& qp, uint64_t seq, fabric::WcStatus status,
                                     uint32_t byte_len) {
  timers_.push_back(Timer{when, timer_order_++, &qp.device(), qp.device_id(), nullptr,
                          qp.send_cq(), qp.ref(), seq, status, byte_len});
  std::push_heap(timers_.begin(), timers_.end(), std::greater<>{});
}

void SimRuntime::schedule_arrival(double when, SimDevice* device, WireMessage* m) {
  timers_.push_back(Timer{when, timer_order_++, device, device->id(), m, nullptr, {}, 0, fabric::WcStatus::Success, 0});
  std::push_heap(timers_.begin(), timers_.end(), std::greater<>{});
}

double SimRuntime::next_wake(std::span<fabric::CompletionQueue* const> sources, double deadline) const {
  double until = deadline;
  for (const Timer& t : timers_) {
    if (t.when >= until) continue;
    bool matters = t.message != nullptr || t.status != fabric::WcStatus::Success;
    for (auto* s : sources) matters = matters || &s->underlying() == t.cq;
    if (matters) until = t.when;
  }
  return until;
}

void SimRuntime::run_due_timers() {
  const double now = this->now();
  while (!timers_.empty() && timers_.front().when <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), std::greater<>{});
    Timer t = timers_.back();
    timers_.pop_back();
    if (!fabric_.device_alive(t.device_id)) {
      if (t.message) fabric_.free_message(t.message);
      continue;
    }
    if (t.message != nullptr) {
      t.device->process_arrival(t.message);
    } else if (SimQueuePair* qp = fabric_.resolve(t.qp); qp != nullptr && &qp->device() == t.device) {
      qp->complete_send(t.seq, t.status, t.byte_len);
    }
  }
}

bool SimRuntime::blocked_on(const fabric::CompletionQueue* cq, double when) const {
  if (blocked_until_ <= when) return false;
  for (std::size_t i = 0; i < blocked_cq_count_; ++i)
    if (blocked_cqs_[i] == cq) return true;
  for (auto* s : blocked_sources_)
    if (&s->underlying() == cq) return true;
  return false;
}

void SimRuntime::set_blocked_sources(std::span<fabric::CompletionQueue* const> sources) {
  blocked_sources_ = {};
  blocked_cq_count_ = 0;
  if (sources.size() > kMaxBlockedCqs) {
    blocked_sources_ = sources;
    return;
  }
  for (auto* s : sources) blocked_cqs_[blocked_cq_count_++] = &s->underlying();
}

bool SimRuntime::any_ready(std::span<fabric::CompletionQueue* const> sources) const {
  for (auto* s : sources)
    if (!static_cast<SimCompletionQueue&>(s->underlying()).empty()) return true;
  return false;
}

void SimRuntime::note_empty_poll() {
  if (++empty_polls_ == kMaxEmptyPolls)
    throw fabric::Error(Status::InvalidState,
                        fmt::format("{} CQ polls in a row found nothing and never waited: in the simulator time only "
                                    "passes inside Runtime::wait()/sleep_for(), so a busy-poll loop never ends. Call "
                                    "device.runtime().wait({{cq}}, deadline) when poll() returns 0.",
                                    kMaxEmptyPolls));
}

void SimRuntime::deliver(SimDevice* device, WireMessage* m) {
  arrivals_.push_back({device, m});
  wake_->wake();
}

void SimRuntime::process_arrival() {
  // One packet per call, as a rank notices them one at a time: the caller looks at its
  // CQs and memory after each (a receive completes on the packet that finishes it,
  // not on a later one that came at the same date). Processing may send packets and
  // schedule timers, never deliver (that is maestro).
  if (!arrivals_.empty()) {
    auto [device, m] = arrivals_.pop_front();
    device->process_arrival(m);
  }
}

void SimRuntime::block(double until) {
  if (arrivals_.empty()) {
    const double now = this->now();
    if (!(until > now)) return;  // nothing to wait for: a spurious return is allowed
    if (devices_.empty() && !std::isfinite(until))
      throw fabric::Error(Status::InvalidState,
                          "Runtime::wait with no deadline and no device: nothing could ever wake this rank");
    // A deadline is an event that wakes the actor like a delivery (stale, doing
    // nothing, if something else woke it first), so the suspension itself never times
    // out and SimGrid still sees a rank that nothing can wake (deadlock detection).
    ActorWake& w = *wake_;
    w.blocked = true;
    w.signalled = false;
    blocked_until_ = until;  // what deliver_completion asks (blocked_on)
    const std::uint64_t generation = ++w.generation;
    if (std::isfinite(until)) {
      // In the fabric's event queue, with the packets: same-date deadlines and
      // deliveries wake their actors in the order they were set (event_queue.hpp).
      fabric_.events().wake_at(until, wake_, generation);
    }
    w.actor = s4u::Actor::self();
    try {
      s4u::this_actor::suspend();
    } catch (const simgrid::ForcefulKillException&) {
      // SimGrid kills the ranks it found blocked for good (a deadlock). The unwinding
      // may be swallowed on its way (a destructor that must not throw): remember it.
      // No longer blocked: nothing may resume this actor once it is gone.
      w.blocked = false;
      fabric_.note_killed(s4u::this_actor::get_pid());
      throw;
    }
    w.blocked = false;
    blocked_until_ = -1;
  }
  process_arrival();
}

Status SimRuntime::wait(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  return wait_until(sources, deadline, true);
}

Status SimRuntime::wait_for_completion(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  return wait_until(sources, deadline, false);
}

void SimRuntime::check_sources(std::span<fabric::CompletionQueue* const> sources, const char* where) const {
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i] == nullptr)
      throw fabric::Error(Status::InvalidArgument, fmt::format("{}: source {} is a null CQ", where, i));
    const fabric::CompletionQueue& cq = sources[i]->underlying();
    if (typeid(cq) != typeid(SimCompletionQueue))
      throw fabric::Error(Status::InvalidArgument,
                          fmt::format("{}: source {} is not a CQ of a simulated device; a simulated rank can only "
                                      "wait on CQs its own device contexts made",
                                      where, i));
    if (&static_cast<const SimCompletionQueue&>(cq).runtime() != this)
      throw fabric::Error(Status::InvalidArgument,
                          fmt::format("{}: source {} is a CQ of {}, a device context of another rank; its completions "
                                      "only wake that rank",
                                      where, i, static_cast<const SimCompletionQueue&>(cq).device().name()));
  }
}

Status SimRuntime::wait_until(std::span<fabric::CompletionQueue* const> sources, double deadline, bool memory) {
  const char* where = memory ? "Runtime::wait" : "Runtime::wait_for_completion";
  check_time(deadline, where);
  check_sources(sources, where);
  empty_polls_ = 0;
  // Only data placed during this wait makes it return early: the caller looked at its
  // memory before calling.
  memory_written_ = false;
  for (;;) {
    run_due_timers();
    if (any_ready(sources)) return Status::Ok;
    if (memory_written_ && memory) {
      memory_written_ = false;
      return Status::Ok;
    }
    if (now() >= deadline) return Status::Timeout;
    set_blocked_sources(sources);
    block(next_wake(sources, deadline));
    set_blocked_sources({});
  }
}

void SimRuntime::sleep_for(double seconds) {
  check_time(seconds, "Runtime::sleep_for");
  empty_polls_ = 0;
  const double deadline = now() + seconds;
  for (;;) {
    run_due_timers();
    if (now() >= deadline) break;
    block(next_wake({}, deadline));
  }
  memory_written_ = false;
}

void SimRuntime::yield() { s4u::this_actor::yield(); }

std::unique_ptr<fabric::Agent> SimRuntime::spawn(const std::string& name, std::function<void()> body) {
  auto done = std::make_shared<bool>(false);
  SimFabric* fabric = &fabric_;
  auto actor = s4u::Actor::create(name, s4u::this_actor::get_host(), [fabric, done, body = std::move(body)]() {
    body();
    *done = true;
    fabric->forget_runtime(s4u::this_actor::get_pid());
  });
  return std::make_unique<SimAgent>(fabric_, std::move(actor), std::move(done));
}

}  // namespace twinfab::sim
