// twinfab's simulated fabric: run N ranks on a simulated platform.
//
//   twinfab::sim::Simulation sim(twinfab::sim::load_platform("connectx-ddr"));
//   sim.run(2, [](twinfab::sim::RankEnv& env) {
//     auto cq = env.device.create_cq(64);   // a fabric::Device on the rank's host HCA
//     ...                                   // exchange addresses with env.oob
//   });
//   fmt::print("{}", sim.counters().to_text());
//
// Ranks are SimGrid actors in this process: a rank's state must live in its function
// (or in objects it owns), never in globals. Within run(), simulated time advances only
// inside the fabric runtime (Runtime::wait, sleep_for) — that is also where each
// rank's simulated HCA serves incoming RDMA traffic.
//
// SimGrid builds one platform per process: a process may create several Simulation
// objects one after another on the same platform, but not on different ones.
// Same platform, program and loss seed give bit-identical results.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "backends/sim/counters.hpp"
#include "backends/sim/platform.hpp"
#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"

namespace twinfab::sim {

class SimFabric;
class Simulation;

/// What each rank's function receives.
struct RankEnv {
  unsigned rank;
  unsigned size;
  unsigned host;                ///< the simulated host (HCA) the rank runs on
  fabric::Device& device;       ///< opened on the rank's host HCA
  fabric::Runtime& runtime;     ///< == device.runtime()
  fabric::OobExchange& oob;     ///< out-of-band address exchange (zero simulated time)
  Simulation& simulation;
};

class Simulation {
 public:
  explicit Simulation(const Platform& platform);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  const Platform& platform() const noexcept;
  const fabric::DeviceCapabilities& capabilities() const noexcept;

  /// Runs `nranks` ranks, `ranks_per_host` per host (0: the platform's value), rank r
  /// on host r / ranks_per_host; returns when all have returned. An exception thrown
  /// by a rank is rethrown here (the first one, by rank). Throws fabric::Error if the
  /// platform has too few hosts, or if ranks deadlock (all waiting forever).
  void run(unsigned nranks, const std::function<void(RankEnv&)>& body, unsigned ranks_per_host = 0);
  /// Runs one actor on host 0 (tests and tools that drive several devices themselves).
  void run_single(const std::function<void()>& body);
  /// Opens a device context on `host` for the calling actor; only inside run().
  std::unique_ptr<fabric::Device> open_device(unsigned host);

  /// Counters since construction or the last reset: the sum over the HCAs.
  Counters counters() const;
  /// One HCA's (host's) counters since construction or the last reset; counters.hpp
  /// says which HCA counts what. Throws fabric::Error(InvalidArgument) when `host` is
  /// not below host_count().
  Counters hca_counters(unsigned host) const;
  /// The platform's hosts, each with one simulated HCA.
  unsigned host_count() const;
  /// Zeroes every HCA's event counters; the modelled memory and the pinned bytes
  /// describe live objects and are kept.
  void reset_counters();
  /// Simulated seconds since the process's first simulation started.
  double now() const;

 private:
  std::unique_ptr<SimFabric> fabric_;
};

/// Simulation::run's placement rule, usable before a run is prepared: returns the
/// ranks per host (`ranks_per_host`, or the platform's when 0) and throws
/// fabric::Error(InvalidArgument) when `nranks` at that density need more hosts than
/// the platform has, or `nranks` is 0.
unsigned check_placement(const Platform& platform, unsigned nranks, unsigned ranks_per_host);

}  // namespace twinfab::sim
