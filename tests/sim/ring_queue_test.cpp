// The simulated HCA's work-queue ring and scatter lists: FIFO order across
// wrap-around and growth, indexing from the front, the owner's limit as capacity.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/sim/ring_queue.hpp"
#include "backends/sim/sim_objects.hpp"

namespace twinfab::sim {
namespace {

TEST(RingQueue, KeepsFifoOrderAcrossWrapAroundAndGrowth) {
  RingQueue<std::string> q;
  int pushed = 0, popped = 0;
  // Interleave pushes and pops so that the head wraps before and after each growth.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) q.push_back(std::to_string(pushed++));
    for (int i = 0; i < round % 5 && !q.empty(); ++i) EXPECT_EQ(q.pop_front(), std::to_string(popped++));
    ASSERT_EQ(q.size(), static_cast<std::size_t>(pushed - popped));
    for (std::size_t i = 0; i < q.size(); ++i) ASSERT_EQ(q[i], std::to_string(popped + static_cast<int>(i)));
  }
  while (!q.empty()) EXPECT_EQ(q.pop_front(), std::to_string(popped++));
  EXPECT_EQ(popped, pushed);
}

TEST(RingQueue, HoldsExactlyItsLimitWithoutLosingEntries) {
  // 33: not a power of two (a QP with 32 credits posts 33 receives).
  RingQueue<int> q(33);
  for (int cycle = 0; cycle < 3; ++cycle) {
    for (int i = 0; i < 33; ++i) q.push_back(cycle * 100 + i);
    ASSERT_EQ(q.size(), 33u);
    EXPECT_EQ(q.front(), cycle * 100);
    EXPECT_EQ(q[32], cycle * 100 + 32);
    for (int i = 0; i < 33; ++i) EXPECT_EQ(q.pop_front(), cycle * 100 + i);
  }
  q.push_back(7);
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push_back(8);  // usable again after clear()
  EXPECT_EQ(q.pop_front(), 8);

  q.push_back(9);
  RingQueue<int> moved = std::move(q);
  EXPECT_TRUE(q.empty());  // NOLINT(bugprone-use-after-move): a moved-from ring is empty and usable
  q.push_back(10);
  EXPECT_EQ(q.pop_front(), 10);
  EXPECT_EQ(moved.pop_front(), 9);
}

TEST(SgeList, KeepsShortListsInPlaceAndLongOnesWhole) {
  std::vector<fabric::Sge> two = {{0x1000, 120, 7}, {0x2000, 8072, 7}};
  SgeList a{two};
  ASSERT_EQ(a.view().size(), 2u);
  EXPECT_EQ(a.view()[1].addr, 0x2000u);
  EXPECT_EQ(a.view()[1].length, 8072u);

  std::vector<fabric::Sge> five;
  for (std::uint32_t i = 0; i < 5; ++i) five.push_back({0x1000u * (i + 1), 64 * (i + 1), i});
  SgeList b{five};
  ASSERT_EQ(b.view().size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(b.view()[i].lkey, i);
  SgeList moved = std::move(b);
  ASSERT_EQ(moved.view().size(), 5u);
  EXPECT_EQ(moved.view()[4].length, 320u);

  EXPECT_TRUE(SgeList{}.view().empty());
}

}  // namespace
}  // namespace twinfab::sim
