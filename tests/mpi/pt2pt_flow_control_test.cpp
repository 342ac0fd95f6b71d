// Static credit flow control: one-way floods with few credits, explicit credit
// updates, back-pressure through the pending queue, and both directions at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::MessageStatus;
using mpi::RequestId;

// On a device with RDMA write with immediate (connectx-ddr) the credit updates go as
// zero-byte writes with immediate, on one without (the iWARP preset) as packets.
class OneWayFlood : public ::testing::TestWithParam<const char*> {};

TEST_P(OneWayFlood, OfTinyMessagesWithFourCredits) {
  mpi::Config config;
  config.credits = 4;
  const bool immediates = std::string_view(GetParam()) != "chelsio-t3-iwarp";
  run_ranks(GetParam(), 2, config, [immediates](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    constexpr int kCount = 10000;
    if (world.rank() == 0) {
      std::vector<int> out(kCount);
      std::vector<RequestId> requests;
      for (int i = 0; i < kCount; ++i) {
        out[i] = i;
        requests.push_back(c.isend(&out[i], 1, type, 1, 3, world));
      }
      c.waitall(requests);
      // Only 3 credits usable for data: nearly everything had to wait its turn.
      EXPECT_GT(c.channel_counters().packets_deferred, kCount / 2);
      EXPECT_GE(c.channel_counters().pending_peak, 100u);
    } else {
      // Receive late, so that the flood lands in the unexpected queue first.
      for (int i = 0; i < kCount; ++i) {
        int v = -1;
        c.recv(&v, 1, type, 0, 3, world);
        ASSERT_EQ(v, i);
      }
      // One-way traffic: every credit went back by explicit updates.
      const auto& counters = c.channel_counters();
      EXPECT_GT(counters.credit_updates_sent, kCount / 4);
      if (immediates)
        EXPECT_EQ(counters.controls_as_immediates, counters.credit_updates_sent);
      else
        EXPECT_EQ(counters.controls_as_immediates, 0u);
    }
    int done = 0;
    if (world.rank() == 0) c.recv(&done, 1, type, 1, 4, world);
    else c.send(&done, 1, type, 0, 4, world);
  });
}

INSTANTIATE_TEST_SUITE_P(FlowControl, OneWayFlood, ::testing::Values("connectx-ddr", "chelsio-t3-iwarp"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(FlowControl, BothDirectionsAtOnceWithMinimalCreditsAndFewSendBuffers) {
  mpi::Config config;
  config.credits = 3;
  config.send_buffers = 2;
  run_ranks("ideal", 2, config, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    const int peer = 1 - world.rank();
    constexpr int kCount = 500;
    std::vector<std::vector<std::byte>> out, in;
    std::vector<RequestId> requests;
    for (int i = 0; i < kCount; ++i) {
      const std::size_t n = static_cast<std::size_t>(i % 5 == 0 ? 20000 : i % 7);
      out.push_back(pattern(n, static_cast<unsigned>(world.rank() * kCount + i)));
      in.emplace_back(n);
      requests.push_back(c.isend(out.back().data(), static_cast<std::int64_t>(n), type, peer, i, world));
    }
    for (int i = 0; i < kCount; ++i)
      requests.push_back(c.irecv(in[i].data(), static_cast<std::int64_t>(in[i].size()), type, peer, i, world));
    c.waitall(requests);
    for (int i = 0; i < kCount; ++i)
      ASSERT_EQ(in[i], pattern(in[i].size(), static_cast<unsigned>(peer * kCount + i))) << i;
  });
}

// Blocking tiny sends go to the channel without a request (Context::send); under
// back-pressure they queue in the same FIFO as nonblocking ones, so a mix of both
// must arrive in order. Two send buffers: the send CQ, reaped lazily otherwise, has to
// be reaped whenever a packet waits for a buffer, or the flood would stall.
TEST(FlowControl, BlockingAndNonblockingTinySendsStayInOrderUnderBackPressure) {
  mpi::Config config;
  config.credits = 3;
  config.send_buffers = 2;
  run_ranks("connectx-ddr", 2, config, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    constexpr int kCount = 3000;
    if (world.rank() == 0) {
      std::vector<int> out(kCount);
      std::vector<RequestId> requests;
      for (int i = 0; i < kCount; ++i) {
        out[i] = i;
        if (i % 3 == 0) {
          requests.push_back(c.isend(&out[i], 1, type, 1, 5, world));
        } else {
          c.send(&out[i], 1, type, 1, 5, world);
        }
      }
      c.waitall(requests);
      EXPECT_GT(c.channel_counters().packets_deferred, 0u);
      EXPECT_EQ(c.pt2pt_counters().tiny, static_cast<std::uint64_t>(kCount));
      EXPECT_EQ(c.live_requests(), 0u);
    } else {
      for (int i = 0; i < kCount; ++i) {
        int v = -1;
        c.recv(&v, 1, type, 0, 5, world);
        ASSERT_EQ(v, i);
      }
    }
    int done = 0;
    if (world.rank() == 0) c.recv(&done, 1, type, 1, 6, world);
    else c.send(&done, 1, type, 0, 6, world);
  });
}

TEST(FlowControl, TooFewCreditsIsAClearError) {
  testing::run_forked([] {
    sim::Simulation simulation(sim::load_platform("ideal"));
    try {
      simulation.run(1, [](sim::RankEnv& env) {
        mpi::Config config;
        config.credits = 2;
        Context c(env.device, env.oob, config);
      });
      ADD_FAILURE() << "expected an error";
    } catch (const mpi::Error& e) {
      EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_ARG);
      EXPECT_NE(std::string(e.what()).find("credits"), std::string::npos) << e.what();
    }
  });
}

}  // namespace
}  // namespace twinfab::mpitest
