// Registration caches (mpi/regcache) on a counting fake device: the DME of seed 000,
// the lazy engine of seed 002, the no-cache baseline; limits, bad input, and
// invalidation through the real interposed munmap/mremap/madvise.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "fabric/error.hpp"
#include "mpi/regcache/dme.hpp"
#include "mpi/regcache/lazy.hpp"
#include "mpi/regcache/memory_hooks.hpp"
#include "tests/support/counting_device.hpp"

namespace twinfab::mpi::regcache {
namespace {

using twinfab::testing::CountingDevice;
constexpr fabric::Access kRw = fabric::Access::LocalWrite | fabric::Access::RemoteWrite | fabric::Access::RemoteRead;
constexpr std::uintptr_t kPage = 4096;
// Fake addresses below mmap_min_addr: no real munmap elsewhere in the process can
// invalidate them, and the fake device never touches memory.
const void* at(std::uintptr_t offset) { return reinterpret_cast<const void*>(0x1000 + offset); }

Limits limits(std::size_t entries, std::uint64_t bytes = 1ull << 30) { return Limits{entries, bytes, kPage}; }

TEST(RegCacheNone, RegistersAndDeregistersEveryTransfer) {
  CountingDevice device;
  auto cache = make_cache(CacheKind::None, device, limits(4));
  for (int i = 0; i < 3; ++i) {
    Region* r = cache->acquire(at(0), 100, kRw);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(device.live, 1);
    cache->release(r);
    EXPECT_EQ(device.live, 0);
  }
  EXPECT_EQ(cache->counters().misses, 3u);
  EXPECT_EQ(cache->counters().hits, 0u);
  EXPECT_EQ(device.registrations, 3u);
}

TEST(RegCacheDme, HitOnSameFirstPageAndFewerPages) {
  CountingDevice device;
  DmeCache cache(device, limits(8));
  Region* a = cache.acquire(at(100), 3 * kPage, kRw);  // pages 0..3
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->start, 0x1000u);
  EXPECT_EQ(a->end - a->start, 4 * kPage) << "whole pages";
  cache.release(a);
  Region* b = cache.acquire(at(0), kPage, kRw);  // same first page, fewer pages
  EXPECT_EQ(b, a);
  cache.release(b);
  Region* c = cache.acquire(at(0), 6 * kPage, kRw);  // more pages: a miss
  EXPECT_NE(c, a);
  cache.release(c);
  Region* d = cache.acquire(at(kPage), 100, kRw);  // other first page: a miss (seed: page hash)
  EXPECT_NE(d, a);
  cache.release(d);
  EXPECT_EQ(cache.counters().hits, 1u);
  EXPECT_EQ(cache.counters().misses, 3u);
  EXPECT_EQ(device.live, 3);
}

TEST(RegCacheDme, NeedsTheRequestedAccess) {
  CountingDevice device;
  DmeCache cache(device, limits(8));
  Region* a = cache.acquire(at(0), 100, fabric::Access::LocalWrite);
  cache.release(a);
  Region* b = cache.acquire(at(0), 100, kRw);
  EXPECT_NE(a, b);
  EXPECT_TRUE(fabric::has(b->access, kRw));
  cache.release(b);
}

TEST(RegCacheDme, EvictsLeastRecentlyUnused) {
  CountingDevice device;
  DmeCache cache(device, limits(2));
  Region* a = cache.acquire(at(0), 10, kRw);
  Region* b = cache.acquire(at(kPage), 10, kRw);
  cache.release(a);
  cache.release(b);  // unused list: b, a
  ASSERT_EQ(cache.unused_order(), (std::vector<const Region*>{b, a}));
  cache.release(cache.acquire(at(0), 10, kRw));  // a used again: a, b
  ASSERT_EQ(cache.unused_order(), (std::vector<const Region*>{a, b}));
  Region* c = cache.acquire(at(2 * kPage), 10, kRw);  // no free record: evict b (tail)
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(cache.counters().evictions, 1u);
  cache.release(c);
  Region* again = cache.acquire(at(0), 10, kRw);
  EXPECT_EQ(again, a) << "a survived";
  cache.release(again);
  EXPECT_EQ(cache.counters().hits, 2u);
  EXPECT_EQ(device.live, 2);
}

TEST(RegCacheDme, RegionsInFlightAreNeverEvicted) {
  CountingDevice device;
  DmeCache cache(device, limits(1));
  Region* a = cache.acquire(at(0), 10, kRw);
  EXPECT_EQ(cache.acquire(at(kPage), 10, kRw), nullptr) << "seed 000: NULL when nothing is unused";
  EXPECT_EQ(cache.counters().no_resource, 1u);
  EXPECT_EQ(device.live, 1);
  Region* a2 = cache.acquire(at(0), 10, kRw);  // a second reference still hits
  EXPECT_EQ(a2, a);
  cache.release(a);
  EXPECT_EQ(cache.acquire(at(kPage), 10, kRw), nullptr) << "one reference is left";
  cache.release(a2);
  Region* b = cache.acquire(at(kPage), 10, kRw);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(cache.counters().evictions, 1u);
  cache.release(b);
}

TEST(RegCacheDme, ByteLimit) {
  CountingDevice device;
  DmeCache cache(device, limits(16, 4 * kPage));
  EXPECT_EQ(cache.acquire(at(0), 5 * kPage, kRw), nullptr);
  EXPECT_EQ(cache.counters().too_large, 1u);
  Region* a = cache.acquire(at(0), 3 * kPage, kRw);
  cache.release(a);
  Region* b = cache.acquire(at(4 * kPage), 2 * kPage, kRw);  // 3 + 2 > 4 pages: evict a
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(cache.counters().evictions, 1u);
  EXPECT_LE(cache.pinned_bytes(), 4 * kPage);
  cache.release(b);
}

class RegCacheBoth : public ::testing::TestWithParam<CacheKind> {};

TEST_P(RegCacheBoth, BadInputIsAClearErrorAndChangesNothing) {
  CountingDevice device;
  auto cache = make_cache(GetParam(), device, limits(4));
  auto status_of = [&](const void* addr, std::size_t len) {
    try {
      cache->acquire(addr, len, kRw);
    } catch (const fabric::Error& e) {
      EXPECT_NE(std::string(e.what()).find("registration cache"), std::string::npos) << e.what();
      return e.status();
    }
    return fabric::Status::Ok;
  };
  EXPECT_EQ(status_of(nullptr, 10), fabric::Status::InvalidArgument);
  EXPECT_EQ(status_of(at(0), 0), fabric::Status::InvalidArgument);
  EXPECT_EQ(status_of(reinterpret_cast<const void*>(UINTPTR_MAX - 10), 100), fabric::Status::InvalidArgument);
  EXPECT_EQ(device.registrations, 0u);
  EXPECT_EQ(cache->regions(), 0u);
}

TEST_P(RegCacheBoth, DoubleReleaseIsDetected) {
  CountingDevice device;
  auto cache = make_cache(GetParam(), device, limits(4));
  Region* a = cache->acquire(at(0), 10, kRw);
  cache->release(a);
  EXPECT_THROW(cache->release(a), fabric::Error);
  Region foreign;
  EXPECT_THROW(cache->release(&foreign), fabric::Error);
  EXPECT_THROW(cache->release(nullptr), fabric::Error);
}

TEST_P(RegCacheBoth, DeviceRefusalPropagatesAndFreesTheRecord) {
  CountingDevice device;
  auto cache = make_cache(GetParam(), device, limits(1));
  device.fail_next = true;
  EXPECT_THROW(cache->acquire(at(0), 10, kRw), fabric::Error);
  Region* a = cache->acquire(at(0), 10, kRw);  // the one record is free again
  ASSERT_NE(a, nullptr);
  cache->release(a);
}

TEST_P(RegCacheBoth, InvalidationDropsUnusedAndDefersInFlight) {
  CountingDevice device;
  auto cache = make_cache(GetParam(), device, limits(8));
  Region* unused = cache->acquire(at(0), 100, kRw);
  cache->release(unused);
  Region* busy = cache->acquire(at(4 * kPage), 100, kRw);
  notify_unmapped(at(0), 8 * kPage);
  EXPECT_EQ(cache->counters().invalidations, 2u);
  EXPECT_EQ(device.live, 2) << "no deregistration inside the hook";
  Region* fresh = cache->acquire(at(0), 100, kRw);  // a miss; the dead one is deregistered now
  EXPECT_EQ(cache->counters().misses, 3u);
  EXPECT_EQ(device.live, 2);  // busy + fresh
  Region* fresh_busy = cache->acquire(at(4 * kPage), 100, kRw);
  EXPECT_NE(fresh_busy, busy) << "an invalidated region is never handed out again";
  cache->release(busy);  // its last reference: deregistered
  EXPECT_EQ(device.live, 2);
  cache->release(fresh);
  cache->release(fresh_busy);
  notify_unmapped(at(100 * kPage), kPage);  // elsewhere: nothing
  EXPECT_EQ(cache->counters().invalidations, 2u);
}

INSTANTIATE_TEST_SUITE_P(Engines, RegCacheBoth, ::testing::Values(CacheKind::Dme, CacheKind::Lazy),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(RegCacheLazy, SeedComparison) {
  // seed 002: x < y iff sa(x) < sa(y) and ea(x) <= ea(y); x > y iff sa(x) >= sa(y) and
  // ea(x) > ea(y); equal (containment) otherwise.
  EXPECT_EQ(compare_areas(0, 10, 20, 30), AreaOrder::Less);     // disjoint, below
  EXPECT_EQ(compare_areas(20, 30, 0, 10), AreaOrder::Greater);  // disjoint, above
  EXPECT_EQ(compare_areas(0, 15, 10, 20), AreaOrder::Less);     // partial overlap, below
  EXPECT_EQ(compare_areas(15, 25, 10, 20), AreaOrder::Greater); // partial overlap, above
  EXPECT_EQ(compare_areas(12, 18, 10, 20), AreaOrder::Equal);   // subset
  EXPECT_EQ(compare_areas(5, 25, 10, 20), AreaOrder::Equal);    // superset
  EXPECT_EQ(compare_areas(10, 20, 10, 20), AreaOrder::Equal);   // same
}

TEST(RegCacheLazy, SubsetHitsDisjointRegisters) {
  CountingDevice device;
  LazyCache cache(device, limits(8));
  Region* a = cache.acquire(at(0), 8192, kRw);
  cache.release(a);
  Region* sub = cache.acquire(at(100), 200, kRw);  // inside a, not at its start: a hit
  EXPECT_EQ(sub, a);
  cache.release(sub);
  Region* b = cache.acquire(at(8192), 100, kRw);  // adjacent, disjoint
  EXPECT_NE(b, a);
  cache.release(b);
  EXPECT_EQ(cache.counters().hits, 1u);
  EXPECT_EQ(cache.counters().misses, 2u);
  EXPECT_EQ(cache.supersets(), 0u);
}

TEST(RegCacheLazy, PartialOverlapRegistersTheSuperset) {
  CountingDevice device;
  LazyCache cache(device, limits(8));
  Region* a = cache.acquire(at(0), 8192, kRw);
  cache.release(a);
  Region* s = cache.acquire(at(4096), 8192, kRw);  // overlaps a's second half
  EXPECT_EQ(cache.supersets(), 1u);
  EXPECT_EQ(s->start, 0x1000u);
  EXPECT_EQ(s->end, 0x1000u + 12288);
  EXPECT_EQ(device.live, 1) << "the unused old area was deregistered";
  cache.release(s);
  Region* first = cache.acquire(at(0), 100, kRw);  // the old area's range hits the superset
  EXPECT_EQ(first, s);
  cache.release(first);
}

TEST(RegCacheLazy, SupersetOfSeveralAndInFlightAreasSurvive) {
  CountingDevice device;
  LazyCache cache(device, limits(8));
  Region* a = cache.acquire(at(0), 100, kRw);             // in flight
  Region* b = cache.acquire(at(2 * kPage), 100, kRw);
  cache.release(b);
  Region* s = cache.acquire(at(50), 3 * kPage, kRw);      // covers a's tail and all of b
  EXPECT_EQ(s->start, 0x1000u);
  EXPECT_EQ(s->end, 0x1000u + 50 + 3 * kPage);
  EXPECT_EQ(device.live, 2) << "a is in flight: not deregistered; b was";
  EXPECT_EQ(a->mr->addr(), at(0)) << "a still usable";
  cache.release(a);
  EXPECT_EQ(device.live, 1) << "a deregistered at its last release";
  Region* hit = cache.acquire(at(0), 10, kRw);
  EXPECT_EQ(hit, s);
  cache.release(hit);
  cache.release(s);
}

TEST(RegCacheLazy, EvictsLeastRecentlyUnused) {
  CountingDevice device;
  LazyCache cache(device, limits(2));
  Region* a = cache.acquire(at(0), 10, kRw);
  Region* b = cache.acquire(at(kPage), 10, kRw);
  cache.release(b);
  cache.release(a);  // a, b
  Region* c = cache.acquire(at(2 * kPage), 10, kRw);  // evicts b
  cache.release(c);
  EXPECT_EQ(cache.counters().evictions, 1u);
  EXPECT_EQ(cache.acquire(at(0), 10, kRw), a);
  cache.release(a);
  Region* a_held = cache.acquire(at(0), 10, kRw);
  Region* c_held = cache.acquire(at(2 * kPage), 10, kRw);
  EXPECT_EQ(cache.acquire(at(5 * kPage), 10, kRw), nullptr);
  EXPECT_EQ(cache.counters().no_resource, 1u);
  cache.release(a_held);
  cache.release(c_held);
}

// ---- the interposed hooks, with real mappings -----------------------------------

struct Mapping {
  explicit Mapping(std::size_t n, void* at = nullptr, int extra = 0) : length(n) {
    addr = mmap(at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
    EXPECT_NE(addr, MAP_FAILED);
  }
  void* addr;
  std::size_t length;
};

TEST(RegCacheHooks, MunmapThenMapFixedAtTheSameAddressMisses) {
  CountingDevice device;
  LazyCache lazy(device, limits(8));
  DmeCache dme(device, limits(8));
  Mapping m(16 * kPage);
  std::memset(m.addr, 1, m.length);
  for (RegistrationCache* c : {static_cast<RegistrationCache*>(&lazy), static_cast<RegistrationCache*>(&dme)})
    c->release(c->acquire(m.addr, m.length, kRw));
  const std::uint64_t before = notifications();
  ASSERT_EQ(munmap(m.addr, m.length), 0);
  EXPECT_GT(notifications(), before) << "munmap was not interposed";
  Mapping again(16 * kPage, m.addr, MAP_FIXED);
  ASSERT_EQ(again.addr, m.addr);
  for (RegistrationCache* c : {static_cast<RegistrationCache*>(&lazy), static_cast<RegistrationCache*>(&dme)}) {
    EXPECT_EQ(c->counters().invalidations, 1u);
    Region* r = c->acquire(again.addr, again.length, kRw);
    EXPECT_EQ(c->counters().misses, 2u) << to_string(c->kind()) << ": the new mapping must be registered anew";
    c->release(r);
  }
  munmap(again.addr, again.length);
}

TEST(RegCacheHooks, PartialMunmapMremapAndMadviseInvalidate) {
  CountingDevice device;
  LazyCache cache(device, limits(8));
  Mapping m(16 * kPage);
  cache.release(cache.acquire(m.addr, 4 * kPage, kRw));
  cache.release(cache.acquire(static_cast<char*>(m.addr) + 8 * kPage, 4 * kPage, kRw));
  ASSERT_EQ(madvise(static_cast<char*>(m.addr) + kPage, kPage, MADV_DONTNEED), 0);
  EXPECT_EQ(cache.counters().invalidations, 1u);
  ASSERT_EQ(madvise(m.addr, kPage, MADV_WILLNEED), 0);  // harmless advice: nothing
  EXPECT_EQ(cache.counters().invalidations, 1u);
  void* moved = mremap(static_cast<char*>(m.addr) + 8 * kPage, 8 * kPage, 2 * kPage, 0);  // shrink
  ASSERT_NE(moved, MAP_FAILED);
  EXPECT_EQ(cache.counters().invalidations, 2u);
  EXPECT_EQ(munmap(m.addr, 10 * kPage), 0);
}

TEST(RegCacheHooks, SbrkShrinkInvalidates) {
  CountingDevice device;
  DmeCache cache(device, limits(8));
  // Cache the range first (the fake device does not touch it), so that nothing
  // allocates between growing the break and shrinking it back: malloc must not
  // extend the heap in between (the cache's invalidation does not allocate).
  void* old_break = sbrk(0);
  cache.release(cache.acquire(old_break, 2 * kPage, kRw));
  void* grown = sbrk(static_cast<intptr_t>(4 * kPage));
  ASSERT_EQ(grown, old_break);
  ASSERT_NE(sbrk(-static_cast<intptr_t>(4 * kPage)), reinterpret_cast<void*>(-1));
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_EQ(sbrk(0), old_break);
}

}  // namespace
}  // namespace twinfab::mpi::regcache
