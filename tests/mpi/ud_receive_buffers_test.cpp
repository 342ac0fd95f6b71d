// The UD channel's receive buffers (ud_channel.hpp): TWINFAB_UD_RECV_INITIAL posted at
// start, doubled when a look at the receive queue finds half of them taken, never
// above TWINFAB_UD_RECV_BUFFERS. A ping-pong keeps the initial few (what a rank with
// few peers costs at scale); a flood makes them grow, and every message still arrives
// once, in order.
#include <gtest/gtest.h>

#include <vector>

#include "mpi/core/config.hpp"
#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::RequestId;

mpi::Config ud_config(std::uint32_t initial, std::uint32_t most) {
  mpi::Config config;
  config.transport = mpi::Transport::Ud;
  config.ud_recv_initial = initial;
  config.ud_recv_buffers = most;
  return config;
}

// Rank 0 sends `flood` ints to rank 1, which has posted every receive first (so the
// datagrams come as fast as the wire brings them); rank 1 checks each value.
void flood(Context& c, int count) {
  const auto& world = c.world();
  const auto& ints = c.datatype(BasicKind::Int);
  std::vector<int> values(static_cast<std::size_t>(count), -1);
  std::vector<RequestId> requests;
  if (world.rank() == 1) {
    for (int i = 0; i < count; ++i)
      requests.push_back(c.irecv(&values[static_cast<std::size_t>(i)], 1, ints, 0, 7, world));
  }
  int go = 0;
  if (world.rank() == 1)
    c.send(&go, 1, ints, 0, 8, world);
  else
    c.recv(&go, 1, ints, 1, 8, world);
  if (world.rank() == 0) {
    for (int i = 0; i < count; ++i) values[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < count; ++i)
      requests.push_back(c.isend(&values[static_cast<std::size_t>(i)], 1, ints, 1, 7, world));
  }
  c.waitall(requests);
  if (world.rank() == 1)
    for (int i = 0; i < count; ++i) ASSERT_EQ(values[static_cast<std::size_t>(i)], i) << "message " << i;
}

void ping_pong(Context& c, int rounds) {
  const auto& world = c.world();
  const auto& ints = c.datatype(BasicKind::Int);
  for (int i = 0; i < rounds; ++i) {
    int v = i;
    if (world.rank() == 0) {
      c.send(&v, 1, ints, 1, 1, world);
      c.recv(&v, 1, ints, 1, 1, world);
    } else {
      c.recv(&v, 1, ints, 0, 1, world);
      c.send(&v, 1, ints, 0, 1, world);
    }
    ASSERT_EQ(v, i);
  }
}

TEST(UdReceiveBuffers, APingPongKeepsTheInitialFew) {
  run_ranks("connectx-ddr", 2, ud_config(4, 256), [](Context& c) {
    ping_pong(c, 200);
    EXPECT_EQ(c.channel_counters().ud_receive_growths, 0u);
  });
}

TEST(UdReceiveBuffers, AFloodDoublesThemUpToTheMostAndEverythingArrivesInOrder) {
  run_ranks("connectx-ddr", 2, ud_config(4, 64), [](Context& c) {
    flood(c, 2000);
    if (c.world().rank() == 1) {
      // 4 -> 8 -> 16 -> 32 -> 64: at least one doubling, and none past the most.
      EXPECT_GE(c.channel_counters().ud_receive_growths, 1u);
      EXPECT_LE(c.channel_counters().ud_receive_growths, 4u);
    }
  });
}

// A burst larger than the receives posted reaches a receiver that computes (no MPI
// call for 1 ms, longer than the sender's tail-loss probe waits, so the probe finds no
// receive either). Back in MPI, the receiver's look finds every receive taken and asks
// the sender to send the rest again: the burst completes at once, not after the 0.4 s
// retransmission timeout.
TEST(UdReceiveBuffers, AReceiverThatRanOutAsksForTheRestAtOnce) {
  run_ranks("connectx-ddr", 2, ud_config(4, 64), [](Context& c) {
    const auto& world = c.world();
    const double start = c.runtime().now();
    flood_a_busy_receiver(c, 12, 1e-3, 5);
    const auto& counters = c.channel_counters();
    EXPECT_LT(c.runtime().now() - start, 0.01) << "the retransmission timeout (0.4 s) was waited for";
    EXPECT_EQ(counters.retransmissions, 0u);
    if (world.rank() == 1) EXPECT_GE(counters.ud_receive_overruns, 1u);
    if (world.rank() == 0) EXPECT_GE(counters.nack_retransmissions, 1u) << "the rest, sent again on the overrun's ACK";
  });
}

TEST(UdReceiveBuffers, AnInitialAboveTheMostPostsTheMost) {
  run_ranks("connectx-ddr", 2, ud_config(512, 8), [](Context& c) {
    flood(c, 500);
    EXPECT_EQ(c.channel_counters().ud_receive_growths, 0u) << "all 8 were posted at start";
  });
}

}  // namespace
}  // namespace twinfab::mpitest
