// twinfab calibrate's fit (tools/twinfab/calibrate.hpp): probes that a preset's own
// timing model would produce must give back a platform that predicts them, the file
// it writes must load back as that platform, and probes that cannot make a platform
// (a failed measurement) are refused.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/sim/platform.hpp"
#include "backends/sim/timing_model.hpp"
#include "fabric/error.hpp"
#include "tools/twinfab/calibrate.hpp"

namespace twinfab::tools {
namespace {

/// What perftest would measure on `p`'s model between two hosts with nothing between
/// them (the calibration's assumption: one device).
CalibrationProbes probes_of(sim::Platform p) {
  p.link_latency = 0;
  p.switch_latency = 0;
  CalibrationProbes probes;
  probes.device = "model";
  probes.caps.link = fabric::LinkKind::InfiniBand;
  probes.caps.mtu = p.mtu;
  probes.caps.atomics = true;
  for (std::uint64_t bytes : {8, 64, 512, 2048, 4096, 16384, 65536})
    probes.write_latency.emplace_back(bytes, sim::predicted_one_way(p, bytes));
  probes.read_latency = 2 * sim::predicted_one_way(p, 8) + p.hca.read_response_latency;
  probes.atomic_latency = probes.read_latency + p.hca.atomic_latency;
  probes.small_message_rate = 1.0 / std::max(p.hca.wqe_processing, p.hca.post_overhead);
  probes.peak_bytes = 1 << 20;
  probes.peak_bandwidth = std::min(p.link_bandwidth, p.hca.pcie_bandwidth) * p.mtu / (p.mtu + p.hca.header_bytes);
  for (std::uint64_t bytes : {4096, 65536, 1 << 20})
    probes.registration.emplace_back(bytes, p.registration.base + p.registration.per_page * (bytes / 4096.0));
  probes.memcpy_bandwidth = 3e9;
  return probes;
}

TEST(Calibrate, AFitToAModelsOwnMeasurementsPredictsThem) {
  const sim::Platform preset = sim::load_platform("connectx-ddr");
  const CalibrationProbes probes = probes_of(preset);
  const Calibration fit = fit_platform(probes, "refit");
  for (auto [bytes, t] : probes.write_latency)
    EXPECT_NEAR(sim::predicted_one_way(fit.platform, bytes), t, 0.01 * t) << bytes << " bytes";
  const double bw = std::min(fit.platform.link_bandwidth, fit.platform.hca.pcie_bandwidth);
  EXPECT_NEAR(bw, std::min(preset.link_bandwidth, preset.hca.pcie_bandwidth), 1e-6 * bw);
  EXPECT_NEAR(fit.platform.hca.atomic_latency, preset.hca.atomic_latency, 1e-9);
  EXPECT_NEAR(fit.platform.hca.read_response_latency, preset.hca.read_response_latency, 1e-9);
  EXPECT_NEAR(fit.platform.registration.base, preset.registration.base, 1e-9);
  EXPECT_NEAR(fit.platform.registration.per_page, preset.registration.per_page, 1e-12);
  EXPECT_NEAR(fit.platform.hca.wqe_processing, preset.hca.wqe_processing, 1e-12);
  for (const auto& [bytes, pair] : fit.check) EXPECT_NEAR(pair.second, pair.first, 0.01 * pair.first);
}

// A device whose messages leave less often than its latency implies (rxe in the
// micro-VM: 21 us one way, one 8-byte write per 37 us streamed) keeps both: the
// latency in the fixed part, the rate as the HCA's message gap, which the loaded file
// carries and an isolated message does not pay.
TEST(Calibrate, AMessageRateBelowTheLatencysBecomesTheMessageGap) {
  const sim::Platform preset = sim::load_platform("connectx-ddr");
  CalibrationProbes probes = probes_of(preset);
  const double fixed = sim::predicted_one_way(preset, 8);
  probes.small_message_rate = 1.0 / (3 * fixed);
  const Calibration fit = fit_platform(probes, "slow-rate");
  EXPECT_NEAR(fit.platform.hca.message_gap, 3 * fixed, 1e-12);
  EXPECT_LT(fit.platform.hca.wqe_processing, fixed);
  EXPECT_NEAR(fit.platform.hca.wqe_interval(), 3 * fixed, 1e-12);
  for (auto [bytes, t] : probes.write_latency)
    EXPECT_NEAR(sim::predicted_one_way(fit.platform, bytes), t, 0.01 * t) << bytes << " bytes";
  const std::string text = calibration_toml(fit, probes, "2026-12-06");
  EXPECT_NEAR(sim::parse_platform(text, "calibrated.toml").hca.message_gap, 3 * fixed, 1e-9);
  // A rate the latency allows needs no gap.
  EXPECT_EQ(fit_platform(probes_of(preset), "refit").platform.hca.message_gap, 0);
}

TEST(Calibrate, TheWrittenFileLoadsBackAsTheFittedPlatform) {
  const CalibrationProbes probes = probes_of(sim::load_platform("chelsio-t3-iwarp"));
  const Calibration fit = fit_platform(probes, "chelsio-refit");
  const std::string text = calibration_toml(fit, probes, "2026-12-06");
  const sim::Platform loaded = sim::parse_platform(text, "calibrated.toml");
  EXPECT_EQ(loaded.name, "chelsio-refit");
  for (auto [bytes, t] : probes.write_latency)
    EXPECT_NEAR(sim::predicted_one_way(loaded, bytes), sim::predicted_one_way(fit.platform, bytes), 1e-4 * t);
  EXPECT_EQ(loaded.mtu, fit.platform.mtu);
  EXPECT_EQ(loaded.features.atomics, fit.platform.features.atomics);
  // Every key says how it was obtained.
  for (const char* word : {"measured", "derived", "assumed"}) EXPECT_NE(text.find(word), std::string::npos) << word;
}

TEST(Calibrate, ProbesThatCannotMakeAPlatformAreRefused) {
  CalibrationProbes probes = probes_of(sim::load_platform("connectx-ddr"));
  CalibrationProbes none = probes;
  none.write_latency.clear();
  EXPECT_THROW(fit_platform(none, "x"), fabric::Error);
  CalibrationProbes zero_bw = probes;
  zero_bw.peak_bandwidth = 0;
  EXPECT_THROW(fit_platform(zero_bw, "x"), fabric::Error);
  CalibrationProbes nan_latency = probes;
  nan_latency.write_latency[0].second = std::nan("");
  EXPECT_THROW(fit_platform(nan_latency, "x"), fabric::Error);
}

TEST(Calibrate, HeaderBytesFollowTheLinkKind) {
  EXPECT_EQ(header_bytes_for(fabric::LinkKind::InfiniBand).first, 30u);
  EXPECT_EQ(header_bytes_for(fabric::LinkKind::RoCE).first, 62u);
  EXPECT_GT(header_bytes_for(fabric::LinkKind::IWarp).first, 62u);
}

}  // namespace
}  // namespace twinfab::tools
