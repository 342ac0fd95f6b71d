// IcmCache's LRU on its own (the end-to-end penalty is in icm_test.cpp).
#include <gtest/gtest.h>

#include <array>

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

TEST(IcmCacheLru, CapacityZeroModelsNoCache) {
  IcmCache cache(0);
  IcmCache::Entry a;
  EXPECT_TRUE(cache.touch(a));
  EXPECT_FALSE(a.cached());
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace twinfab::sim
