// More ranks: all-to-all exchanges at 2, 4, 16 and 64 ranks, and a ring.
#include <gtest/gtest.h>

#include <vector>

#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::MessageStatus;
using mpi::RequestId;

class AllToAll : public ::testing::TestWithParam<unsigned> {};

// Every rank sends every other rank a message whose size depends on the pair, with
// wildcard receives, then checks each message by its status.
TEST_P(AllToAll, EveryPairExchanges) {
  const unsigned ranks = GetParam();
  mpi::Config config;
  // Keep the registered receive memory of 64 fully connected ranks modest.
  config.credits = ranks > 16 ? 4 : 32;
  run_ranks("connectx-ddr", ranks, config, [ranks](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    const int me = world.rank();
    auto size_of = [](int from, int to) { return static_cast<std::size_t>(((from * 31 + to * 17) % 5) * 9000); };
    std::vector<std::vector<std::byte>> out(ranks);
    std::vector<RequestId> sends;
    for (int peer = 0; peer < static_cast<int>(ranks); ++peer) {
      out[static_cast<std::size_t>(peer)] = pattern(size_of(me, peer), static_cast<unsigned>(me * 1000 + peer));
      sends.push_back(c.isend(out[static_cast<std::size_t>(peer)].data(),
                              static_cast<std::int64_t>(out[static_cast<std::size_t>(peer)].size()), type, peer, 7,
                              world));
    }
    std::vector<bool> seen(ranks, false);
    std::vector<std::byte> in(40000);
    for (unsigned i = 0; i < ranks; ++i) {
      MessageStatus s = c.recv(in.data(), 40000, type, mpi::kAnySource, 7, world);
      ASSERT_FALSE(seen[static_cast<std::size_t>(s.source)]);
      seen[static_cast<std::size_t>(s.source)] = true;
      const auto want = pattern(size_of(s.source, me), static_cast<unsigned>(s.source * 1000 + me));
      ASSERT_EQ(s.count_bytes, static_cast<std::int64_t>(want.size()));
      ASSERT_TRUE(std::equal(want.begin(), want.end(), in.begin())) << "from " << s.source;
    }
    c.waitall(sends);
  });
}

INSTANTIATE_TEST_SUITE_P(Pt2pt, AllToAll, ::testing::Values(2u, 4u, 16u, 64u));

TEST(Pt2pt, RingExchangeAt16Ranks) {
  run_ranks("connectx-ddr", 16, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Long);
    const int n = world.size();
    long token = world.rank();
    long sum = 0;
    for (int step = 0; step < n; ++step) {
      long incoming = -1;
      RequestId r = c.irecv(&incoming, 1, type, (world.rank() + n - 1) % n, step, world);
      c.send(&token, 1, type, (world.rank() + 1) % n, step, world);
      c.wait(r);
      sum += incoming;
      token = incoming;
    }
    EXPECT_EQ(sum, static_cast<long>(n) * (n - 1) / 2);
  });
}

}  // namespace
}  // namespace twinfab::mpitest
