#include "tools/twinfab/perf_sim.hpp"

#include <fmt/format.h>

#include "backends/sim/model_size.hpp"
#include "backends/sim/simulation.hpp"
#include "fabric/error.hpp"

namespace twinfab::tools {

PerfSimResult run_perf_sim(const PerfOptions& options, const sim::Platform& platform) {
  if (platform.hosts < 2)
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("platform '{}' has {} host(s); perf needs two", platform.name, platform.hosts));
  PerfSimResult result;
  // Two ranks on hosts 0 and 1: the platform's other hosts are not modelled.
  sim::Simulation s(sim::hosts_in_use(platform, 2));
  s.run(2,
        [&](sim::RankEnv& env) {
          run_perf_rank(options, env.device, env.oob, env.rank == 0 ? &result.report : nullptr);
        },
        1);
  result.total = s.counters();
  // The two hosts the ranks ran on (the platform's others carry no traffic), as twinfab sim's result lists them.
  for (unsigned h = 0; h < 2; ++h) result.per_hca.push_back(s.hca_counters(h));
  result.simulated_time = s.now();
  return result;
}

}  // namespace twinfab::tools
