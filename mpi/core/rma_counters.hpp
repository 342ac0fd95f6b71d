// twinfab MPI core: what one-sided communication did at one rank (mpi/rma counts, the
// Context keeps them so that MPI_T reads them as it reads the other counters).
#pragma once

#include <cstdint>

namespace twinfab::mpi {

struct RmaCounters {
  std::uint64_t puts = 0;
  std::uint64_t gets = 0;
  std::uint64_t accumulates = 0;         ///< accumulate, get_accumulate, fetch_and_op, compare_and_swap
  std::uint64_t rdma_writes = 0;         ///< work requests of puts and of PSCW flags
  std::uint64_t rdma_reads = 0;          ///< work requests of gets
  std::uint64_t remote_atomics = 0;      ///< compare-and-swap / fetch-and-add work requests (locks)
  std::uint64_t messages = 0;            ///< operation and control messages sent
  std::uint64_t operations_applied = 0;  ///< operations applied at this rank as a target
  std::uint64_t lock_attempts = 0;       ///< lock acquisition attempts (atomics or requests)
  /// Messages of the thread and event lock designs: requests, unlocks and closes this
  /// rank sent to other ranks' lock agents, and grants written to other origins by its
  /// own agent or its own unlock. Its lock agent (an OS thread on hardware) adds to it
  /// too: read and written through std::atomic_ref.
  std::uint64_t lock_messages = 0;
  std::uint64_t fences = 0;
};

}  // namespace twinfab::mpi
