// What one `twinfab sim` run produced, for --counters, --result-json and callers that
// run programs from code (the Python module): run_sim_program fills it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/sim/counters.hpp"

namespace twinfab::tools {

struct SimRunResult {
  int exit_status = 0;  ///< run_sim_program's return value
  /// Simulated seconds the run took: the simulated clock at its end, less the clock at
  /// its start (0 in a fresh process; a process may run several simulations).
  double simulated_time = 0;
  double wall_time = 0;  ///< steady-clock seconds of the whole call: loading, run, report
  /// The process's peak resident set so far (getrusage's ru_maxrss * 1024): in a
  /// process that did other work before (Python), that work's peak too.
  std::uint64_t peak_rss_bytes = 0;
  std::string platform_name;    ///< Platform::name, after overrides
  unsigned nranks = 0;
  unsigned ranks_per_host = 0;  ///< as placed (the option, or the platform's packed to fit)
  double loss_probability = 0;  ///< the platform's, after overrides, --loss
  std::uint64_t loss_seed = 0;  ///< the platform's, after overrides, --seed
  sim::Counters total;          ///< Simulation::counters(): the sum over HCAs
  /// Simulation::hca_counters(h) for each host h the ranks ran on (hosts 0 .. nranks /
  /// ranks_per_host rounded up; the platform's other hosts carry no traffic).
  std::vector<sim::Counters> per_hca;
};

/// One JSON object with exactly the keys exit_status, simulated_time, wall_time,
/// peak_rss_bytes, platform, nranks, ranks_per_host, loss_probability, loss_seed,
/// counters (Counters::to_json's object) and per_hca (an array of such objects, index =
/// host), in that order.
std::string to_json(const SimRunResult& result);

}  // namespace twinfab::tools
