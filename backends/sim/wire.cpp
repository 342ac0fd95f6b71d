#include "backends/sim/wire.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/simix.hpp>

#include <functional>
#include <unordered_map>
#include <utility>

#include "backends/sim/event_queue.hpp"
#include "backends/sim/sim_fabric.hpp"

namespace twinfab::sim {

namespace s4u = simgrid::s4u;

namespace {

/// A large packet on its way as a SimGrid comm.
struct InFlight {
  std::shared_ptr<void> state;  // the Wire's State (type-erased: the callback is below)
  Wire::Arrive* arrive;         // into *state, valid while state is alive
  const bool* alive;            // into *state
  SimDevice* to;
  WireMessage* message;
  s4u::CommPtr comm;  // SimGrid requires the s4u object to outlive the comm
};

/// The comms of every Wire in the process, by activity. SimGrid's engine is one per
/// process and its completion signal is global; only maestro touches this (inside
/// simcall_answered and the signal), never two threads at once.
std::unordered_map<const s4u::Activity*, InFlight>& in_flight() {
  static std::unordered_map<const s4u::Activity*, InFlight> map;
  return map;
}

void on_completion(const s4u::Activity& activity) {
  auto& map = in_flight();
  auto it = map.find(&activity);
  if (it == map.end()) return;  // not one of ours
  InFlight done = std::move(it->second);
  map.erase(it);
  if (*done.alive) (*done.arrive)(done.to, done.message);
  // Activity::complete() still uses the comm after the signal: release it later.
  simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock(), [comm = std::move(done.comm)] {});
}

}  // namespace

Wire::Wire(EventQueue& events, Arrive arrive) : events_(events), state_(std::make_shared<State>()) {
  state_->arrive = std::move(arrive);
  static const bool registered = (s4u::Activity::on_completion_cb(&on_completion), true);
  (void)registered;
}

Wire::~Wire() { state_->alive = false; }

void Wire::carry(SimDevice* to, WireMessage* m, s4u::Host* from_host, s4u::Host* to_host, const Route& route,
                 std::uint64_t wire_bytes) {
  if (wire_bytes <= kTimerBytes) {
    // The delay it carries (its sender's HCA was busy, retransmissions) is spent on the
    // way: a blocked receiver is woken once, when the packet can be processed, instead
    // of at its arrival and again when the delay is over. Same dates: a rank processes
    // a packet at the date it arrives, as simulated time only passes in its runtime.
    const double due = s4u::Engine::get_clock() + route.latency +
                       static_cast<double>(wire_bytes) / route.bottleneck_bw + m->extra_delay;
    m->extra_delay = 0;
    events_.packet_at(due, to, m);
    return;
  }
  simgrid::kernel::actor::simcall_answered([this, to, m, from_host, to_host, wire_bytes] {
    // Started here, in maestro: SimGrid then reports the completion through
    // Activity::on_completion with no actor waiting on it.
    s4u::CommPtr comm = s4u::Comm::sendto_init(from_host, to_host);
    comm->set_payload_size(wire_bytes);
    // Registered before it starts: on a route without latency or bandwidth limit
    // (the "ideal" preset) it can complete inside start().
    s4u::Comm* raw = comm.get();
    in_flight().emplace(raw, InFlight{state_, &state_->arrive, &state_->alive, to, m, std::move(comm)});
    raw->start();
  });
}

}  // namespace twinfab::sim
