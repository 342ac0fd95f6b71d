// The RC channel's two other receive designs (rc_channel.hpp): the shared receive
// queue (with RNR retry: no credits, a pool that grows at its low watermark; without:
// credits over a pool sized by the connections) and the RDMA fast path (rings offered
// to busy peers, slots as credits, order kept with what went before). Each runs real
// traffic and checks every byte, and what the channel counted.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "backends/sim/platform.hpp"
#include "mpi/coll/collectives.hpp"
#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::RequestId;

// A ping-pong over message sizes from one packet to rendezvous, then a one-way flood
// of tiny messages received late (the unexpected queue: the receiver computes for 1 ms
// of simulated time first, not progressing), checking every byte.
void exchange_and_flood(Context& c, int rounds, int flood) {
  const auto& world = c.world();
  const auto& bytes = c.datatype(BasicKind::Byte);
  const int me = world.rank();
  const int other = 1 - me;
  for (const std::size_t size : {std::size_t{8}, std::size_t{100}, std::size_t{4000}, std::size_t{20000},
                                 std::size_t{100000}}) {
    for (int i = 0; i < rounds; ++i) {
      const auto out = pattern(size, static_cast<unsigned>(size + i + 1000 * me));
      const auto expected = pattern(size, static_cast<unsigned>(size + i + 1000 * other));
      std::vector<std::byte> in(size);
      if (me == 0) {
        c.send(out.data(), size, bytes, other, 1, world);
        c.recv(in.data(), size, bytes, other, 1, world);
      } else {
        c.recv(in.data(), size, bytes, other, 1, world);
        c.send(out.data(), size, bytes, other, 1, world);
      }
      ASSERT_EQ(std::memcmp(in.data(), expected.data(), size), 0) << size << " bytes, round " << i;
    }
  }
  flood_a_busy_receiver(c, flood, 1e-3, 3);
}

// Both ranks' contexts must refuse `config` on `platform` with MPI_ERR_ARG naming `what`.
void expect_refused(const std::string& platform, const mpi::Config& config, const std::string& what) {
  testing::run_forked([&] {
    sim::Simulation simulation(sim::load_platform(platform));
    simulation.run(2, [&](sim::RankEnv& env) {
      expect_error([&] { Context context(env.device, env.oob, config); }, mpi::ErrorClass::MPI_ERR_ARG, what);
    });
  });
}

TEST(SharedReceiveQueue, CarriesEverySizeAndGrowsAtItsLowWatermark) {
  mpi::Config config;
  config.srq = 1;
  config.srq_size = 16;  // a flood of 3000 outruns it: the pool must grow
  config.srq_limit = 4;
  config.srq_max_size = 256;
  run_ranks("connectx-ddr", 2, config, [](Context& c) {
    exchange_and_flood(c, 20, 3000);
    const auto& counters = c.channel_counters();
    // No credits with RNR retry: no credit update ever.
    EXPECT_EQ(counters.credit_updates_sent, 0u);
    if (c.world().rank() == 1) {
      EXPECT_GE(counters.srq_growths, 2u) << "the first chunk, then at least one at the watermark";
    }
  });
}

TEST(SharedReceiveQueue, KeepsCreditsWhereAMissingReceiveIsFatal) {
  // connectx-ddr with rnr_retry = 0, as the iWARP preset says of its device: the SRQ
  // must never run empty, so credits stay and the pool holds credits + 1 per peer.
  sim::Platform platform = sim::load_platform("connectx-ddr");
  platform.hca.rnr_retry = 0;
  mpi::Config config;
  config.srq = 1;
  config.srq_size = 8;
  config.srq_limit = 2;
  config.credits = 4;
  config.shm = 0;  // the preset's 2 hosts take 2 ranks each: all of them over RC
  run_ranks(platform, 4, config, [](Context& c) {
    const auto& world = c.world();
    const auto& ints = c.datatype(BasicKind::Int);
    // Everyone floods rank 0, which receives late.
    constexpr int kFlood = 500;
    if (world.rank() != 0) {
      std::vector<int> out(kFlood);
      std::vector<RequestId> requests;
      for (int i = 0; i < kFlood; ++i) {
        out[static_cast<std::size_t>(i)] = i * 10 + world.rank();
        requests.push_back(c.isend(&out[static_cast<std::size_t>(i)], 1, ints, 0, 5, world));
      }
      c.waitall(requests);
      EXPECT_GT(c.channel_counters().packets_deferred, 0u) << "4 credits must have held the flood back";
    } else {
      for (int from = 1; from < world.size(); ++from)
        for (int i = 0; i < kFlood; ++i) {
          int v = -1;
          c.recv(&v, 1, ints, from, 5, world);
          ASSERT_EQ(v, i * 10 + from);
        }
      EXPECT_GT(c.channel_counters().credit_updates_sent, 0u);
    }
    mpi::barrier(c, world);
  });
}

// The modelled memory of rank 0's host after every other rank sent it one message (a
// star: rank 0 holds a connection to each): QP contexts, the per-QP memory the
// platform models (seed 004's 68 KB) and the registered buffers, in bytes.
std::uint64_t star_center_memory(unsigned ranks, std::uint32_t srq) {
  struct Result {
    std::uint64_t bytes;
    std::uint64_t connections;
  };
  const Result r = testing::run_forked_result<Result>([&](Result& out) {
    mpi::Config config;
    config.srq = srq;
    sim::Platform platform = sim::load_platform("connectx-ddr");
    platform.hosts = ranks;  // a host per rank: no shared memory, every peer over RC
    sim::Simulation simulation(platform);
    simulation.run(ranks, [&](sim::RankEnv& env) {
      Context c(env.device, env.oob, config);
      const auto& world = c.world();
      const auto& ints = c.datatype(BasicKind::Int);
      int v = world.rank();
      if (world.rank() == 0) {
        for (int from = 1; from < world.size(); ++from) c.recv(&v, 1, ints, mpi::kAnySource, 7, world);
        out.connections = c.channel_counters().connections;
      } else {
        c.send(&v, 1, ints, 0, 7, world);
      }
      mpi::barrier(c, world);
    }, 1);
    const sim::Counters counters = simulation.hca_counters(0);
    out.bytes = counters.qp_context_bytes + counters.communication_buffer_bytes + counters.registered_bytes;
  });
  EXPECT_GE(r.connections, ranks - 1);
  return r.bytes;
}

TEST(SharedReceiveQueue, CutsTheMemoryOfManyConnections) {
  // Issue 33's figure is at 4096 peers (bench/srq_memory.sh); 256 keep the test short.
  // Per connection: 68 KB of QP (connectx-ddr's [memory]) + 33 x 8.3 KB of receive
  // buffers, against the QP alone and one pool of 512 buffers.
  const std::uint64_t per_connection = star_center_memory(257, 0);
  const std::uint64_t shared = star_center_memory(257, 1);
  EXPECT_LE(static_cast<double>(shared), 0.3 * static_cast<double>(per_connection))
      << shared << " bytes with the SRQ, " << per_connection << " with buffers per connection";
}

TEST(SharedReceiveQueue, IsRefusedOnADeviceWithout) {
  mpi::Config config;
  config.srq = 1;
  expect_refused("chelsio-t3-iwarp", config, "has no shared receive queues");
}

TEST(FastPath, TakesOverABusyConnectionAndKeepsItsOrder) {
  mpi::Config config;
  config.fastpath = mpi::FastPathMode::On;
  config.fastpath_threshold = 5;
  config.fastpath_buffers = 8;  // the flood must wait for slots coming back
  run_ranks("connectx-ddr", 2, config, [](Context& c) {
    exchange_and_flood(c, 20, 3000);
    const auto& counters = c.channel_counters();
    EXPECT_EQ(counters.fastpath_rings, 1u);
    EXPECT_GT(counters.fastpath_packets_received, 3000u / (c.world().rank() == 1 ? 1 : 30));
    EXPECT_GT(counters.fastpath_packets_sent, 50u);
  });
}

TEST(FastPath, WorksBesideTheSharedReceiveQueue) {
  mpi::Config config;
  config.fastpath = mpi::FastPathMode::Auto;
  config.srq = 1;
  run_ranks("connectx-ddr", 2, config, [](Context& c) {
    exchange_and_flood(c, 10, 500);
    EXPECT_EQ(c.channel_counters().fastpath_rings, 1u);
  });
}

TEST(FastPath, StopsAtTheMostPeersItMayPoll) {
  mpi::Config config;
  config.fastpath = mpi::FastPathMode::On;
  config.fastpath_threshold = 2;
  config.fastpath_max_peers = 2;
  config.shm = 0;  // 3 ranks on a host of the preset's 2: all of them over RC
  run_ranks("connectx-ddr", 5, config, [](Context& c) {
    const auto& world = c.world();
    const auto& ints = c.datatype(BasicKind::Int);
    // Ranks 1..4 each send rank 0 ten messages: rank 0 offers only two rings.
    for (int i = 0; i < 10; ++i) {
      if (world.rank() == 0) {
        for (int from = 1; from < world.size(); ++from) {
          int v = -1;
          c.recv(&v, 1, ints, from, 6, world);
          ASSERT_EQ(v, i * 100 + from);
        }
      } else {
        int v = i * 100 + world.rank();
        c.send(&v, 1, ints, 0, 6, world);
      }
    }
    if (world.rank() == 0) EXPECT_EQ(c.channel_counters().fastpath_rings, 2u);
    mpi::barrier(c, world);
  });
}

TEST(FastPath, IsRefusedWhereRdmaWritesDoNotLandInOrder) {
  mpi::Config config;
  config.fastpath = mpi::FastPathMode::On;
  expect_refused("chelsio-t3-iwarp", config, "needs RDMA writes that land in order");
}

TEST(FastPath, AutoLeavesItOffWhereRdmaWritesDoNotLandInOrder) {
  mpi::Config config;
  config.fastpath = mpi::FastPathMode::Auto;
  config.fastpath_threshold = 1;
  run_ranks("chelsio-t3-iwarp", 2, config, [](Context& c) {
    exchange_and_flood(c, 5, 100);
    EXPECT_EQ(c.channel_counters().fastpath_rings, 0u);
  });
}

}  // namespace
}  // namespace twinfab::mpitest
