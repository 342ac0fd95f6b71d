// The conformance suite's view of a backend: something that can run a test body with
// two devices that reach each other. Every backend present at run time registers one,
// and every conformance test is instantiated once per registered backend.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fabric/device.hpp"

namespace twinfab::testing {

class TestBackend {
 public:
  virtual ~TestBackend() = default;
  /// Test-name-safe identifier, e.g. "sim_ideal", "sim_connectx_ddr", "verbs_rxe0".
  virtual std::string name() const = 0;
  /// Runs `body` with two devices that can talk to each other: two simulated hosts, or
  /// the same RDMA device opened twice (like rdma-core's tests, client and server in
  /// one process). The body runs where waiting is legal (inside the simulation, or on
  /// the test thread for hardware).
  virtual void run(const std::function<void(fabric::Device& a, fabric::Device& b)>& body) = 0;
};

/// Every backend usable in this process (sim presets always; verbs when a device is
/// present). Defined in backends.cpp.
std::vector<std::shared_ptr<TestBackend>> available_backends();

}  // namespace twinfab::testing
