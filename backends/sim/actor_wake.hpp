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
// does nothing.
#pragma once

#include <simgrid/s4u/Actor.hpp>

#include <cstdint>

namespace twinfab::sim {

struct ActorWake {
  simgrid::s4u::Actor* actor = nullptr;  ///< the blocked actor, set while blocked
  bool blocked = false;
  bool signalled = false;
  std::uint64_t generation = 0;  ///< of the current block; a deadline of an older one is stale

  /// In maestro: resumes the actor if it is blocked and nothing resumed it yet. It then
  /// runs at the current date, after the actors resumed before it.
  void wake() {
    if (blocked && !signalled) {
      signalled = true;
      actor->resume();
    }
  }
  /// A deadline set for block `of_generation` is due.
  void deadline(std::uint64_t of_generation) {
    if (of_generation == generation) wake();
  }
};

}  // namespace twinfab::sim
