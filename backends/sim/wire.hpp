// Internal: how a packet crosses the simulated network to the device context that
// receives it.
//
// Small packets (at most kTimerBytes on the wire: headers, acks, small eager messages)
// arrive at now + route latency + bytes / bottleneck bandwidth. That is what the
// max-min solver gives such a flow when nothing else shares its links; with contention
// it would give it a share of the bandwidth, a difference of nanoseconds for a packet
// of this size, and in exchange these packets never enter the solver. In SimGrid 3.32 every comm is a solver variable, and thousands of
// concurrent small flows across a fat tree's core links form one connected component
// that each flow's start and end re-solves: a 1024-rank barrier took ~25 s of wall
// clock that way.
//
// Small packets wait in the wire's own arrival queue (a binary heap in one array,
// ordered by date then send order) behind a single SimGrid timer set for the earliest
// date. One SimGrid timer per packet cost three allocations and a node of SimGrid's
// Fibonacci heap each; at thousands of ranks those scattered nodes were cache misses on
// every message, where the array of pending arrivals stays a few kilobytes.
//
// Larger packets are SimGrid host-to-host comms (bandwidth sharing, the latency and
// PCIe models of the platform), started from maestro so that SimGrid reports their
// completion through s4u::Activity::on_completion without any actor waiting on them.
//
// Either way the packet is handed to `arrive` in maestro context at its arrival date,
// which queues it on the receiving actor's runtime and wakes that actor
// (SimRuntime::deliver). Same-date small packets arrive in send order; against large
// packets the order is fixed from run to run but not necessarily send order; RC and UC
// restore order by PSN (SimDevice::handle_in_order), as they do when a small packet
// overtakes a large one.
#pragma once

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace twinfab::sim {

class SimDevice;
struct WireMessage;
struct Route;

class Wire {
 public:
  /// Called in maestro when `m` reached `to`'s host.
  using Arrive = std::function<void(SimDevice* to, WireMessage* m)>;
  /// Largest packet (wire bytes) delivered by timer instead of a SimGrid comm.
  static constexpr std::uint64_t kTimerBytes = 256;

  explicit Wire(Arrive arrive);
  /// Deliveries still under way are dropped: their callbacks find this wire gone.
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  /// Sends `m` (`wire_bytes` on the wire) from `from_host` to `to` on `to_host` along
  /// `route`. Called by an actor.
  void carry(SimDevice* to, WireMessage* m, simgrid::s4u::Host* from_host, simgrid::s4u::Host* to_host,
             const Route& route, std::uint64_t wire_bytes);

 private:
  /// A small packet waiting for its arrival date.
  struct Pending {
    double due;
    std::uint64_t seq;  // send order among packets of the same date
    SimDevice* to;
    WireMessage* message;
    /// Due later (then sent later): the heap orders by std::greater, as SimRuntime's timers do.
    bool operator>(const Pending& other) const { return due != other.due ? due > other.due : seq > other.seq; }
  };
  struct State {
    Arrive arrive;
    bool alive = true;
    std::vector<Pending> pending;  // min-heap by (due, seq)
    std::uint64_t next_seq = 0;
    /// The one SimGrid timer set for pending.front() (or earlier); null when none is set.
    simgrid::kernel::timer::Timer* timer = nullptr;
    double timer_due = 0;
  };
  /// Queues a small packet and makes sure a timer is set for the earliest arrival.
  static void enqueue(const std::shared_ptr<State>& state, Pending p);
  /// The timer's callback: hands over every packet due by now, then sets the next timer.
  static void deliver_due(const std::shared_ptr<State>& state);
  static void set_timer(const std::shared_ptr<State>& state, double due);
  std::shared_ptr<State> state_;
};

}  // namespace twinfab::sim
