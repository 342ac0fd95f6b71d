#include "tools/twinfab/computation_meter.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

#include "fabric/error.hpp"

namespace twinfab::tools {

ComputationMeter::ComputationMeter(ComputationOptions options, CpuClock clock) : options_(options), clock_(clock) {
  if (!(options_.scale > 0) || !std::isfinite(options_.scale))
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("--compute-scale {}: expected a positive number of simulated seconds per "
                                    "second of computation measured here",
                                    options_.scale));
  if (!(options_.threshold >= 0) || !std::isfinite(options_.threshold))
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("--cpu-threshold {}: expected a duration of at least 0", options_.threshold));
}

void ComputationMeter::start(ComputationBurst& burst) const noexcept {
  if (options_.enabled) burst.started = clock_();
}

double ComputationMeter::stop(ComputationBurst& burst) const noexcept {
  if (!burst.open()) return 0;
  const double measured = clock_() - burst.started;
  burst.started = -1;
  return measured >= options_.threshold && measured > 0 ? measured * options_.scale : 0;
}

double ComputationMeter::thread_cpu_seconds() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace twinfab::tools
