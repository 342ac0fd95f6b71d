// twinfab's commands on an RDMA device: a perf run between two of its contexts (as two
// threads of this process, rank 1 the server), and `twinfab calibrate`, which probes it
// and writes a platform fitted to it (the fit: calibrate.hpp).
#pragma once

#include <string>

#include "fabric/device.hpp"
#include "tools/twinfab/perf.hpp"

namespace twinfab::tools {

/// One perf run between `dev0` (rank 0, which reports) and `dev1`. Rethrows what
/// either rank threw.
PerfReport run_perf_pair(const PerfOptions& o, fabric::Device& dev0, fabric::Device& dev1);

/// `twinfab calibrate`'s options.
struct CalibrateArgs {
  std::string device;
  std::string output;
  std::string name;
  unsigned iterations = 1000;
  unsigned reps = 3;
};

/// `twinfab calibrate`: probes the device and writes a platform file fitted to it.
/// Everything is measured before anything is written, and the file is written under a
/// temporary name, loaded back through the platform loader and only then renamed: a
/// device that fails mid-probe leaves no file. Throws UsageError without -o, and
/// fabric::Error(Unsupported) in a build without rdma-core.
int cmd_calibrate(const CalibrateArgs& c);

}  // namespace twinfab::tools
