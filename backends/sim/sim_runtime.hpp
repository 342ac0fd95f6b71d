// Internal: the fabric runtime of one simulated rank — simulated clock, waiting,
// timers, agents. Everything that makes simulated time pass for a rank goes through
// here, which is also where the rank's device contexts process their arrivals.
//
// The rank's agents (actors it spawned, sim_agent.hpp) use the same runtime: each
// actor that calls it is a Waiter, blocked and woken on its own. The device contexts'
// work (arrivals, timers) is done by whichever of them is inside the runtime — it
// takes no simulated time and stands for the HCA, not the CPU — and whoever does it
// wakes the waiters it satisfied. How waits use the host's CPU: docs/model.md,
// "Agents and CPU time".
#pragma once

#include <simgrid/s4u.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "backends/sim/actor_wake.hpp"
#include "backends/sim/qp_ref.hpp"
#include "backends/sim/ring_queue.hpp"
#include "fabric/runtime.hpp"
#include "fabric/types.hpp"

namespace twinfab::sim {

class SimDevice;
class SimFabric;
struct WireMessage;

class SimRuntime final : public fabric::Runtime {
 public:
  /// The runtime of actor `owner` (a rank, or a driver) on `host`.
  SimRuntime(SimFabric& fabric, aid_t owner, simgrid::s4u::Host* host);

  double now() const override { return simgrid::s4u::Engine::get_clock(); }
  fabric::Status wait(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  fabric::Status wait_for_completion(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  fabric::Status wait_for_event(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  void sleep_for(double seconds) override;
  void idle_for(double seconds) override;
  void charge_cpu(double seconds) override;
  void yield() override;
  std::unique_ptr<fabric::Agent> spawn(const std::string& name, std::function<void()> body) override;
  bool on_agent() const override;

  // --- internal ---
  aid_t owner() const noexcept { return owner_.actor; }
  /// The CPU time the calling actor owes (charge_cpu()), 0 for an actor that is not
  /// this runtime's: what delays its posts (SimDevice::dispatch).
  double caller_debt() const noexcept;
  void add_device(SimDevice* d) { devices_.push_back(d); }
  void remove_device(SimDevice* d);

  /// A send-queue completion of `qp` due at `when` (dropped if `qp` is destroyed first).
  void schedule_completion(double when, SimQueuePair& qp, uint64_t seq, fabric::WcStatus status,
                           uint32_t byte_len);
  /// An arrival to process at `when` (ICM miss penalty, queueing delay, RNR retry).
  void schedule_arrival(double when, SimDevice* device, WireMessage* m);
  /// Runs every timer due by now. Called on every entry into the runtime and by poll.
  void run_due_timers();
  /// True when an actor of this runtime is blocked in a wait on `cq` until later than
  /// `when`: a completion for it at `when` must then wake it with a message.
  bool blocked_on(const fabric::CompletionQueue* cq, double when) const;
  /// A packet for `device` arrived (called in maestro by the wire): queued, and an
  /// actor of this runtime woken if one is blocked.
  void deliver(SimDevice* device, WireMessage* m);
  /// Set when an arrival placed data in memory; wait() returns so memory pollers look.
  void note_memory_written() {
    owner_.memory_written = true;
    for (auto& w : agents_) w->memory_written = true;
  }
  /// Another rank of the host changed shared memory this one may wait for
  /// (fabric::SharedPeer::notify, called by that rank's actor): the actors of this
  /// runtime blocked in wait() are resumed, at the current date, and the next wait()
  /// of the others returns at once (a doorbell: a notification is never lost).
  void notify_memory();
  /// Poll without wait() in the simulator never advances time; after this many empty
  /// polls in a row the runtime stops the run with an explanation instead of hanging.
  void note_empty_poll();
  void note_progress() { empty_polls_ = 0; }

  /// Agents (sim_agent.cpp): actor `agent` on `host` uses this runtime from now on,
  /// until remove_agent().
  void add_agent(aid_t agent, simgrid::s4u::Host* host);
  void remove_agent(aid_t agent);
  /// Blocks the calling actor (without CPU) until `done`, serving the devices
  /// meanwhile; `joiner` holds its wake-up while it waits, for the agent to call.
  void wait_for_agent(const bool& done, std::shared_ptr<ActorWake>& joiner, aid_t agent, const std::string& name);
  /// The host's cores are now shared (SimFabric::agent_started): wakes the actors of
  /// this runtime on `host` that use CPU time while blocked without an execution, so
  /// that they block again as executions.
  void wake_cpu_users(const simgrid::s4u::Host* host);

 private:
  struct Timer {
    double when;
    uint64_t order;
    SimDevice* device;      // valid while device_id is alive
    uint32_t device_id;
    WireMessage* message;  // arrival, or nullptr for a completion
    const fabric::CompletionQueue* cq;  // completion: the send CQ it lands in
    QpRef qp;                           // completion: the requester's QP
    uint64_t seq;
    fabric::WcStatus status;
    uint32_t byte_len;
    bool operator>(const Timer& o) const { return when != o.when ? when > o.when : order > o.order; }
  };

  /// How a blocked actor uses its host's CPU: not at all (an event wait, a join), by
  /// polling (wait(), wait_for_completion()) or by computing (sleep_for()).
  enum class Cpu : uint8_t { Idle, Poll, Compute };
  /// What ends a wait early, besides the deadline.
  enum class Until : uint8_t { CompletionOrMemory, Completion, Event };

  /// What a blocked wait waits on, for blocked_on(), which other ranks' deliveries
  /// call: the simulated CQs themselves, copied as the actor blocks, so that a delivery
  /// reads this runtime only and not the waiter's CQ objects (cold at scale). Waits on
  /// more than kMaxBlockedCqs CQs keep the span.
  static constexpr std::size_t kMaxBlockedCqs = 4;

  /// One actor using this runtime: the owner (the rank) or one of its agents.
  struct Waiter {
    aid_t actor = -1;
    simgrid::s4u::Host* host = nullptr;
    /// How this actor is woken when blocked (actor_wake.hpp).
    std::shared_ptr<ActorWake> wake = std::make_shared<ActorWake>();
    std::array<const fabric::CompletionQueue*, kMaxBlockedCqs> cqs{};
    std::size_t cq_count = 0;
    std::span<fabric::CompletionQueue* const> sources{};  ///< when there are more
    double until = -1;    ///< while blocked: when it wakes at the latest; else -1
    bool memory = false;  ///< while blocked: data placed in memory ends its wait
    bool memory_written = false;
    /// A peer notified this rank (shared memory) since its last wait() returned: kept
    /// across computations and waits that do not look at memory, as a doorbell is, so
    /// that a notification never falls between a look at memory and the wait after it.
    bool notified = false;
    Cpu cpu = Cpu::Idle;  ///< while blocked
    /// CPU seconds charge_cpu() recorded and the actor has not spent yet: its next post
    /// starts after them, its next wait or sleep spends them first.
    double cpu_debt = 0;
  };
  /// The least debt settle_debt() spends (1 ns): see there.
  static constexpr double kMinDebt = 1e-9;
  /// Spends the caller's cpu_debt as computation (sleep_for's way), if it has any.
  void settle_debt(Waiter& w);
  /// sleep_for()'s body: `seconds` of CPU time for `w`.
  void compute(Waiter& w, double seconds);

  /// The calling actor's waiter; throws fabric::Error(InvalidState) naming `where` for
  /// an actor that is neither the owner nor one of its agents.
  Waiter& self(const char* where);
  template <class F>
  void for_each_waiter(F&& f) {
    f(owner_);
    for (auto& w : agents_) f(*w);
  }
  /// Wakes the blocked waiters that `wanted` selects: all are chosen first, then woken.
  /// A wake-up is a SimGrid simcall, during which other actors run: one of this
  /// runtime's agents may end then (remove_agent() erases it from agents_) or another
  /// be spawned, so agents_ must not be iterated across one. Each wake-up is for the
  /// block it was chosen in (an actor that was woken by someone else meanwhile and
  /// blocked again is left alone).
  template <class F>
  void wake_waiters(F&& wanted);
  static bool waits_on(const Waiter& w, const fabric::CompletionQueue* cq);
  static void set_blocked_sources(Waiter& w, std::span<fabric::CompletionQueue* const> sources);

  /// When the caller must be woken: the deadline, or an earlier timer that can change
  /// what it waits for — an arrival (memory, receives), an error completion (it may
  /// flush receives), or a completion for one of `sources`. A successful completion
  /// for a CQ nobody waits on is applied at the next wake-up instead: waking for it
  /// would cost a context switch per message.
  double next_wake(std::span<fabric::CompletionQueue* const> sources, double deadline) const;
  /// Blocks `w` until a packet arrives, it is woken, or `until` (not at all if a packet
  /// is queued); then processes the oldest queued packet. Returns whether it blocked.
  /// On a contended host a Poll or Compute block is a SimGrid execution (sharing the
  /// cores); a Compute one then updates `*cpu_left` (seconds of a core) and ends when
  /// the computation does. `forever_ok`: an endless block with no device is allowed
  /// (a join: the agent's end wakes it).
  bool block(Waiter& w, double until, Cpu cpu, double* cpu_left = nullptr, bool forever_ok = false);
  /// Processes the oldest packet queued by deliver(), if any (no time passes).
  void process_arrival();
  /// Multi-actor bookkeeping, all nothing while the owner is alone:
  /// wakes the blocked actors whose wait the last processing satisfied;
  void wake_satisfied();
  /// wakes the blocked actors for which a timer just added at `when` is earlier than
  /// their wake-up and matters to them;
  void wake_for_timer(double when, const fabric::CompletionQueue* cq, bool matters_to_all);
  /// wakes one blocked actor to process the queued packets (a delivery, or an actor
  /// leaving the runtime with packets still queued).
  void wake_one();
  void hand_off() {
    if (!agents_.empty() && !arrivals_.empty()) wake_one();
  }

  bool any_ready(std::span<fabric::CompletionQueue* const> sources) const;
  /// Throws fabric::Error(InvalidArgument) naming `where` for a source that is null, not
  /// a simulated CQ, or made by a device context of another rank (whose completions
  /// would never wake this one).
  void check_sources(std::span<fabric::CompletionQueue* const> sources, const char* where) const;
  fabric::Status wait_until(std::span<fabric::CompletionQueue* const> sources, double deadline, Until until);

  SimFabric& fabric_;
  std::vector<SimDevice*> devices_;
  std::vector<Timer> timers_;  // a min-heap on (when, order)
  uint64_t timer_order_ = 0;
  uint64_t empty_polls_ = 0;
  Waiter owner_;
  std::vector<std::unique_ptr<Waiter>> agents_;  ///< in the order they were spawned

  /// Packets delivered and not yet processed, in arrival order. A ring, not a deque:
  /// a deque allocates a map and a 512-byte node per rank and touches both per packet.
  RingQueue<std::pair<SimDevice*, WireMessage*>> arrivals_;
};

}  // namespace twinfab::sim
