// The simulator's timings agree with the documented model (docs/model.md): on each
// timed single-switch preset, `perf write-lat` reports T(s) from
// backends/sim/timing_model.hpp to within 1 %.
#include <gtest/gtest.h>

#include "backends/sim/simulation.hpp"
#include "backends/sim/timing_model.hpp"
#include "tests/sim/sim_pair.hpp"
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

/// The first row of `test` at `bytes` between two hosts of `p`: its typical latency
/// (us) for a latency test, its message rate (M/s) for a bandwidth test.
double perf_on(const sim::Platform& p, tools::PerfTest test, uint64_t bytes) {
  struct Figure {
    double value;
  };
  return testing::run_forked_result<Figure>([&](Figure& out) {
    sim::Simulation s(p);
    tools::PerfOptions o;
    o.test = test;
    o.sizes = {bytes};
    o.iterations = 200;
    tools::PerfReport r;
    s.run(2, [&](sim::RankEnv& env) { tools::run_perf_rank(o, env.device, env.oob, env.rank == 0 ? &r : nullptr); },
          1);
    out.value = !r.latency.empty() ? r.latency.at(0).t_typical : r.bandwidth.at(0).msg_rate;
  }).value;
}

// hca.read_response_latency: an RDMA read is a round trip plus the responder's time
// to start its response (rxe in the micro-VM: 65 us for a read, 21 us for a write).
TEST(TimingModel, AReadPaysTheRespondersReadTimeOnTopOfItsRoundTrip) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  const double round_trip_us = 2 * sim::predicted_one_way(p, 8) * 1e6;
  EXPECT_NEAR(perf_on(p, tools::PerfTest::ReadLat, 8), round_trip_us,
              0.02 * round_trip_us);
  p.hca.read_response_latency = 5e-6;
  EXPECT_NEAR(perf_on(p, tools::PerfTest::ReadLat, 8), round_trip_us + 5,
              0.02 * round_trip_us);
}

// A write is complete at the writer once its acknowledgement has come back: its own
// one-way time plus a small packet's (what MPI_Put + MPI_Win_flush wait for, and twice
// what write-lat, half a ping-pong of writes, reports for a small write).
TEST(TimingModel, AWriteCompletesAtTheWriterWhenItsAcknowledgementReturns) {
  const sim::Platform p = sim::load_platform("connectx-ddr");
  const double ack_us = sim::predicted_one_way(p, 8) * 1e6;
  for (const uint64_t bytes : {uint64_t{8}, uint64_t{4096}}) {
    const double expected_us = sim::predicted_one_way(p, bytes) * 1e6 + ack_us;
    EXPECT_NEAR(perf_on(p, tools::PerfTest::WriteCompleteLat, bytes), expected_us, 0.02 * expected_us)
        << bytes << " bytes";
  }
}

// hca.message_gap: the HCA starts one work request per gap, but a message alone does
// not pay it.
TEST(TimingModel, TheMessageGapSetsTheRateNotTheLatency) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.hca.message_gap = 4e-6;  // 0.25 M messages/s, against 2 M/s from wqe_processing
  const double one_way_us = sim::predicted_one_way(p, 8) * 1e6;
  EXPECT_NEAR(perf_on(p, tools::PerfTest::WriteLat, 8), one_way_us, 0.01 * one_way_us);
  EXPECT_NEAR(perf_on(p, tools::PerfTest::WriteBw, 8), 0.25, 0.01);
}

// hca.pipeline_latency: in a message's latency as wqe_processing is, but the HCA takes
// the next work request after wqe_processing alone (a pipelined offload engine).
TEST(TimingModel, PipelineLatencySetsTheLatencyNotTheRate) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.hca.wqe_processing = 1e-6;  // 1 M messages/s
  const double rate = perf_on(p, tools::PerfTest::WriteBw, 8);
  p.hca.pipeline_latency = 3e-6;
  const double one_way_us = sim::predicted_one_way(p, 8) * 1e6;
  EXPECT_NEAR(perf_on(p, tools::PerfTest::WriteLat, 8), one_way_us, 0.01 * one_way_us);
  // The same rate, less the pipeline's fill over 200 messages (~3 %)...
  const double pipelined = perf_on(p, tools::PerfTest::WriteBw, 8);
  EXPECT_NEAR(pipelined, rate, 0.05 * rate);
  EXPECT_NEAR(rate, 1.0, 0.05) << "M messages/s";
  // ...where the same 4 us per message all spent in wqe_processing allow 0.25 M/s.
  p.hca.wqe_processing = 4e-6;
  p.hca.pipeline_latency = 0;
  EXPECT_NEAR(perf_on(p, tools::PerfTest::WriteLat, 8), one_way_us, 0.01 * one_way_us);
  EXPECT_LT(perf_on(p, tools::PerfTest::WriteBw, 8), 0.3 * pipelined);
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

namespace twinfab {
namespace {

/// One-way time of an 8-byte send from host 0 to host `to` (posted to received).
double one_way_to(const sim::Platform& p, unsigned to) {
  double one_way = -1;
  sim::Simulation s(p);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(to);
    auto a = testing::make_side(*da, fabric::Transport::RC, 64);
    auto b = testing::make_side(*db, fabric::Transport::RC, 64);
    testing::connect_sides(a, b);
    fabric::Sge r = b.mr->sge(0, 8), sge = a.mr->sge(0, 8);
    ASSERT_EQ(b.qp->post_recv({1, {&r, 1}}), fabric::Status::Ok);
    fabric::SendWr w;
    w.sg_list = {&sge, 1};
    const double start = da->runtime().now();
    ASSERT_EQ(a.qp->post_send(w), fabric::Status::Ok);
    ASSERT_EQ(testing::collect(*db, *b.cq, 1, 1.0).size(), 1u);
    one_way = db->runtime().now() - start;
  });
  return one_way;
}

TEST(TimingModel, EverySwitchOnAFatTreeRouteCostsItsWholeLatency) {
  // fat-tree-4096: 32 hosts per leaf. Across leaves a message crosses 4 cables and 3
  // switches: 2 cables and 2 switches more than under one leaf (docs/platforms.md:
  // 2.71 and 3.21 us). SimGrid's fat tree has one latency per cable, so each carries
  // half a switch crossing and the factor hook adds what a longer route lacks (before,
  // across leaves took 3.01 us).
  testing::run_forked([] {
    sim::Platform p = sim::load_platform("fat-tree-4096");
    p.hca.icm_cache_entries = 0;  // a first message misses the QP-context cache at both ends
    const double same_leaf = one_way_to(p, 1);
    const double across = one_way_to(p, 32);
    EXPECT_NEAR(same_leaf, sim::predicted_one_way(p, 8), 1e-12);
    EXPECT_NEAR(across - same_leaf, 2 * p.link_latency + 2 * p.switch_latency, 1e-12);
    EXPECT_NEAR(across * 1e6, 3.21, 0.005);
  });
}

}  // namespace
}  // namespace twinfab
