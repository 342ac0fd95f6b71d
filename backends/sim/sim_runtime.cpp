#include "backends/sim/sim_runtime.hpp"

#include <fmt/format.h>
#include <simgrid/Exception.hpp>

#include <algorithm>
#include <cmath>
#include <typeinfo>

#include "backends/sim/sim_agent.hpp"
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
/// A polling wait without a deadline on a contended host is an execution this long (in
/// seconds of a core); if nothing woke it by then, the run was stuck.
constexpr double kBusyHorizon = 1e7;

}  // namespace

SimRuntime::SimRuntime(SimFabric& fabric, aid_t owner, s4u::Host* host) : fabric_(fabric) {
  owner_.actor = owner;
  owner_.host = host;
}

SimRuntime::Waiter& SimRuntime::self(const char* where) {
  // Alone, the owner is the caller: no lookup on the hot path.
  if (agents_.empty()) return owner_;
  const aid_t me = s4u::this_actor::get_pid();
  if (me == owner_.actor) return owner_;
  for (auto& w : agents_)
    if (w->actor == me) return *w;
  throw fabric::Error(Status::InvalidState,
                      fmt::format("{}: called by actor '{}', which is neither the rank that owns this runtime nor one "
                                  "of its agents; an actor waits through its own rank's runtime",
                                  where, s4u::this_actor::get_name()));
}

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
  if (!agents_.empty()) wake_for_timer(when, qp.send_cq(), status != fabric::WcStatus::Success);
}

void SimRuntime::schedule_arrival(double when, SimDevice* device, WireMessage* m) {
  timers_.push_back(Timer{when, timer_order_++, device, device->id(), m, nullptr, {}, 0, fabric::WcStatus::Success, 0});
  std::push_heap(timers_.begin(), timers_.end(), std::greater<>{});
  if (!agents_.empty()) wake_for_timer(when, nullptr, true);
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
  bool ran = false;
  while (!timers_.empty() && timers_.front().when <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), std::greater<>{});
    Timer t = timers_.back();
    timers_.pop_back();
    ran = true;
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
  if (ran) wake_satisfied();
}

bool SimRuntime::waits_on(const Waiter& w, const fabric::CompletionQueue* cq) {
  for (std::size_t i = 0; i < w.cq_count; ++i)
    if (w.cqs[i] == cq) return true;
  for (auto* s : w.sources)
    if (&s->underlying() == cq) return true;
  return false;
}

bool SimRuntime::blocked_on(const fabric::CompletionQueue* cq, double when) const {
  if (owner_.until > when && waits_on(owner_, cq)) return true;
  for (const auto& w : agents_)
    if (w->until > when && waits_on(*w, cq)) return true;
  return false;
}

void SimRuntime::set_blocked_sources(Waiter& w, std::span<fabric::CompletionQueue* const> sources) {
  w.sources = {};
  w.cq_count = 0;
  if (sources.size() > kMaxBlockedCqs) {
    w.sources = sources;
    return;
  }
  for (auto* s : sources) w.cqs[w.cq_count++] = &s->underlying();
}

template <class F>
void SimRuntime::wake_waiters(F&& wanted) {
  // A rank has few agents: the choice fits on the stack. The shared pointers keep each
  // ActorWake alive while the others are woken, even if its agent ended meanwhile
  // (its wake-up then does nothing: it is no longer blocked).
  constexpr std::size_t kInline = 8;
  std::array<std::pair<std::shared_ptr<ActorWake>, std::uint64_t>, kInline> chosen;
  std::vector<std::pair<std::shared_ptr<ActorWake>, std::uint64_t>> more;
  std::size_t n = 0;
  for_each_waiter([&](Waiter& w) {
    if (!wanted(w)) return;
    if (n < kInline) {
      chosen[n++] = {w.wake, w.wake->generation};
    } else {
      more.emplace_back(w.wake, w.wake->generation);
    }
  });
  for (std::size_t i = 0; i < n; ++i) chosen[i].first->deadline(chosen[i].second);
  for (auto& [wake, generation] : more) wake->deadline(generation);
}

void SimRuntime::notify_memory() {
  // Woken from maestro at the current date, as a deadline is, not from the notifying
  // actor: a waiter blocked on an execution (a polling wait on a contended host) whose
  // execution started at this very date is not yet planned by the CPU model, and
  // cancelling it from an actor aborts SimGrid ("updating an action that is not
  // running"; seen with TWINFAB_RMA_LOCK=thread and ranks sharing a host).
  const double t = now();
  for_each_waiter([&](Waiter& w) {
    w.notified = true;
    if (w.until >= 0 && w.memory) fabric_.events().wake_at(t, w.wake, w.wake->generation);
  });
}

void SimRuntime::wake_satisfied() {
  if (agents_.empty()) return;
  wake_waiters([](const Waiter& w) {
    if (w.until < 0) return false;  // not blocked (the caller, or an actor outside the runtime)
    bool ready = w.memory && w.memory_written;
    for (std::size_t i = 0; i < w.cq_count && !ready; ++i)
      ready = !static_cast<const SimCompletionQueue*>(w.cqs[i])->empty();
    for (std::size_t i = 0; i < w.sources.size() && !ready; ++i)
      ready = !static_cast<const SimCompletionQueue&>(w.sources[i]->underlying()).empty();
    return ready;
  });
}

void SimRuntime::wake_for_timer(double when, const fabric::CompletionQueue* cq, bool matters_to_all) {
  wake_waiters([&](const Waiter& w) {
    return w.until >= 0 && when < w.until && (matters_to_all || waits_on(w, cq));
  });
}

void SimRuntime::wake_one() {
  // One actor processes the queue (one packet per look, then the others): one that was
  // woken and has not run yet will; else the first blocked, preferring a suspended one
  // (waking one that computes cancels its execution).
  Waiter* pick = nullptr;
  bool pending = false;
  for_each_waiter([&](Waiter& w) {
    const ActorWake& k = *w.wake;
    if (!k.blocked || w.until < 0) return;
    if (k.signalled) pending = true;
    else if (pick == nullptr || (pick->wake->exec != nullptr && k.exec == nullptr)) pick = &w;
  });
  if (!pending && pick != nullptr) pick->wake->wake();
}

void SimRuntime::wake_cpu_users(const s4u::Host* host) {
  wake_waiters([&](const Waiter& w) {
    return w.host == host && w.until >= 0 && w.cpu != Cpu::Idle && w.wake->exec == nullptr;
  });
}

void SimRuntime::add_agent(aid_t agent, s4u::Host* host) {
  auto w = std::make_unique<Waiter>();
  w->actor = agent;
  w->host = host;
  agents_.push_back(std::move(w));
}

void SimRuntime::remove_agent(aid_t agent) {
  agents_.erase(std::remove_if(agents_.begin(), agents_.end(), [&](const auto& w) { return w->actor == agent; }),
                agents_.end());
  // The packets it left queued are someone else's now.
  if (!arrivals_.empty()) wake_one();
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
  if (agents_.empty()) {
    owner_.wake->wake();
  } else {
    wake_one();
  }
}

void SimRuntime::process_arrival() {
  // One packet per call, as a rank notices them one at a time: the caller looks at its
  // CQs and memory after each (a receive completes on the packet that finishes it,
  // not on a later one that came at the same date). Processing may send packets and
  // schedule timers, never deliver (that is maestro).
  if (!arrivals_.empty()) {
    auto [device, m] = arrivals_.pop_front();
    device->process_arrival(m);
    wake_satisfied();
  }
}

bool SimRuntime::block(Waiter& w, double until, Cpu cpu, double* cpu_left, bool forever_ok) {
  bool blocked = false;
  if (arrivals_.empty()) {
    const double now = this->now();
    const bool executes =
        cpu != Cpu::Idle && (cpu != Cpu::Compute || cpu_left != nullptr) && fabric_.contended(w.host);
    const bool computes = executes && cpu == Cpu::Compute;
    // Nothing to wait for: a spurious return is allowed. (A computation on a contended
    // host ends with its execution, whatever `until` is.)
    if (!(until > now) && !computes) return false;
    if (!(until > now)) until = now;
    if (devices_.empty() && !std::isfinite(until) && !forever_ok && !computes)
      throw fabric::Error(Status::InvalidState,
                          "Runtime::wait with no deadline and no device: nothing could ever wake this rank");
    // A deadline is an event that wakes the actor like a delivery (stale, doing
    // nothing, if something else woke it first), so the suspension itself never times
    // out and SimGrid still sees a rank that nothing can wake (deadlock detection).
    ActorWake& k = *w.wake;
    k.blocked = true;
    k.signalled = false;
    w.until = until;  // what deliver_completion asks (blocked_on)
    w.cpu = cpu;
    const std::uint64_t generation = ++k.generation;
    const bool timed = std::isfinite(until) && until > now;
    k.deadline_due = timed ? until : -1;
    // In the fabric's event queue, with the packets: same-date deadlines and deliveries
    // wake their actors in the order they were set (event_queue.hpp). Not when an event
    // of an earlier block is queued for this very date: it wakes this block
    // (actor_wake.hpp). A UD rank blocks between messages until the same timer date
    // again and again (its computations' short blocks in between), and an event per
    // block cost ~520 instructions per message of a ping-pong, most in the queue's heap.
    if (timed && !k.queued_at(until)) {
      fabric_.events().wake_at(until, w.wake, generation);
      k.queue(until);
    }
    k.actor = s4u::Actor::self();
    try {
      if (!executes) {
        s4u::this_actor::suspend();
      } else {
        // The host's cores are shared (docs/model.md, "Agents and CPU time"): this
        // actor's CPU use is an execution, which SimGrid slows down by the number of
        // executions per core. A wake-up cancels it (actor_wake.hpp).
        const double seconds = computes ? std::min(*cpu_left, kBusyHorizon) : kBusyHorizon;
        s4u::ExecPtr exec = s4u::this_actor::exec_init(seconds * kHostSpeed);
        exec->start();
        k.exec = exec.get();
        k.exec_computes = computes;
        k.exec_flops = seconds * kHostSpeed;
        k.exec_earliest_end = now + seconds;
        try {
          // Starting the execution is a simcall: other actors ran meanwhile, and one of
          // them may have woken this one while k.exec was still null (a resume() of a
          // running actor does nothing). The wake-up must not be lost: cancel now.
          if (k.signalled && exec->get_state() == s4u::Activity::State::STARTED) {
            if (computes) k.exec_remaining = k.exec_flops;  // started at this date: nothing consumed
            exec->cancel();
          }
          exec->wait();
          k.exec = nullptr;
          // Done without a wake-up: a computation's end, a finite wait's next round,
          // or a wait (or sleep) without end that SimGrid cannot see is stuck.
          if (computes ? !std::isfinite(*cpu_left) : !std::isfinite(until))
            throw fabric::Error(Status::InvalidState,
                                fmt::format("{} without end on host '{}' used {} simulated seconds of CPU and nothing "
                                            "woke it: nothing ever will (a deadlock)",
                                            computes ? "a sleep_for" : "a polling wait", w.host->get_name(),
                                            kBusyHorizon));
          if (computes) *cpu_left -= seconds;
        } catch (const simgrid::CancelException&) {
          k.exec = nullptr;
          if (computes) *cpu_left -= seconds - k.exec_remaining / kHostSpeed;
        }
      }
    } catch (const simgrid::ForcefulKillException&) {
      // SimGrid kills the ranks it found blocked for good (a deadlock). The unwinding
      // may be swallowed on its way (a destructor that must not throw): remember it.
      // No longer blocked: nothing may resume this actor once it is gone.
      k.blocked = false;
      k.exec = nullptr;
      w.until = -1;
      fabric_.note_killed(s4u::this_actor::get_pid());
      throw;
    }
    k.blocked = false;
    w.until = -1;
    blocked = true;
  }
  process_arrival();
  return blocked;
}

Status SimRuntime::wait(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  return wait_until(sources, deadline, Until::CompletionOrMemory);
}

Status SimRuntime::wait_for_completion(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  return wait_until(sources, deadline, Until::Completion);
}

Status SimRuntime::wait_for_event(std::span<fabric::CompletionQueue* const> sources, double deadline) {
  return wait_until(sources, deadline, Until::Event);
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

Status SimRuntime::wait_until(std::span<fabric::CompletionQueue* const> sources, double deadline, Until kind) {
  const char* where = kind == Until::CompletionOrMemory ? "Runtime::wait"
                      : kind == Until::Completion       ? "Runtime::wait_for_completion"
                                                        : "Runtime::wait_for_event";
  check_time(deadline, where);
  check_sources(sources, where);
  if (kind == Until::Event && sources.empty())
    throw fabric::Error(Status::InvalidArgument,
                        fmt::format("{}: no source; an event wait ends on a completion of one of its CQs, so it needs "
                                    "at least one (sleep_for() waits for time alone)",
                                    where));
  Waiter& w = self(where);
  empty_polls_ = 0;
  const bool memory = kind == Until::CompletionOrMemory;
  // Only data placed during this wait makes it return early: the caller looked at its
  // memory before calling.
  w.memory_written = false;
  // The CPU work the caller did since it last waited comes first (charge_cpu). Data
  // that lands meanwhile makes this wait return at once: the caller has not seen it.
  settle_debt(w);
  // An event wait that blocked and then saw a completion returns event_latency later:
  // the interrupt and the wake-up of a thread sleeping on a completion channel.
  bool slept = false;
  double event_at = -1;
  // Multi-actor: an actor leaving with packets queued hands them to another.
  struct HandOff {
    SimRuntime& rt;
    ~HandOff() { rt.hand_off(); }
  } hand_off{*this};
  for (;;) {
    run_due_timers();
    if (any_ready(sources)) {
      if (kind != Until::Event || !slept) return Status::Ok;
      if (event_at < 0) event_at = now() + fabric_.platform().hca.event_latency;
      if (now() >= event_at) return Status::Ok;
    }
    // The event came, and the completion behind it is gone: another waiter on the CQ
    // (the rank, beside its agent) polled it during the wake-up. The thread still
    // wakes (ibv_get_cq_event returns for the event, not for the entry); waiting on
    // for a completion that is no longer there would spin at this date.
    if (event_at >= 0 && now() >= event_at) return Status::Ok;
    if ((w.memory_written || w.notified) && memory) {
      w.memory_written = false;
      w.notified = false;
      return Status::Ok;
    }
    if (now() >= deadline) return event_at >= 0 ? Status::Ok : Status::Timeout;
    double until = next_wake(sources, deadline);
    // Once it saw its completion, an event wait only waits out the wake-up.
    if (event_at >= 0) until = std::min(until, event_at);
    set_blocked_sources(w, event_at >= 0 ? std::span<fabric::CompletionQueue* const>{} : sources);
    w.memory = memory;
    const bool blocked = block(w, until, kind == Until::Event ? Cpu::Idle : Cpu::Poll);
    slept = slept || blocked;
    set_blocked_sources(w, {});
    w.memory = false;
  }
}

void SimRuntime::sleep_for(double seconds) {
  check_time(seconds, "Runtime::sleep_for");
  Waiter& w = self("Runtime::sleep_for");
  empty_polls_ = 0;
  struct HandOff {
    SimRuntime& rt;
    ~HandOff() { rt.hand_off(); }
  } hand_off{*this};
  double owed = 0;
  if (w.cpu_debt >= kMinDebt) std::swap(owed, w.cpu_debt);
  compute(w, (seconds > 0 ? seconds : 0) + owed);
  w.memory_written = false;
}

void SimRuntime::charge_cpu(double seconds) {
  if (!(seconds > 0)) return;
  Waiter& w = self("Runtime::charge_cpu");
  w.cpu_debt += seconds;
  if (!devices_.empty()) devices_.front()->hca().counters().host_software_ns += static_cast<uint64_t>(seconds * 1e9 + 0.5);
}

double SimRuntime::caller_debt() const noexcept {
  if (agents_.empty()) return owner_.cpu_debt;
  if (s4u::Actor::self() == nullptr) return 0;  // maestro
  const aid_t me = s4u::this_actor::get_pid();
  if (me == owner_.actor) return owner_.cpu_debt;
  for (const auto& w : agents_)
    if (w->actor == me) return w->cpu_debt;
  return 0;
}

void SimRuntime::settle_debt(Waiter& w) {
  // Less than a nanosecond stays owed (the `ideal` preset's copies): a computation that
  // short ends at the date it starts, which SimGrid 3.32's CPU model handles badly when
  // another actor wakes the computing one at that date ("updating an action that is
  // not running"; SimSharedMemory::charge_copy has the same floor).
  if (!(w.cpu_debt >= kMinDebt)) return;
  const double owed = w.cpu_debt;
  w.cpu_debt = 0;
  compute(w, owed);  // data placed meanwhile stays noted in memory_written
}

void SimRuntime::compute(Waiter& w, double seconds) {
  // CPU seconds still to spend. While the host is not contended they pass in real
  // (simulated) time, up to a fixed end; on a contended one, as an execution that
  // SimGrid slows down by the host's sharing (docs/model.md, "Agents and CPU time").
  double left = seconds;
  double end = -1;
  for (;;) {
    run_due_timers();
    if (!fabric_.contended(w.host)) {
      if (end < 0) end = now() + left;
      if (now() >= end) break;
      block(w, next_wake({}, end), Cpu::Compute);
      left = end - now();
    } else {
      end = -1;
      if (!(left > 0)) break;
      block(w, next_wake({}, kForever), Cpu::Compute, &left);
    }
  }
}

void SimRuntime::idle_for(double seconds) {
  check_time(seconds, "Runtime::idle_for");
  Waiter& w = self("Runtime::idle_for");
  empty_polls_ = 0;
  struct HandOff {
    SimRuntime& rt;
    ~HandOff() { rt.hand_off(); }
  } hand_off{*this};
  settle_debt(w);  // the work the caller did before it went idle
  // Suspended (Cpu::Idle) until the end, whatever the host's sharing: no core taken.
  const double end = now() + (seconds > 0 ? seconds : 0);
  for (;;) {
    run_due_timers();
    if (now() >= end) break;
    block(w, next_wake({}, end), Cpu::Idle);
  }
  w.memory_written = false;
}

void SimRuntime::wait_for_agent(const bool& done, std::shared_ptr<ActorWake>& joiner, aid_t agent,
                                const std::string& name) {
  Waiter& w = self("Agent::join");
  if (w.actor == agent)
    throw fabric::Error(Status::InvalidState,
                        fmt::format("Agent::join: agent '{}' joins itself and would never return; join it from the "
                                    "rank or another agent",
                                    name));
  struct HandOff {
    SimRuntime& rt;
    ~HandOff() { rt.hand_off(); }
  } hand_off{*this};
  settle_debt(w);
  for (;;) {
    run_due_timers();
    if (done) break;
    joiner = w.wake;
    // Blocked as a thread in pthread_join: no CPU. The agent's end wakes it.
    block(w, next_wake({}, kForever), Cpu::Idle, nullptr, /*forever_ok=*/true);
  }
  joiner.reset();
}

void SimRuntime::yield() { s4u::this_actor::yield(); }

bool SimRuntime::on_agent() const {
  if (agents_.empty()) return false;
  const aid_t me = s4u::this_actor::get_pid();
  for (const auto& w : agents_)
    if (w->actor == me) return true;
  return false;
}

std::unique_ptr<fabric::Agent> SimRuntime::spawn(const std::string& name, std::function<void()> body) {
  check_agent_body(name, body);
  Waiter& w = self("Runtime::spawn");
  return spawn_sim_agent(fabric_, fabric_.shared_runtime_of_self(), w.host, name, std::move(body));
}

}  // namespace twinfab::sim
