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
//
// Optionally each rank also touches K lines of private state per resume (TouchedLines):
// the floor of any per-rank design that touches K lines per message, which is what
// bench_mpi_ring --budget measures against the 2x target.
#pragma once

#include "backends/sim/platform.hpp"

namespace twinfab::bench {

/// How a bare rank reaches the lines it touches.
enum class LineAccess {
  chained,     ///< each line holds the address of the next: dependent loads, as state reached
               ///< through pointers (request -> connection -> QP ...)
  scattered,   ///< random lines whose addresses are known up front: the loads can overlap
  contiguous,  ///< consecutive lines: the hardware prefetcher's best case (a stack, a packed array)
};

/// The private state a bare rank touches after each resume: `count` 64-byte lines, each
/// read and written (a counter incremented), among the 256 lines of a 16 KiB block the
/// rank allocates on the heap when it starts (about a simulated MPI rank's heap objects);
/// which lines and in what order follow `access`, drawn at random seeded by the rank.
struct TouchedLines {
  unsigned count = 0;
  LineAccess access = LineAccess::chained;
};

/// "chained", "scattered" or "contiguous".
const char* line_access_name(LineAccess access);

/// Wall-clock seconds per resume of `ranks` bare ranks over `rounds` rounds (each rank
/// resumed once per round), after one untimed round. Builds the SimGrid engine: call it
/// in a process that simulates nothing else (SimGrid builds one platform per process).
double bare_rank_resume_cost(const sim::Platform& platform, unsigned ranks, unsigned rounds, TouchedLines touched = {});

}  // namespace twinfab::bench
