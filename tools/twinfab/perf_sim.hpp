// A perf test (perf.hpp) on the simulated fabric: two ranks on hosts 0 and 1 of a
// platform, what `twinfab perf --backend sim` and the Python package's perf() run.
#pragma once

#include <vector>

#include "backends/sim/counters.hpp"
#include "backends/sim/platform.hpp"
#include "tools/twinfab/perf.hpp"

namespace twinfab::tools {

struct PerfSimResult {
  PerfReport report;
  sim::Counters total;                ///< summed over the platform's HCAs
  std::vector<sim::Counters> per_hca; ///< hosts 0 and 1, where the two ranks run
  double simulated_time = 0;          ///< the simulated clock when the test ended (s)
};

/// Runs `options` on `platform` (loss, seed and every other key as the platform has
/// them). Throws fabric::Error(InvalidArgument) when the platform has fewer than two
/// hosts. A process runs one simulation (SimGrid keeps one engine per process).
PerfSimResult run_perf_sim(const PerfOptions& options, const sim::Platform& platform);

}  // namespace twinfab::tools
