// Per-packet loss, sampled in O(1) per loss event rather than per packet.
//
// A message of n packets with independent per-packet loss probability p: the index of
// the first lost packet is geometric, so one uniform draw tells whether (and where) the
// message loses a packet, whatever n is. That keeps the wall-clock cost of an 8 MiB
// message (4096 packets at 2 KiB MTU) equal to that of an 8-byte one.
#pragma once

#include <cstdint>
#include <random>

namespace twinfab::sim {

class LossModel {
 public:
  explicit LossModel(uint64_t seed) : rng_(seed) {}

  /// Index in [0, packets) of the first lost packet, or `packets` when none is lost.
  uint64_t first_loss(uint64_t packets, double probability);

 private:
  std::mt19937_64 rng_;
};

}  // namespace twinfab::sim
