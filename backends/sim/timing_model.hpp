// The simulator's timing model in closed form, for documentation, tools and tests.
//
// An isolated RC message of s payload bytes between two hosts behind one switch takes
//
//   T(s) = post_overhead + wqe_processing + pipeline_latency
//        + 3 * pcie_latency                                      (fixed HCA/PCIe part)
//        + 2 * link_latency + switch_latency                      (route)
//        + wire_bytes(s) / min(link_bandwidth, pcie_bandwidth)    (serialisation)
//
//   wire_bytes(s) = s + max(1, ceil(s / mtu)) * header_bytes
//
// from the post until the data is in the target's memory. SimGrid computes the route
// and serialisation parts (and shares bandwidth when messages overlap); the fixed part
// rides on the two PCIe links of the route. docs/model.md derives it.
#pragma once

#include <cstdint>

#include "backends/sim/platform.hpp"

namespace twinfab::sim {

/// T(s) above, in seconds, for two hosts behind one switch (single-switch topology).
double predicted_one_way(const Platform& p, uint64_t bytes);
/// Bytes on the wire for a payload of `bytes`.
uint64_t predicted_wire_bytes(const Platform& p, uint64_t bytes);

}  // namespace twinfab::sim
