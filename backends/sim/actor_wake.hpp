// Internal: how a blocked simulated actor is woken.
//
// A blocked actor suspends itself (one SimGrid simcall) and is resumed by a packet
// delivered to it or by its deadline (event_queue.hpp), only while it is blocked and
// at most once per block. (A semaphore cost more on every wait: SimGrid 3.32 allocates
// an acquisition activity per acquire and goes through its activity machinery; at
// 4096 ranks those were cache misses on every message.)
//
// Shared (std::shared_ptr) between the actor's runtime and the deadlines it set, which
// may outlive the runtime: a deadline of an older block finds a newer generation and
// does nothing, unless the newer block's deadline is the same date (deadline_due).
//
// An actor that blocks while using CPU time (a sleep or polling wait on a host whose
// cores are shared: docs/model.md, "Agents and CPU time") cannot suspend itself:
// SimGrid suspends an actor's executions with it. It waits on its execution instead,
// and a wake-up cancels the execution (the actor then starts a new one for what was
// left, which SimGrid's fluid CPU model makes equivalent to an uninterrupted one).
#pragma once

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

namespace twinfab::sim {

struct ActorWake {
  simgrid::s4u::Actor* actor = nullptr;  ///< the blocked actor, set while blocked
  bool blocked = false;
  bool signalled = false;
  std::uint64_t generation = 0;  ///< of the current block; a deadline of an older one is stale
  /// The current block's deadline (-1: none). A deadline event queued by an older block
  /// for that very date wakes this one too (the date is this block's deadline as well),
  /// so a block finding such an event queued (queued_at) queues none: a UD rank blocks
  /// between messages until the same timer date again and again, and an event per
  /// block filled the queue with stale ones.
  double deadline_due = -1;
  /// The dates of deadline events queued for this actor that have not run (a few; the
  /// rest are not tracked, and a block then queues its own).
  std::array<double, 4> queued{-1, -1, -1, -1};
  /// Whether a deadline event at `due` is queued for this actor and has not run.
  bool queued_at(double due) const noexcept {
    return std::find(queued.begin(), queued.end(), due) != queued.end();
  }
  /// A deadline event at `due` was queued.
  void queue(double due) noexcept {
    const auto free = std::find(queued.begin(), queued.end(), -1.0);
    if (free != queued.end()) *free = due;
  }
  simgrid::s4u::Exec* exec = nullptr;  ///< set while blocked on an execution: waking cancels it
  double exec_remaining = 0;           ///< flops the cancelled execution had left
  /// Whether the execution is a computation (sleep_for), whose remaining flops matter;
  /// a polling wait's do not, and are not read: SimGrid 3.32 aborts reading them from
  /// an execution whose action is no longer in its running set (seen with polling lock
  /// agents, MPICH's linked_list_bench tests, under TWINFAB_RMA_LOCK=thread).
  bool exec_computes = false;
  double exec_flops = 0;  ///< the execution's size
  /// When the execution ends if it has a core to itself: the earliest it can end.
  double exec_earliest_end = 0;

  /// In maestro or another actor: resumes the actor (or cancels the execution it waits
  /// on) if it is blocked and nothing woke it yet. It then runs at the current date,
  /// after the actors woken before it.
  void wake() {
    if (blocked && !signalled) {
      signalled = true;
      if (exec == nullptr) {
        actor->resume();
      } else if (exec->get_state() == simgrid::s4u::Activity::State::STARTED) {
        // (An execution that finished at this date wakes the actor by itself.)
        // One started at this date has consumed nothing, and the CPU model may not
        // have planned it yet: asking SimGrid 3.32 for its remaining flops then aborts
        // ("updating an action that is not running"; seen with polling lock agents in
        // MPICH's linked_list_bench tests). One started earlier is running: its
        // remaining flops are what the computation still owes. (This asked for a
        // finish time before, which a running execution does not have yet: every wake
        // threw away what the computation had done, and a rank computing beside a
        // UD reliability agent computed 0.4 s longer, from the wake to its end.)
        const double now = simgrid::s4u::Engine::get_clock();
        // A computation that may have ended at this very date (short ones: a shared-
        // memory copy's time) is left to end by itself, which wakes the actor: SimGrid
        // 3.32 may already hold its action among the finished ones, and reading its
        // remaining flops or cancelling it then aborts ("updating an action that is
        // not running"; seen with lock agents beside ranks that share a host).
        if (exec_computes && exec->get_start_time() >= 0 && exec->get_start_time() < now &&
            now >= exec_earliest_end * (1 - 1e-12))
          return;
        if (exec_computes)
          exec_remaining = exec->get_start_time() < 0 || exec->get_start_time() >= now ? exec_flops
                                                                                      : exec->get_remaining();
        exec->cancel();
      }
    }
  }
  /// A deadline set for block `of_generation` is due.
  void deadline(std::uint64_t of_generation) {
    if (of_generation == generation) wake();
  }
  /// The deadline event queued at `due` for block `of_generation` runs: wakes the actor
  /// if that is its block or the current block's deadline is this date.
  void deadline_event(std::uint64_t of_generation, double due) {
    const auto it = std::find(queued.begin(), queued.end(), due);
    if (it != queued.end()) *it = -1;
    if (of_generation == generation || due == deadline_due) wake();
  }
};

}  // namespace twinfab::sim
