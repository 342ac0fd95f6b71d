// twinfab calibrate: fits the simulator's platform keys to what a device measures
// (issue 33, item 4; docs/model.md, "Calibration").
//
// The probes are perftest's (tools/twinfab/perf.hpp) run between two contexts of the
// device, as `twinfab perf --backend verbs` does, plus the time of memory
// registrations and of the host's memcpy. The fit (fit_platform) is pure: it maps the
// probes onto the timing model of docs/model.md, "Timing of a message":
//   T(s) = fixed + wire_bytes(s) / bandwidth,   fixed = post + wqe + 3 * pcie_latency
// with the pair's route taken as having no cable or switch of its own (the two
// contexts are on one device). Every key's comment in the written TOML says how it
// was obtained, measured, derived or assumed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/sim/platform.hpp"
#include "fabric/capabilities.hpp"

namespace twinfab::tools {

/// What `twinfab calibrate` measured on a device. Times in seconds, rates in bytes/s.
struct CalibrationProbes {
  std::string device;                ///< the device's name, as it reported it
  fabric::DeviceCapabilities caps;   ///< its capabilities (features, MTU, link kind)
  /// One-way RDMA write latency (perftest's typical value) by payload size.
  std::vector<std::pair<std::uint64_t, double>> write_latency;
  double read_latency = 0;           ///< 8-byte RDMA read, round trip
  double atomic_latency = -1;        ///< 8-byte fetch-and-add, round trip; < 0: no atomics
  double small_message_rate = 0;     ///< 8-byte writes per second, streamed (write-bw)
  double peak_bandwidth = 0;         ///< payload bytes/s of streamed large writes
  std::uint64_t peak_bytes = 0;      ///< their size
  /// register_memory time by length (bytes), each the best of a few.
  std::vector<std::pair<std::uint64_t, double>> registration;
  double memcpy_bandwidth = 0;       ///< a single-thread memcpy of 64 KiB on this host
};

/// The fitted platform and, per key, how its value was obtained.
struct Calibration {
  sim::Platform platform;
  std::vector<std::pair<std::string, std::string>> how;  ///< "hca.pcie_latency" -> explanation
  /// One-way write latency the fitted model predicts by size, beside the measured one
  /// (the fit's residuals, printed in the file's header).
  std::vector<std::pair<std::uint64_t, std::pair<double, double>>> check;
};

/// Throws fabric::Error(InvalidArgument) when the probes cannot make a platform (no
/// latency points, a non-positive bandwidth or rate): a failed probe never becomes a
/// plausible-looking preset.
Calibration fit_platform(const CalibrationProbes& probes, const std::string& name);

/// The platform file: every key the loader needs, each with its comment, and the
/// probes in the header. Loading it gives back calibration.platform.
std::string calibration_toml(const Calibration& calibration, const CalibrationProbes& probes,
                             const std::string& when);

/// Wire header bytes per packet for a link kind (IB: LRH+BTH+ICRC+VCRC; RoCE v2:
/// Ethernet+IPv4+UDP+BTH+ICRC; iWARP: Ethernet+IPv4+TCP+MPA+DDP/RDMAP), with the
/// derivation for the file.
std::pair<std::uint32_t, std::string> header_bytes_for(fabric::LinkKind link);

}  // namespace twinfab::tools
