// Internal: the simulated fabric's own events — small packets reaching their
// destination, larger ones leaving a busy HCA (wire.hpp) and the deadlines of blocked
// actors — run in maestro at their dates, behind a single SimGrid timer.
//
// Why not a SimGrid timer per event: SimGrid 3.32 keeps its kernel timers in a
// Fibonacci heap ordered by date alone, so timers of the same date fire in an order
// that depends on the heap's shape. In a simulation of identical ranks thousands of
// deadlines fall on the same date, and the ranks then ran in a new permutation every
// iteration of a ring (measured: the previous iteration's successor of a rank
// predicted its next one for 2 % of resumes at 4096 ranks). Here events of one date
// run in the order they were queued, packets and deadlines alike, so ranks that ran in
// some order at one date run in that order again at the next date they share (94 % of
// the resumes at 4096 ranks now follow the rank they followed an iteration before,
// about half of them in rank order). Each SimGrid timer also cost allocations and a
// scattered heap node; the array of pending events stays a few kilobytes.
//
// A deadline whose actor was woken earlier stays queued until its date and then does
// nothing (as the SimGrid timers did), unless the actor's current block has that same
// deadline: then it wakes that block, which queued no event of its own
// (actor_wake.hpp's deadline_due and queued).
//
// Events are queued from whichever context runs (usually an actor), not through a
// simcall: safe because twinfab's actors run one at a time (contexts/nthreads:1, set by
// ensure_engine in sim_fabric.cpp), so the queue and SimGrid's timer heap are touched
// by one context at a time, in the deterministic order the contexts run.
#pragma once

#include <simgrid/forward.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backends/sim/actor_wake.hpp"

namespace twinfab::sim {

class SimDevice;
struct WireMessage;

class EventQueue {
 public:
  /// Called in maestro when a packet queued by packet_at() reaches its date.
  using Arrive = std::function<void(SimDevice* to, WireMessage* m)>;
  /// Called in maestro when a packet queued by departure_at() is due to leave its
  /// sender (wire.hpp: a large packet whose sender's HCA was busy).
  using Depart = std::function<void(SimDevice* to, WireMessage* m)>;

  explicit EventQueue(Arrive arrive);
  /// Events still queued are dropped: the timer's callback finds this queue gone.
  ~EventQueue();
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  /// `m` for `to` reaches its destination at `due` (not before the current date).
  void packet_at(double due, SimDevice* to, WireMessage* m);
  /// What departure_at() calls; set once, by the Wire that uses this queue.
  void set_departure(Depart depart);
  /// `m` for `to` leaves its sender at `due`: calls the departure handler then.
  void departure_at(double due, SimDevice* to, WireMessage* m);
  /// Calls wake->deadline(generation) at `due`.
  void wake_at(double due, std::shared_ptr<ActorWake> wake, std::uint64_t generation);

 private:
  struct Event {
    double due;
    std::uint64_t seq;  ///< queueing order, among events of the same date
    SimDevice* to;      ///< a packet: its destination and the packet
    WireMessage* message;
    std::shared_ptr<ActorWake> wake;  ///< a deadline: whom it wakes, for which block
    std::uint64_t generation;
    bool departs = false;  ///< a packet leaving its sender, not reaching its destination
    /// Due later (then queued later): the heap orders by std::greater.
    bool operator>(const Event& other) const { return due != other.due ? due > other.due : seq > other.seq; }
  };
  struct State {
    Arrive arrive;
    Depart depart;
    bool alive = true;
    std::vector<Event> heap;  ///< min-heap by (due, seq)
    std::uint64_t next_seq = 0;
    /// The one SimGrid timer, set for heap.front() (or earlier); null when none is set.
    simgrid::kernel::timer::Timer* timer = nullptr;
    double timer_due = 0;
  };
  /// Shared with the SimGrid timer's callback, which may run after this queue is gone.
  std::shared_ptr<State> state_;

  static void push(const std::shared_ptr<State>& state, Event e);
  /// The timer's callback: runs every event due by now, then sets the next timer.
  static void run_due(const std::shared_ptr<State>& state);
  static void set_timer(const std::shared_ptr<State>& state, double due);
};

}  // namespace twinfab::sim
