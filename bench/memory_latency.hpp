// What a dependent load costs on this machine, by how much memory it ranges over: the
// reference next to which the simulator's cost per message at thousands of ranks is
// read (bench_mpi_ring --scaling, docs/mpi.md "Performance", docs/performance-notes.md).
//
// Each point follows a random cycle through every 64-byte line of a buffer of the given
// size, one load depending on the previous one (no prefetcher can guess the next
// address), and reports the mean time per load. While the buffer fits in the caches the
// process gets, a load costs a cache hit; beyond, a trip to memory (and a TLB miss).
#pragma once

#include <cstddef>
#include <vector>

namespace twinfab::bench {

struct LoadLatency {
  std::size_t bytes;   ///< the buffer the cycle runs through
  double nanoseconds;  ///< mean time per dependent load
};

/// One point per size (in bytes, each at least 64), `loads` timed loads each after one
/// untimed pass through the cycle. The cycle's order is seeded: the same on every run.
std::vector<LoadLatency> dependent_load_latency(const std::vector<std::size_t>& sizes, std::size_t loads);

}  // namespace twinfab::bench
