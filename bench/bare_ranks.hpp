// The simulator's scheduling floor: what a simulated rank costs per resume when it does
// nothing but block and be woken, the reference next to which bench_mpi_ring --scaling
// reads the ring's cost per message (docs/mpi.md, "Performance"; docs/performance-notes.md).
//
// N SimGrid actors on the platform's hosts (one per host, as the ring places ranks),
// configured as the simulator configures its ranks (ensure_engine: stack size, context
// factory, one context at a time). Each blocks as SimRuntime::block does: it queues a
// deadline one microsecond ahead in an EventQueue and suspends; the queue wakes every
// rank at that date, in the order the deadlines were set. No fabric, no MPI: what grows
// with N here is SimGrid's and the event queue's per-rank state (actor, context, stack
// frames of the switch, wake record), not twinfab's QPs, CQs or MPI context.
#pragma once

#include "backends/sim/platform.hpp"

namespace twinfab::bench {

/// Wall-clock seconds per resume of `ranks` bare ranks over `rounds` rounds (each rank
/// resumed once per round), after one untimed round. Builds the SimGrid engine: call it
/// in a process that simulates nothing else (SimGrid builds one platform per process).
double bare_rank_resume_cost(const sim::Platform& platform, unsigned ranks, unsigned rounds);

}  // namespace twinfab::bench
