#include "backends/sim/wire.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/simix.hpp>

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <utility>

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

Wire::Wire(Arrive arrive) : state_(std::make_shared<State>()) {
  state_->arrive = std::move(arrive);
  static const bool registered = (s4u::Activity::on_completion_cb(&on_completion), true);
  (void)registered;
}

Wire::~Wire() { state_->alive = false; }

void Wire::carry(SimDevice* to, WireMessage* m, s4u::Host* from_host, s4u::Host* to_host, const Route& route,
                 std::uint64_t wire_bytes) {
  if (wire_bytes <= kTimerBytes) {
    const double due =
        s4u::Engine::get_clock() + route.latency + static_cast<double>(wire_bytes) / route.bottleneck_bw;
    enqueue(state_, Pending{due, state_->next_seq++, to, m});
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

void Wire::enqueue(const std::shared_ptr<State>& state, Pending p) {
  const double due = p.due;
  auto& heap = state->pending;
  heap.push_back(p);
  std::push_heap(heap.begin(), heap.end(), std::greater<>{});
  if (state->timer != nullptr && state->timer_due <= due) return;
  if (state->timer != nullptr) state->timer->remove();
  set_timer(state, due);
}

void Wire::set_timer(const std::shared_ptr<State>& state, double due) {
  // Set from whichever context queues the packet (usually the sending actor), not
  // through a simcall: a simcall would suspend the actor until maestro ran it (a
  // context switch per message, and at scale the cache misses of the actor's stack and
  // SimGrid state on the way out and back). Safe because twinfab's actors run one at a
  // time (contexts/nthreads:1, set by ensure_engine in sim_fabric.cpp): the timer heap
  // and this queue are only ever touched by one context at a time, in the order the
  // contexts run, which is deterministic.
  state->timer = simgrid::kernel::timer::Timer::set(due, [state] { deliver_due(state); });
  state->timer_due = due;
}

void Wire::deliver_due(const std::shared_ptr<State>& state) {
  state->timer = nullptr;  // SimGrid deletes the timer that is running this callback
  const double now = s4u::Engine::get_clock();
  auto& heap = state->pending;
  // A delivery may queue further packets (due now or later): the loop sees them.
  while (!heap.empty() && heap.front().due <= now) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
    const Pending p = heap.back();
    heap.pop_back();
    if (state->alive) state->arrive(p.to, p.message);
  }
  if (!heap.empty() && (state->timer == nullptr || state->timer_due > heap.front().due)) {
    if (state->timer != nullptr) state->timer->remove();
    set_timer(state, heap.front().due);
  }
}

}  // namespace twinfab::sim
