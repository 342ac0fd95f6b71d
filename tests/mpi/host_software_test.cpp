// The MPI library's host-side work in simulated time (fabric::HostCosts,
// Runtime::charge_cpu; docs/model.md, "Host software"): what it adds to a message, who
// pays it, the counter that reports it, and the seeds' MPI latencies the presets are
// fitted to.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/sim/timing_model.hpp"
#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

constexpr int kIterations = 50;
/// Rounds before timing: the RDMA fast path is offered after 10 packets from a peer.
constexpr int kWarmup = 20;

/// One-way latency of an 8-byte MPI ping-pong (half the mean round trip after a warm-up
/// round), as osu_latency measures it, and the host_software_ns counter of the run.
struct PingPong {
  double one_way = 0;
  std::uint64_t host_software_ns = 0;
};

PingPong ping_pong(const sim::Platform& platform, std::size_t bytes, const mpi::Config& config = {}) {
  return testing::run_forked_result<PingPong>([&](PingPong& result) {
    sim::Simulation simulation(platform);
    simulation.run(2, [&](sim::RankEnv& env) {
      Context c(env.device, env.oob, config);
      const auto& world = c.world();
      const auto& type = c.datatype(BasicKind::Byte);
      std::vector<char> buffer(bytes, 'x');
      const int peer = 1 - world.rank();
      const auto n = static_cast<std::int64_t>(bytes);
      double start = 0;
      for (int i = 0; i < kWarmup + kIterations; ++i) {
        if (i == kWarmup) start = c.runtime().now();  // after the warm-up (connection set-up, fast path)
        if (world.rank() == 0) {
          c.send(buffer.data(), n, type, peer, 1, world);
          c.recv(buffer.data(), n, type, peer, 1, world);
        } else {
          c.recv(buffer.data(), n, type, peer, 1, world);
          c.send(buffer.data(), n, type, peer, 1, world);
        }
      }
      if (world.rank() == 0) result.one_way = (c.runtime().now() - start) / (2.0 * kIterations);
    });
    result.host_software_ns = simulation.counters().host_software_ns;
  });
}

sim::Platform without_host_costs(sim::Platform p) {
  p.mpi_send_overhead = 0;
  p.mpi_receive_overhead = 0;
  p.mpi_receive_queue_overhead = 0;
  p.memcpy_bandwidth = 1e30;  // copies are free
  return p;
}

TEST(HostSoftware, WithoutHostCostsAnMpiMessageTakesTheVerbsLatency) {
  const sim::Platform p = without_host_costs(sim::load_platform("connectx-ddr"));
  const PingPong r = ping_pong(p, 8);
  EXPECT_NEAR(r.one_way, sim::predicted_one_way(p, 8), 0.02e-6);
  EXPECT_EQ(r.host_software_ns, 0u);
}

TEST(HostSoftware, EachMessageCostsTheSendAndReceiveOverheadsAndItsTwoCopies) {
  sim::Platform base = without_host_costs(sim::load_platform("connectx-ddr"));
  const double verbs = ping_pong(base, 1024).one_way;
  sim::Platform p = base;
  p.mpi_send_overhead = 0.4e-6;
  p.mpi_receive_overhead = 0.7e-6;
  p.memcpy_bandwidth = 1e9;  // 1024 bytes: 1.024 us per copy, one at each end
  const PingPong r = ping_pong(p, 1024);
  EXPECT_NEAR(r.one_way - verbs, 0.4e-6 + 0.7e-6 + 2 * 1.024e-6, 1e-9);
  // Every packet of the run was charged, warm-up and connection set-up included: at
  // least the timed messages' share.
  const double per_message_ns = (0.4 + 0.7 + 2 * 1.024) * 1e3;
  EXPECT_GE(static_cast<double>(r.host_software_ns), 2.0 * kIterations * per_message_ns);
  EXPECT_LT(static_cast<double>(r.host_software_ns), 2.0 * (kWarmup + kIterations + 8) * per_message_ns);
}

TEST(HostSoftware, APacketFromAReceiveQueueCostsItsOverheadAndOneFromAFastPathRingDoesNot) {
  sim::Platform base = without_host_costs(sim::load_platform("connectx-ddr"));
  mpi::Config fast;
  fast.fastpath = mpi::FastPathMode::On;
  const double verbs_send = ping_pong(base, 8).one_way;
  const double verbs_ring = ping_pong(base, 8, fast).one_way;
  sim::Platform p = base;
  p.mpi_receive_queue_overhead = 0.9e-6;
  EXPECT_NEAR(ping_pong(p, 8).one_way - verbs_send, 0.9e-6, 1e-9);
  EXPECT_NEAR(ping_pong(p, 8, fast).one_way, verbs_ring, 1e-9);
  mpi::Config srq;
  srq.srq = 1;
  EXPECT_NEAR(ping_pong(p, 8, srq).one_way - verbs_send, 0.9e-6, 1e-9);
}

TEST(HostSoftware, HardwareHasNoModelledCosts) {
  const fabric::HostCosts none;
  EXPECT_FALSE(none.modelled());
  EXPECT_EQ(none.copy_seconds(1 << 20), 0.0);
}

/// The seeds' MPI-level 8-byte latencies on the hardware each preset models, each on
/// the path the seed's MPI took, within +-10 % (issue 33): the presets' [host] keys are
/// fitted to them.
enum class Path { SendReceive, FastPath, Srq, FastPathIfAllowed };
struct SeedLatency {
  const char* name;
  const char* preset;
  Path path;
  double seed_us;
  const char* source;
};

class SeedMpiLatency : public ::testing::TestWithParam<SeedLatency> {};

TEST_P(SeedMpiLatency, IsWithinTenPercent) {
  const SeedLatency& s = GetParam();
  sim::Platform platform = sim::load_platform(s.preset);
  mpi::Config config;
  if (s.path == Path::FastPath || s.path == Path::FastPathIfAllowed) config.fastpath = mpi::FastPathMode::On;
  if (s.path == Path::FastPathIfAllowed) platform.features.in_order_placement = true;
  if (s.path == Path::Srq) config.srq = 1;
  const double us = ping_pong(platform, 8, config).one_way * 1e6;
  EXPECT_NEAR(us, s.seed_us, 0.1 * s.seed_us) << s.preset << " against " << s.source;
}

INSTANTIATE_TEST_SUITE_P(
    Presets, SeedMpiLatency,
    ::testing::Values(
        SeedLatency{"infinihost_sdr", "infinihost-sdr", Path::SendReceive, 7.6, "seed 001 sec. 2.3.2 (MPICH2)"},
        SeedLatency{"connectx_ddr_fast_path", "connectx-ddr", Path::FastPath, 3.0, "seed 004 sec. 6 (MVAPICH)"},
        SeedLatency{"connectx_ddr_srq", "connectx-ddr", Path::Srq, 5.0, "seed 004 sec. 6 (MVAPICH, SRQ)"},
        SeedLatency{"chelsio_t3_iwarp", "chelsio-t3-iwarp", Path::SendReceive, 8.43,
                    "seed 003 sec. 4.1 (MVAPICH2-SR)"},
        SeedLatency{"chelsio_t3_iwarp_fast_path", "chelsio-t3-iwarp", Path::FastPathIfAllowed, 6.89,
                    "seed 003 sec. 4.1 (MVAPICH2-R)"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(HostSoftware, TheFastPathIsAtLeastThirtyPercentBelowTheSrqOnConnectxDdr) {
  // Issue 33's figure; seed 004: 3.0 against 5.0 us.
  const sim::Platform p = sim::load_platform("connectx-ddr");
  mpi::Config fast;
  fast.fastpath = mpi::FastPathMode::On;
  mpi::Config srq;
  srq.srq = 1;
  const double ring = ping_pong(p, 8, fast).one_way;
  const double queue = ping_pong(p, 8, srq).one_way;
  EXPECT_LE(ring, 0.7 * queue) << "fast path " << ring * 1e6 << " us, SRQ " << queue * 1e6 << " us";
}

}  // namespace
}  // namespace twinfab::mpitest
