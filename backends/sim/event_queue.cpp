#include "backends/sim/event_queue.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <utility>

namespace twinfab::sim {

EventQueue::EventQueue(Arrive arrive) : state_(std::make_shared<State>()) { state_->arrive = std::move(arrive); }

EventQueue::~EventQueue() { state_->alive = false; }

void EventQueue::packet_at(double due, SimDevice* to, WireMessage* m) {
  push(state_, Event{due, state_->next_seq++, to, m, nullptr, 0});
}

void EventQueue::set_departure(Depart depart) { state_->depart = std::move(depart); }

void EventQueue::departure_at(double due, SimDevice* to, WireMessage* m) {
  push(state_, Event{due, state_->next_seq++, to, m, nullptr, 0, true});
}

void EventQueue::wake_at(double due, std::shared_ptr<ActorWake> wake, std::uint64_t generation) {
  push(state_, Event{due, state_->next_seq++, nullptr, nullptr, std::move(wake), generation});
}

void EventQueue::push(const std::shared_ptr<State>& state, Event e) {
  const double due = e.due;
  auto& heap = state->heap;
  heap.push_back(std::move(e));
  std::push_heap(heap.begin(), heap.end(), std::greater<>{});
  if (state->timer != nullptr && state->timer_due <= due) return;
  if (state->timer != nullptr) state->timer->remove();
  set_timer(state, due);
}

void EventQueue::set_timer(const std::shared_ptr<State>& state, double due) {
  state->timer = simgrid::kernel::timer::Timer::set(due, [state] { run_due(state); });
  state->timer_due = due;
}

void EventQueue::run_due(const std::shared_ptr<State>& state) {
  state->timer = nullptr;  // SimGrid deletes the timer that is running this callback
  if (!state->alive) return;
  const double now = simgrid::s4u::Engine::get_clock();
  auto& heap = state->heap;
  // An event may queue further ones (due now or later): the loop sees them.
  while (!heap.empty() && heap.front().due <= now) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
    Event e = std::move(heap.back());
    heap.pop_back();
    if (e.wake != nullptr) {
      e.wake->deadline_event(e.generation, e.due);
    } else if (e.departs) {
      state->depart(e.to, e.message);
    } else {
      state->arrive(e.to, e.message);
    }
  }
  if (!heap.empty() && (state->timer == nullptr || state->timer_due > heap.front().due)) {
    if (state->timer != nullptr) state->timer->remove();
    set_timer(state, heap.front().due);
  }
}

}  // namespace twinfab::sim
