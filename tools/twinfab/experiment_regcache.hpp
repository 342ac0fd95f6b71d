// twinfab experiment seed000-regcache: seed 000 §IV.A fig. 6 in the simulator.
//
// PingPong (rank 0 sends, rank 1 answers, the same buffers every iteration, as the
// Pallas benchmark does) from 1 B to 4 MiB on a platform (default infinihost-sdr),
// with four configurations of the same MPI library:
//   (a) copy   everything through eager packets (eager threshold >= largest size,
//              no user buffer is registered);
//   (b) rdma   rendezvous by RDMA write with immediate above 32 KiB, registering and
//              deregistering the user buffers around every transfer (no cache);
//   (c) dme    (b) with the Dynamic Memory Engine (seed 000 §III.H.2);
//   (d) lazy   (b) with the lazy memory engine (seed 002 §3.2).
// Prints latency (simulated us, one way) and bandwidth (MB/s = 10^6 B/s) per size,
// optionally writes them as CSV, and checks at the largest size that (b) loses most
// (>= 50 %) of (c)'s bandwidth and that (c) and (d) are within 10 % of the platform's
// data bandwidth. Exit status 1 when a check fails.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace twinfab::tools {

struct RegcacheExperimentOptions {
  std::string platform = "infinihost-sdr";
  std::vector<std::uint64_t> sizes;  ///< empty: 1 B ... 4 MiB, powers of two
  std::string csv;
  unsigned iterations = 0;           ///< 0: by size (32 MiB per size, 4 ... 100)
};

/// Runs it; returns the exit status.
int run_seed000_regcache(const RegcacheExperimentOptions& options);

/// The `twinfab experiment NAME` subcommand: registered on `app`; run() after parsing.
class ExperimentCommand {
 public:
  explicit ExperimentCommand(CLI::App& app);
  bool parsed() const;
  int run() const;

 private:
  CLI::App* command_;
  std::shared_ptr<std::string> name_;
  std::shared_ptr<RegcacheExperimentOptions> options_;
};

}  // namespace twinfab::tools
