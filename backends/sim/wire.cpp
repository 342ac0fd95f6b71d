#include "backends/sim/wire.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/simix.hpp>

#include <algorithm>
#include <cmath>
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
  const bool* alive;            // into *state: whether `wire` still exists
  Wire* wire;
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
  if (*done.alive) done.wire->landed(done.to, done.message);
  // Activity::complete() still uses the comm after the signal: release it later.
  simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock(), [comm = std::move(done.comm)] {});
}

}  // namespace

Wire::Wire(EventQueue& events, Arrive arrive, const std::vector<s4u::Host*>& hosts)
    : events_(events), hosts_(hosts), state_(std::make_shared<State>()) {
  state_->arrive = std::move(arrive);
  // The queue outlives this wire, and its events are dropped with it (event_queue.hpp).
  senders_.resize(hosts.size());
  events_.set_departure([state = state_, this](SimDevice* to, WireMessage* m) {
    if (state->alive) depart(to, m);
  });
  static const bool registered = (s4u::Activity::on_completion_cb(&on_completion), true);
  (void)registered;
}

Wire::~Wire() { state_->alive = false; }

void Wire::carry(SimDevice* to, WireMessage* m, const Route& route, std::uint64_t wire_bytes) {
  const double now = s4u::Engine::get_clock();
  if (wire_bytes <= kTimerBytes) {
    // The delay it carries (its sender's HCA was busy, retransmissions) is spent on the
    // way: a blocked receiver is woken once, when the packet can be processed, instead
    // of at its arrival and again when the delay is over. Same dates: a rank processes
    // a packet at the date it arrives, as simulated time only passes in its runtime.
    // It leaves once its sender's port is free (earlier small packets serialised); the
    // receiver's port takes it in order of arrival (SimHca::book_ingress).
    const double serialise = static_cast<double>(wire_bytes) / route.bottleneck_bw;
    Sender& from = senders_[m->src_host];
    const double leaves = std::max(now + m->extra_delay, from.egress_free);
    from.egress_free = leaves + serialise;
    const double due = leaves + route.latency + serialise;
    m->ingress_seconds = serialise;
    m->extra_delay = 0;
    events_.packet_at(due, to, m);
    return;
  }
  m->wire_bytes = wire_bytes;
  m->window = route.window;
  if (m->extra_delay > 0) {
    // Held at the sender until its HCA gets to it (see the header).
    const double departs = now + m->extra_delay;
    m->extra_delay = 0;
    events_.departure_at(departs, to, m);
    return;
  }
  simgrid::kernel::actor::simcall_answered([this, to, m] { depart(to, m); });
}

std::uint32_t Wire::window(double latency, double bottleneck_bw, double wqe_processing) {
  constexpr std::uint32_t kLeast = 4, kMost = 4096;
  const double gap = std::max(wqe_processing, static_cast<double>(kTimerBytes + 1) / bottleneck_bw);
  if (!(gap > 0) || !std::isfinite(latency)) return kMost;
  const double busy = std::ceil(latency / gap) + 1;
  return busy >= kMost ? kMost : std::max(kLeast, static_cast<std::uint32_t>(busy));
}

void Wire::depart(SimDevice* to, WireMessage* m) {
  Sender& sender = senders_[m->src_host];
  if (sender.in_flight >= m->window || !sender.waiting.empty()) {
    sender.waiting.push_back({to, m});
    return;
  }
  ++sender.in_flight;
  start_comm(to, m);
}

void Wire::landed(SimDevice* to, WireMessage* m) {
  Sender& sender = senders_[m->src_host];
  --sender.in_flight;
  // The next ones leave now (in order, as many as their windows allow), once SimGrid
  // is done with this completion.
  while (!sender.waiting.empty() && sender.in_flight < sender.waiting.front().second->window) {
    auto next = sender.waiting.front();
    sender.waiting.pop_front();
    ++sender.in_flight;
    simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock(), [state = state_, this, next] {
      if (state->alive) start_comm(next.first, next.second);
    });
  }
  state_->arrive(to, m);
}

void Wire::start_comm(SimDevice* to, WireMessage* m) {
  // Started here, in maestro: SimGrid then reports the completion through
  // Activity::on_completion with no actor waiting on it.
  s4u::CommPtr comm = s4u::Comm::sendto_init(hosts_[m->src_host], hosts_[m->dst_host]);
  comm->set_payload_size(m->wire_bytes);
  // Registered before it starts: on a route without latency or bandwidth limit
  // (the "ideal" preset) it can complete inside start().
  s4u::Comm* raw = comm.get();
  in_flight().emplace(raw, InFlight{state_, &state_->alive, this, to, m, std::move(comm)});
  raw->start();
}

}  // namespace twinfab::sim
