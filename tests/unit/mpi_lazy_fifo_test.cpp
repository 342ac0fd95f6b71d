// LazyFifo (mpi/core/lazy_fifo.hpp): the per-peer queue that allocates nothing while
// empty. Order under interleaved pushes and pops, across its compaction and its reset
// when emptied; indexing and iteration from the front; what a popped element held is
// released at the pop.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "mpi/core/lazy_fifo.hpp"

namespace twinfab::mpi {
namespace {

TEST(LazyFifo, KeepsOrderThroughInterleavedPushesPopsAndCompaction) {
  LazyFifo<int> q;
  EXPECT_TRUE(q.empty());
  int next_in = 0, next_out = 0;
  // Pushes outrun pops, so the front moves well past the compaction threshold while
  // the queue never empties.
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < 3; ++k) q.push_back(next_in++);
    for (int k = 0; k < 2; ++k) {
      ASSERT_EQ(q.front(), next_out);
      q.pop_front();
      ++next_out;
    }
    ASSERT_EQ(q.size(), static_cast<std::size_t>(next_in - next_out));
    ASSERT_EQ(q.back(), next_in - 1);
  }
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_EQ(q[i], next_out + static_cast<int>(i));
  int expected = next_out;
  for (const int v : q) ASSERT_EQ(v, expected++);
  EXPECT_EQ(expected, next_in);
  while (!q.empty()) {
    ASSERT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(q.size(), 0u);
  q.emplace_back(42);  // reused after emptying
  EXPECT_EQ(q.front(), 42);
  EXPECT_EQ(q.size(), 1u);
}

TEST(LazyFifo, APoppedElementReleasesWhatItHeld) {
  LazyFifo<std::shared_ptr<int>> q;
  auto held = std::make_shared<int>(7);
  q.push_back(held);
  q.push_back(std::make_shared<int>(8));
  EXPECT_EQ(held.use_count(), 2);
  q.pop_front();
  EXPECT_EQ(held.use_count(), 1);  // not kept until the queue empties
  EXPECT_EQ(*q.front(), 8);
}

}  // namespace
}  // namespace twinfab::mpi
