// On-demand RC connections (mpi/channels/ud_connector.hpp): only the peers a rank
// talks to are connected, simultaneous requests resolve to one connection per pair,
// lost UD requests and replies are re-sent, and devices that cannot do it refuse it.
#include <gtest/gtest.h>

#include <vector>

#include "mpi/core/error.hpp"
#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

mpi::Config on_demand() {
  mpi::Config config;
  config.connect = mpi::ConnectMode::OnDemand;
  // The RC channel's connections are what these tests count: ranks that share a host
  // would otherwise talk through shared memory (docs/shm.md).
  config.shm = 0;
  return config;
}

// Runs on an already loaded (possibly modified) platform, like run_ranks.
// `after` sees the simulator's counters once every rank is done.
void run_on(const sim::Platform& platform, unsigned ranks, const mpi::Config& config,
            const std::function<void(Context&)>& body, const std::function<void(const sim::Counters&)>& after) {
  testing::run_forked([&] {
    sim::Simulation simulation(platform);
    const unsigned per_host = std::max(platform.ranks_per_host, (ranks + platform.hosts - 1) / platform.hosts);
    simulation.run(ranks, [&](sim::RankEnv& env) {
      Context context(env.device, env.oob, config);
      body(context);
    }, per_host);
    after(simulation.counters());
  });
}

// A ring: each rank sends right and receives from the left, `rounds` times.
void ring(Context& c, int rounds) {
  const auto& world = c.world();
  const auto& type = c.datatype(BasicKind::Int);
  const int n = world.size();
  const int me = world.rank();
  for (int round = 0; round < rounds; ++round) {
    int out = me * 1000 + round, in = -1;
    auto r = c.irecv(&in, 1, type, (me + n - 1) % n, round, world);
    c.send(&out, 1, type, (me + 1) % n, round, world);
    c.wait(r);
    ASSERT_EQ(in, ((me + n - 1) % n) * 1000 + round);
  }
}

TEST(OnDemand, ARingConnectsEachRankToItsTwoNeighboursOnly) {
  run_ranks("connectx-ddr", 128, on_demand(), [](Context& c) {
    ring(c, 20);
    EXPECT_EQ(c.channel_counters().connections, 2u) << "rank " << c.world().rank();
  });
}

TEST(OnDemand, EveryPairRequestingAtOnceGetsOneConnectionEach) {
  // All ranks send to all at the same simulated instant: every pair's Requests cross.
  run_ranks("connectx-ddr", 16, on_demand(), [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    const int n = world.size();
    std::vector<int> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n), -1);
    std::vector<mpi::RequestId> requests;
    for (int peer = 0; peer < n; ++peer) {
      out[static_cast<std::size_t>(peer)] = world.rank() * 100 + peer;
      requests.push_back(c.irecv(&in[static_cast<std::size_t>(peer)], 1, type, peer, 3, world));
      requests.push_back(c.isend(&out[static_cast<std::size_t>(peer)], 1, type, peer, 3, world));
    }
    c.waitall(requests);
    for (int peer = 0; peer < n; ++peer) ASSERT_EQ(in[static_cast<std::size_t>(peer)], peer * 100 + world.rank());
    EXPECT_EQ(c.channel_counters().connections, static_cast<std::uint64_t>(n - 1));
  });
}

TEST(OnDemand, LostRequestsAndRepliesAreResent) {
  sim::Platform platform = sim::load_platform("connectx-ddr");
  // UD loses whole messages: a third of the connection messages vanish.
  platform.loss.probability = 0.3;
  platform.loss.seed = 7;
  run_on(
      platform, 8, on_demand(),
      [](Context& c) {
        ring(c, 5);
        // A rank may finish its ring with its sends to the right still queued behind a
        // lost Reply (a send completes once its data is queued; only the receives from
        // the left were waited for). A message back from the right needs that
        // connection open at both ends.
        const auto& world = c.world();
        const int n = world.size(), me = world.rank();
        int out = me, in = -1;
        auto r = c.irecv(&in, 1, c.datatype(BasicKind::Int), (me + 1) % n, 99, world);
        c.send(&out, 1, c.datatype(BasicKind::Int), (me + n - 1) % n, 99, world);
        c.wait(r);
        EXPECT_EQ(in, (me + 1) % n);
        EXPECT_EQ(c.channel_counters().connections, 2u);
      },
      [](const sim::Counters& counters) {
        // The loss really hit connection messages (RC traffic is retransmitted by the
        // transport and counted as retransmissions, not as lost messages).
        EXPECT_GT(counters.messages_dropped, 0u);
      });
}

TEST(OnDemand, LargeMessagesUseRendezvousOnFreshConnections) {
  run_ranks("connectx-ddr", 4, on_demand(), [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    const int me = world.rank();
    const int n = world.size();
    const auto out = pattern(1 << 20, static_cast<unsigned>(me));
    std::vector<std::byte> in(1 << 20);
    auto r = c.irecv(in.data(), 1 << 20, type, (me + n - 1) % n, 0, world);
    c.send(out.data(), 1 << 20, type, (me + 1) % n, 0, world);
    c.wait(r);
    EXPECT_EQ(in, pattern(1 << 20, static_cast<unsigned>((me + n - 1) % n)));
  });
}

TEST(OnDemand, AutoConnectsOnDemandAboveTheThresholdOnly) {
  mpi::Config config;
  config.on_demand_threshold = 4;
  config.shm = 0;  // the RC connections are counted
  run_ranks("connectx-ddr", 8, config, [](Context& c) {
    ring(c, 2);
    EXPECT_EQ(c.channel_counters().connections, 2u);
  });
  run_ranks("connectx-ddr", 4, config, [](Context& c) {
    ring(c, 2);
    EXPECT_EQ(c.channel_counters().connections, 3u);  // start-up: every peer
  });
}

TEST(OnDemand, ADeviceWithoutUdRefusesItWithTheReason) {
  run_ranks("chelsio-t3-iwarp", 2, {}, [](Context&) {});  // auto: start-up, fine
  testing::run_forked([] {
    sim::Simulation simulation(sim::load_platform("chelsio-t3-iwarp"));
    simulation.run(2, [](sim::RankEnv& env) {
      try {
        Context context(env.device, env.oob, on_demand());
        ADD_FAILURE() << "on-demand connections were accepted on a device without UD";
      } catch (const mpi::Error& e) {
        EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_ARG);
        EXPECT_NE(std::string(e.what()).find("TWINFAB_CONNECT"), std::string::npos) << e.what();
      }
    });
  });
}

}  // namespace
}  // namespace twinfab::mpitest

namespace twinfab::mpitest {
namespace {

// Regression: with many messages in flight the simulator sends attached SimGrid
// comms, which SimGrid fails when their sender's actor ends. A rank that finished
// first used to take the ACK of its neighbour's last packet (a Bye) with it, and the
// neighbour waited forever. 256 ranks, 3 credits: the smallest known reproducer.
TEST(OnDemand, RanksThatFinishFirstStillDeliverTheirLastAcknowledgements) {
  mpi::Config config = on_demand();
  config.credits = 3;
  run_ranks("fat-tree-4096", 256, config, [](Context& c) { ring(c, 60); });
}

}  // namespace
}  // namespace twinfab::mpitest
