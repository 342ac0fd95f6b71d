// twinfab one-sided MPI: reading and writing a window's control words.
//
// A control word (lock word, MCS queue node, PSCW post/complete counters, a lock
// agent's grant) is written by more than this rank's own code: the HCA's RDMA writes
// and remote atomics, or a lock agent that is an OS thread on hardware. The rank
// reads such a word with acquire semantics, so that what the writer published before
// it is visible after it, and writes with release semantics.
#pragma once

#include <atomic>
#include <cstdint>

namespace twinfab::mpi::rma {

/// `word`'s value, read with acquire semantics.
inline std::uint64_t load_control(const std::uint64_t& word) {
  return std::atomic_ref<const std::uint64_t>(word).load(std::memory_order_acquire);
}

/// Writes `value` to `word` with release semantics.
inline void store_control(std::uint64_t& word, std::uint64_t value) {
  std::atomic_ref<std::uint64_t>(word).store(value, std::memory_order_release);
}

}  // namespace twinfab::mpi::rma
