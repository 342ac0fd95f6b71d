#include "backends/sim/timing_model.hpp"

#include <algorithm>

namespace twinfab::sim {

uint64_t predicted_wire_bytes(const Platform& p, uint64_t bytes) {
  uint64_t packets = bytes == 0 ? 1 : (bytes + p.mtu - 1) / p.mtu;
  return bytes + packets * p.hca.header_bytes;
}

double predicted_one_way(const Platform& p, uint64_t bytes) {
  const double fixed =
      p.hca.post_overhead + p.hca.wqe_processing + p.hca.pipeline_latency + 3 * p.hca.pcie_latency;
  const double route = 2 * p.link_latency + p.switch_latency;
  const double bw = std::min(p.link_bandwidth, p.hca.pcie_bandwidth);
  return fixed + route + static_cast<double>(predicted_wire_bytes(p, bytes)) / bw;
}

}  // namespace twinfab::sim
