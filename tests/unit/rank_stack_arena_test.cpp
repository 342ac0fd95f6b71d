// RankStackArena, directly and through the calloc/free this binary interposes
// (backends/sim/stack_interpose.cpp, linked into unit_tests as into twinfab).
#include "backends/sim/rank_stack_arena.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace twinfab::sim {
namespace {

constexpr std::size_t kStack = 64 * 1024 + 100;  // not a page multiple: slots round up

bool page_aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)) == 0;
}

bool all_zero(const void* p, std::size_t bytes) {
  const auto* c = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i)
    if (c[i] != 0) return false;
  return true;
}

TEST(RankStackArena, ServesOnlyTheArmedThreadTheArmedSizeAndCount) {
  const std::size_t before = RankStackArena::in_use();
  EXPECT_EQ(RankStackArena::take(kStack), nullptr) << "not armed";
  std::vector<void*> slots;
  {
    RankStackArena::Armed armed(2, kStack);
    EXPECT_EQ(RankStackArena::take(kStack + 16), nullptr) << "another size";
    void* from_other_thread = reinterpret_cast<void*>(1);
    std::thread([&] { from_other_thread = RankStackArena::take(kStack); }).join();
    EXPECT_EQ(from_other_thread, nullptr) << "armed on this thread only";
    for (int i = 0; i < 3; ++i) slots.push_back(RankStackArena::take(kStack));
  }
  ASSERT_NE(slots[0], nullptr);
  ASSERT_NE(slots[1], nullptr);
  EXPECT_EQ(slots[2], nullptr) << "only as many as armed";
  EXPECT_EQ(RankStackArena::take(kStack), nullptr) << "disarmed";
  EXPECT_TRUE(page_aligned(slots[0]) && page_aligned(slots[1]));
  EXPECT_GE(static_cast<char*>(slots[1]) - static_cast<char*>(slots[0]), static_cast<std::ptrdiff_t>(kStack));
  EXPECT_TRUE(all_zero(slots[0], kStack) && all_zero(slots[1], kStack));
  EXPECT_EQ(RankStackArena::in_use(), before + 2);

  int on_heap = 0;
  EXPECT_FALSE(RankStackArena::give_back(&on_heap)) << "not a slot";
  std::memset(slots[0], 0xab, kStack);
  EXPECT_TRUE(RankStackArena::give_back(slots[0]));
  EXPECT_TRUE(RankStackArena::give_back(slots[1]));
  EXPECT_EQ(RankStackArena::in_use(), before);

  // Once every slot is back the next run starts over, and what a stack wrote is gone.
  RankStackArena::Armed again(1, kStack);
  void* reused = RankStackArena::take(kStack);
  EXPECT_EQ(reused, slots[0]);
  EXPECT_TRUE(all_zero(reused, kStack));
  EXPECT_TRUE(RankStackArena::give_back(reused));
}

TEST(RankStackArena, ALargerRunRemapsOnceTheSlotsAreBack) {
  std::vector<void*> slots;
  {
    RankStackArena::Armed armed(64, kStack);
    for (int i = 0; i < 64; ++i) slots.push_back(RankStackArena::take(kStack));
  }
  for (void* s : slots) {
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(RankStackArena::give_back(s));
  }
  RankStackArena::Armed bigger(4, 2 * kStack);  // another stack size
  void* big = RankStackArena::take(2 * kStack);
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(all_zero(big, 2 * kStack));
  EXPECT_TRUE(RankStackArena::give_back(big));
}

TEST(RankStackArena, CallocAndFreeOfThisProcessAskTheArena) {
#ifdef TWINFAB_SANITIZE
  GTEST_SKIP() << "sanitizer builds leave calloc and free to the sanitizer (stack_interpose.cpp)";
#else
  const std::size_t before = RankStackArena::in_use();
  void* stack = nullptr;
  void* other = nullptr;
  {
    RankStackArena::Armed armed(1, kStack);
    // What SimGrid's context does for a stack without a guard page.
    stack = std::calloc(1, kStack);
    other = std::calloc(kStack, 1);  // the same size, but the one armed slot is taken
  }
  ASSERT_NE(stack, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(RankStackArena::in_use(), before + 1);
  EXPECT_TRUE(page_aligned(stack));
  EXPECT_TRUE(all_zero(other, kStack)) << "glibc's calloc, still zeroed";
  std::free(other);  // glibc's
  EXPECT_EQ(RankStackArena::in_use(), before + 1);
  std::free(stack);  // the arena's
  EXPECT_EQ(RankStackArena::in_use(), before);
  std::free(nullptr);
  void* unarmed = std::calloc(3, 5);
  ASSERT_NE(unarmed, nullptr);
  std::free(unarmed);
  volatile std::size_t huge = SIZE_MAX / 2;  // volatile: no compile-time size warning
  EXPECT_EQ(std::calloc(huge, 4), nullptr) << "an overflowing size is glibc's ENOMEM";
#endif
}

}  // namespace
}  // namespace twinfab::sim
