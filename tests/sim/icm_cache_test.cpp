// IcmCache's LRU on its own (the end-to-end penalty is in icm_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <list>
#include <random>

#include "backends/sim/icm_cache.hpp"

namespace twinfab::sim {
namespace {

TEST(IcmCacheLru, FirstTouchMissesThenHits) {
  IcmCache cache(2);
  IcmCache::Entry a;
  EXPECT_FALSE(cache.touch(a));
  EXPECT_TRUE(cache.touch(a));
  EXPECT_TRUE(a.cached());
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
}

TEST(IcmCacheLru, EvictsTheLeastRecentlyUsed) {
  IcmCache cache(2);
  IcmCache::Entry a, b, c;
  cache.touch(a);
  cache.touch(b);
  cache.touch(a);         // b is now the least recent
  EXPECT_FALSE(cache.touch(c));  // evicts b
  EXPECT_FALSE(b.cached());
  EXPECT_TRUE(a.cached());
  EXPECT_TRUE(c.cached());
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.touch(a));
  EXPECT_FALSE(cache.touch(b));  // evicts c, the least recent now
  EXPECT_FALSE(c.cached());
}

TEST(IcmCacheLru, RoundRobinOverMoreEntriesThanCapacityAlwaysMisses) {
  IcmCache cache(3);
  std::array<IcmCache::Entry, 4> e;
  for (int round = 0; round < 3; ++round)
    for (auto& x : e) EXPECT_FALSE(cache.touch(x));
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(IcmCacheLru, EraseFreesTheSlotAndIgnoresUncachedEntries) {
  IcmCache cache(2);
  IcmCache::Entry a, b, c, never;
  cache.touch(a);
  cache.touch(b);
  cache.erase(a);
  cache.erase(never);
  EXPECT_FALSE(a.cached());
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_FALSE(cache.touch(c));  // fits without evicting b
  EXPECT_TRUE(b.cached());
  EXPECT_TRUE(cache.touch(b));
  cache.erase(b);
  cache.erase(c);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_FALSE(cache.touch(a));
}

// The cache keeps its list in insertion order until the first eviction and orders it
// by touch stamps then (icm_cache.hpp): its hits, misses and evictions must still be
// those of a strict LRU, before, at and after that point, with erases in between.
TEST(IcmCacheLru, MatchesAStrictLruOnRandomTouchesAndErases) {
  for (uint32_t capacity : {1u, 2u, 3u, 8u, 16u}) {
    IcmCache cache(capacity);
    std::array<IcmCache::Entry, 24> entries;
    std::list<int> reference;  // most recently used first
    std::mt19937 random(1234 + capacity);
    std::uniform_int_distribution<int> pick(0, static_cast<int>(entries.size()) - 1);
    // Few distinct entries first (the cache fills slowly, hits while unordered), then all.
    for (int step = 0; step < 4000; ++step) {
      const int i = step < 300 ? pick(random) % static_cast<int>(capacity + 1) : pick(random);
      auto it = std::find(reference.begin(), reference.end(), i);
      if (step % 17 == 0) {  // a QP destroyed
        cache.erase(entries[i]);
        if (it != reference.end()) reference.erase(it);
      } else {
        const bool expected_hit = it != reference.end();
        if (expected_hit) reference.erase(it);
        reference.push_front(i);
        if (reference.size() > capacity) reference.pop_back();
        ASSERT_EQ(cache.touch(entries[i]), expected_hit) << "capacity " << capacity << ", step " << step;
      }
      ASSERT_EQ(cache.size(), reference.size()) << "capacity " << capacity << ", step " << step;
      for (int k = 0; k < static_cast<int>(entries.size()); ++k)
        ASSERT_EQ(entries[k].cached(), std::find(reference.begin(), reference.end(), k) != reference.end())
            << "capacity " << capacity << ", step " << step << ", entry " << k;
    }
  }
}

TEST(IcmCacheLru, CapacityZeroModelsNoCache) {
  IcmCache cache(0);
  IcmCache::Entry a;
  EXPECT_TRUE(cache.touch(a));
  EXPECT_FALSE(a.cached());
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace twinfab::sim
