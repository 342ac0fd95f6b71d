// The simulator's timings agree with the documented model (docs/model.md): on each
// timed single-switch preset, `perf write-lat` reports T(s) from
// backends/sim/timing_model.hpp to within 1 %.
#include <gtest/gtest.h>

#include "backends/sim/simulation.hpp"
#include "backends/sim/timing_model.hpp"
#include "tests/support/run_forked.hpp"
#include "tools/twinfab/perf.hpp"

namespace twinfab {
namespace {

class TimingModel : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingModel, WriteLatencyMatchesTheDocumentedFormula) {
  testing::run_forked([&] {
    sim::Platform p = sim::load_platform(GetParam());
    sim::Simulation s(p);
    tools::PerfOptions o;
    o.test = tools::PerfTest::WriteLat;
    o.sizes = {2, 64, 1000, 4096, 65536, 1 << 20};
    o.iterations = 20;
    tools::PerfReport r;
    s.run(2, [&](sim::RankEnv& env) { tools::run_perf_rank(o, env.device, env.oob, env.rank == 0 ? &r : nullptr); },
          1);
    ASSERT_EQ(r.latency.size(), o.sizes.size());
    for (const auto& row : r.latency) {
      const double predicted_us = sim::predicted_one_way(p, row.bytes) * 1e6;
      EXPECT_NEAR(row.t_typical, predicted_us, 0.01 * predicted_us)
          << GetParam() << ": " << row.bytes << " bytes";
    }
  });
}

TEST_P(TimingModel, SendLatencyEqualsWriteLatencyForIsolatedMessages) {
  testing::run_forked([&] {
    sim::Platform p = sim::load_platform(GetParam());
    sim::Simulation s(p);
    tools::PerfOptions o;
    o.test = tools::PerfTest::SendLat;
    o.sizes = {8, 8192};
    o.iterations = 10;
    tools::PerfReport r;
    s.run(2, [&](sim::RankEnv& env) { tools::run_perf_rank(o, env.device, env.oob, env.rank == 0 ? &r : nullptr); },
          1);
    for (const auto& row : r.latency) {
      const double predicted_us = sim::predicted_one_way(p, row.bytes) * 1e6;
      EXPECT_NEAR(row.t_typical, predicted_us, 0.01 * predicted_us) << row.bytes << " bytes";
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Presets, TimingModel,
                         ::testing::Values("infinihost-sdr", "connectx-ddr", "chelsio-t3-iwarp", "connectx6-hdr"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace twinfab
