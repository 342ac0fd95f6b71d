#include "backends/sim/loss_model.hpp"

#include <cmath>

namespace twinfab::sim {

uint64_t LossModel::first_loss(uint64_t packets, double probability) {
  if (probability <= 0.0 || packets == 0) return packets;
  if (probability >= 1.0) return 0;
  // Inversion of the geometric distribution from one uniform draw in (0, 1]; written
  // out (not std::geometric_distribution) so the sequence is the same on every
  // standard library, which keeps simulations bit-for-bit reproducible.
  double u = (static_cast<double>(rng_() >> 11) + 1.0) * 0x1.0p-53;
  double k = std::floor(std::log(u) / std::log1p(-probability));
  return k >= static_cast<double>(packets) ? packets : static_cast<uint64_t>(k);
}

}  // namespace twinfab::sim
