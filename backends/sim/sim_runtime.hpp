// Internal: the fabric runtime of one simulated actor — simulated clock, waiting,
// timers, agents. Everything that makes simulated time pass for a rank goes through
// here, which is also where the rank's device contexts process their arrivals.
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
  explicit SimRuntime(SimFabric& fabric) : fabric_(fabric) {}

  double now() const override { return simgrid::s4u::Engine::get_clock(); }
  fabric::Status wait(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  fabric::Status wait_for_completion(std::span<fabric::CompletionQueue* const> sources, double deadline) override;
  void sleep_for(double seconds) override;
  void yield() override;
  std::unique_ptr<fabric::Agent> spawn(const std::string& name, std::function<void()> body) override;

  // --- internal ---
  void add_device(SimDevice* d) { devices_.push_back(d); }
  void remove_device(SimDevice* d);

  /// A send-queue completion of `qp` due at `when` (dropped if `qp` is destroyed first).
  void schedule_completion(double when, SimQueuePair& qp, uint64_t seq, fabric::WcStatus status,
                           uint32_t byte_len);
  /// An arrival to process at `when` (ICM miss penalty, queueing delay, RNR retry).
  void schedule_arrival(double when, SimDevice* device, WireMessage* m);
  /// Runs every timer due by now. Called on every entry into the runtime and by poll.
  void run_due_timers();
  /// True when the owning actor is blocked in wait() on `cq` until later than `when`:
  /// a completion for it at `when` must then wake it with a message.
  bool blocked_on(const fabric::CompletionQueue* cq, double when) const;
  /// A packet for `device` arrived (called in maestro by the wire): queued, and the
  /// actor woken if it is blocked.
  void deliver(SimDevice* device, WireMessage* m);
  /// Set when an arrival placed data in memory; wait() returns so memory pollers look.
  void note_memory_written() { memory_written_ = true; }
  /// Poll without wait() in the simulator never advances time; after this many empty
  /// polls in a row the runtime stops the run with an explanation instead of hanging.
  void note_empty_poll();
  void note_progress() { empty_polls_ = 0; }

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
  /// When the caller must be woken: the deadline, or an earlier timer that can change
  /// what it waits for — an arrival (memory, receives), an error completion (it may
  /// flush receives), or a completion for one of `sources`. A successful completion
  /// for a CQ nobody waits on is applied at the next wake-up instead: waking for it
  /// would cost a context switch per message.
  double next_wake(std::span<fabric::CompletionQueue* const> sources, double deadline) const;
  /// Blocks until a packet arrives or `until` (not at all if one is queued); then
  /// processes the oldest queued packet.
  void block(double until);
  /// Processes the oldest packet queued by deliver(), if any (no time passes).
  void process_arrival();

  bool any_ready(std::span<fabric::CompletionQueue* const> sources) const;
  /// Throws fabric::Error(InvalidArgument) naming `where` for a source that is null, not
  /// a simulated CQ, or made by a device context of another rank (whose completions
  /// would never wake this one).
  void check_sources(std::span<fabric::CompletionQueue* const> sources, const char* where) const;

  SimFabric& fabric_;
  std::vector<SimDevice*> devices_;
  std::vector<Timer> timers_;  // a min-heap on (when, order)
  uint64_t timer_order_ = 0;
  /// What a blocked wait() waits on, for blocked_on(), which other ranks' deliveries
  /// call: the simulated CQs themselves, copied as the rank blocks, so that a delivery
  /// reads this runtime only and not the waiter's CQ objects (cold at scale). Waits on
  /// more than kMaxBlockedCqs CQs keep the span.
  static constexpr std::size_t kMaxBlockedCqs = 4;
  std::array<const fabric::CompletionQueue*, kMaxBlockedCqs> blocked_cqs_{};
  std::size_t blocked_cq_count_ = 0;
  std::span<fabric::CompletionQueue* const> blocked_sources_{};  ///< when there are more
  double blocked_until_ = -1;
  void set_blocked_sources(std::span<fabric::CompletionQueue* const> sources);
  bool memory_written_ = false;
  uint64_t empty_polls_ = 0;
  /// wait() and wait_for_completion(): `memory` says whether data placed in memory
  /// ends the wait.
  fabric::Status wait_until(std::span<fabric::CompletionQueue* const> sources, double deadline, bool memory);

  /// Packets delivered and not yet processed, in arrival order. A ring, not a deque:
  /// a deque allocates a map and a 512-byte node per rank and touches both per packet.
  RingQueue<std::pair<SimDevice*, WireMessage*>> arrivals_;
  /// How this actor is woken when blocked (actor_wake.hpp).
  std::shared_ptr<ActorWake> wake_ = std::make_shared<ActorWake>();
};

}  // namespace twinfab::sim
