// Internal: how a packet crosses the simulated network to the device context that
// receives it.
//
// Small packets (at most kTimerBytes on the wire: headers, acks, small eager messages)
// arrive at now + route latency + bytes / bottleneck bandwidth. That is what the
// max-min solver gives such a flow when nothing else shares its links; with contention
// it would give it a share of the bandwidth, a difference of nanoseconds for a packet
// of this size, and in exchange these packets never enter the solver. Contention among
// them is kept by two serialisers per host, for its port onto the network (here: a
// packet leaves when its sender's port is free) and its port off it (at the receiver,
// in order of arrival: SimHca::book_ingress), each at the bottleneck of link and PCIe,
// so N hosts sending small packets to one (incast) are limited by that host's link as
// larger packets are by the solver. (Small and large packets do not see each other's
// use of a port: an approximation.) In SimGrid 3.32 every comm is a solver variable, and thousands of
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
// A larger packet that waited for its sender's HCA (or for retransmissions) spends
// that delay before its comm starts, as a packet goes on the wire only when the HCA
// gets to it: bandwidth is shared among the packets on the wire, not among all those
// posted. (Spent after the transfer, as before, a burst of N posts shared the link N
// ways and then waited for the HCA again, and the solver carried thousands of comms
// that hardware would not have started yet: a 64-rank alltoall of 512 B kept ~2000
// comms on 2 hosts' links, ~80 ms of wall clock per call in SimGrid's solver.)
// A host has at most its routes' transmit windows (window()) of larger packets on the
// wire; the next ones wait at the sender in order and leave as earlier ones land, as
// an HCA's send queues hold a backlog behind link-level credits. A backlog (PCIe-bound:
// the same alltoall still had ~600 comms in flight) then costs SimGrid's solver a
// window's worth of comms instead of the whole backlog (docs/model.md).
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
#include <deque>
#include <memory>
#include <utility>
#include <vector>

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

  /// Small packets, and large ones held at their sender, go through `events`, which
  /// must outlive this wire (as must `hosts`, the engine's hosts by index).
  Wire(EventQueue& events, Arrive arrive, const std::vector<simgrid::s4u::Host*>& hosts);
  /// Deliveries still under way are dropped: their callbacks find this wire gone.
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  /// Sends `m` (`wire_bytes` on the wire) from host `m->src_host` to `to` on host
  /// `m->dst_host` along `route`, once its `extra_delay` is over. Called by an actor.
  void carry(SimDevice* to, WireMessage* m, const Route& route, std::uint64_t wire_bytes);

  /// The transmit window of a route: how many larger packets may be on the wire from
  /// their sender when one for this route leaves; the next ones wait at the sender, in
  /// order. Enough that packets the HCA starts one per max(`wqe_processing`, smallest
  /// larger packet / `bottleneck_bw`) keep the route busy for its `latency`, so a single
  /// stream is never held (connectx-ddr: 7, connectx6-hdr: ~100), and at least 4.
  static std::uint32_t window(double latency, double bottleneck_bw, double wqe_processing);

  /// Internal, called in maestro when `m`'s comm completed: `m` arrives, and the next
  /// packet waiting at its sender leaves.
  void landed(SimDevice* to, WireMessage* m);

 private:
  struct State {
    Arrive arrive;
    bool alive = true;
  };
  struct Sender {
    std::uint32_t in_flight = 0;
    std::deque<std::pair<SimDevice*, WireMessage*>> waiting;  ///< FIFO, in departure order
    // Small packets (see the header): when the host's port onto the network is free.
    double egress_free = 0;
  };
  /// `m` is ready to leave its sender (in maestro): its comm starts, or it waits.
  void depart(SimDevice* to, WireMessage* m);
  /// Starts `m`'s comm (`m->wire_bytes`, from `m->src_host`). In maestro.
  void start_comm(SimDevice* to, WireMessage* m);

  EventQueue& events_;
  const std::vector<simgrid::s4u::Host*>& hosts_;
  std::shared_ptr<State> state_;
  std::vector<Sender> senders_;  ///< by host index
};

}  // namespace twinfab::sim
