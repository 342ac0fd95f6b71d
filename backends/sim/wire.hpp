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
// Small packets wait in the fabric's event queue (event_queue.hpp), which runs them in
// order of date, then of sending, behind a single SimGrid timer.
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
#include <memory>

#include "backends/sim/event_queue.hpp"

namespace twinfab::sim {

class SimDevice;
struct WireMessage;
struct Route;

class Wire {
 public:
  /// Called in maestro when `m` reached `to`'s host.
  using Arrive = EventQueue::Arrive;
  /// Largest packet (wire bytes) delivered by timer instead of a SimGrid comm.
  static constexpr std::uint64_t kTimerBytes = 256;

  /// Small packets go through `events`, which must outlive this wire.
  Wire(EventQueue& events, Arrive arrive);
  /// Deliveries still under way are dropped: their callbacks find this wire gone.
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  /// Sends `m` (`wire_bytes` on the wire) from `from_host` to `to` on `to_host` along
  /// `route`. Called by an actor.
  void carry(SimDevice* to, WireMessage* m, simgrid::s4u::Host* from_host, simgrid::s4u::Host* to_host,
             const Route& route, std::uint64_t wire_bytes);

 private:
  struct State {
    Arrive arrive;
    bool alive = true;
  };
  EventQueue& events_;
  std::shared_ptr<State> state_;
};

}  // namespace twinfab::sim
