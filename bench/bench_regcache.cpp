// Registration cache microbenchmarks (Google Benchmark).
//
//   {dme,lazy}/hit/<entries>   acquire + release of a cached region, the cache holding
//                              <entries> regions (1024 ... 16384); lookups visit the
//                              regions in a scattered order. Target: <= 100 ns at 8192
//                              (UCX's rcache lookup: 50-90 ns); lazy: O(log n), so
//                              doubling the entries adds a constant.
//   {dme,lazy}/hit_seq/<entries>  the same in address order: consecutive lookups share
//                              most of their tree path in cache, which isolates the
//                              comparisons from the memory hierarchy.
//   {dme,lazy}/miss/<entries>  acquire + release of an area not cached, the cache full
//                              of unused regions: LRU eviction + registration on a fake
//                              device whose registration costs nothing.
//   verbs_reg_dereg/65536      ibv_reg_mr + ibv_dereg_mr of a 64 KiB buffer on the first
//                              verbs device, and the counter `ratio` = that / a lazy
//                              cache hit on the same buffer (expect >= 100). Skipped
//                              with a message when there is no verbs device.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdlib>
#include <vector>

#include "mpi/regcache/registration_cache.hpp"
#include "tests/support/counting_device.hpp"
#ifdef TWINFAB_HAVE_VERBS
#include "backends/verbs/verbs_backend.hpp"
#endif

namespace {

using namespace twinfab;
using mpi::regcache::CacheKind;
constexpr fabric::Access kRw = fabric::Access::LocalWrite | fabric::Access::RemoteWrite | fabric::Access::RemoteRead;
constexpr std::size_t kRegion = 64 * 1024;
constexpr std::size_t kSlot = 128 * 1024;

// Address space the fake device "registers": reserved (PROT_NONE), never unmapped
// while the benchmark runs, so no hook can invalidate the cached regions.
char* reserved(std::size_t slots) {
  static char* base = nullptr;
  static std::size_t have = 0;
  if (have < slots) {
    void* p = mmap(nullptr, slots * kSlot, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) std::abort();
    base = static_cast<char*>(p);  // the old reservation is kept: cheap, and safe
    have = slots;
  }
  return base;
}

// A scattered visiting order (a stride coprime with the count).
std::vector<std::size_t> scattered(std::size_t n) {
  std::vector<std::size_t> order(n);
  std::size_t stride = 7919 % n == 0 ? 1 : 7919;
  for (std::size_t i = 0; i < n; ++i) order[i] = (i * stride) % n;
  return order;
}

void hit(benchmark::State& state, CacheKind kind, bool sequential) {
  const auto entries = static_cast<std::size_t>(state.range(0));
  testing::CountingDevice device;
  auto cache = mpi::regcache::make_cache(kind, device, {entries, 1ull << 40, 4096});
  char* base = reserved(2 * entries);
  for (std::size_t i = 0; i < entries; ++i) cache->release(cache->acquire(base + i * kSlot, kRegion, kRw));
  auto order = scattered(entries);
  if (sequential)
    for (std::size_t k = 0; k < entries; ++k) order[k] = k;
  std::size_t i = 0;
  for (auto _ : state) {
    auto* r = cache->acquire(base + order[i] * kSlot + 256, kRegion - 512, kRw);
    benchmark::DoNotOptimize(r);
    cache->release(r);
    if (++i == entries) i = 0;
  }
  if (cache->counters().misses != entries) state.SkipWithError("unexpected misses during the hit benchmark");
  state.counters["entries"] = static_cast<double>(entries);
}

void miss(benchmark::State& state, CacheKind kind) {
  const auto entries = static_cast<std::size_t>(state.range(0));
  testing::CountingDevice device;
  auto cache = mpi::regcache::make_cache(kind, device, {entries, 1ull << 40, 4096});
  char* base = reserved(2 * entries);
  for (std::size_t i = 0; i < entries; ++i) cache->release(cache->acquire(base + i * kSlot, kRegion, kRw));
  // Cycling over twice the capacity in LRU order: every acquire misses and evicts.
  std::size_t i = entries;
  for (auto _ : state) {
    auto* r = cache->acquire(base + i * kSlot, kRegion, kRw);
    benchmark::DoNotOptimize(r);
    cache->release(r);
    if (++i == 2 * entries) i = 0;
  }
  state.counters["evictions/iter"] =
      benchmark::Counter(static_cast<double>(cache->counters().evictions), benchmark::Counter::kAvgIterations);
}

void verbs_reg_dereg(benchmark::State& state) {
#ifdef TWINFAB_HAVE_VERBS
  std::unique_ptr<fabric::Device> device;
  try {
    device = verbs::open_device();
  } catch (const std::exception& e) {
    state.SkipWithError(fmt::format("skipped: no usable verbs device ({})", e.what()).c_str());
    return;
  }
  const auto size = static_cast<std::size_t>(state.range(0));
  std::vector<char> buffer(size, 1);
  // The cache hit on the same buffer, measured first in this run.
  auto cache = mpi::regcache::make_cache(CacheKind::Lazy, *device, {16, 1ull << 30, 4096});
  cache->release(cache->acquire(buffer.data(), size, kRw));
  constexpr int kHits = 1000000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kHits; ++i) {
    auto* r = cache->acquire(buffer.data(), size, kRw);
    benchmark::DoNotOptimize(r);
    cache->release(r);
  }
  const double hit_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kHits;
  const auto t1 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto mr = device->register_memory(buffer.data(), size, kRw);  // deregistered at the end of the scope
    benchmark::DoNotOptimize(mr);
  }
  const double reg_dereg_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t1).count() /
                              static_cast<double>(state.iterations());
  state.counters["hit_ns"] = hit_ns;
  state.counters["reg_dereg_ns"] = reg_dereg_ns;
  state.counters["ratio"] = reg_dereg_ns / hit_ns;
  fmt::print(stderr, "verbs: ibv_reg_mr + ibv_dereg_mr of {} B = {:.0f} ns; lazy cache hit = {:.1f} ns; ratio {:.0f}x\n",
             size, reg_dereg_ns, hit_ns, reg_dereg_ns / hit_ns);
#else
  state.SkipWithError("skipped: built without the verbs backend (rdma-core not found)");
#endif
}

}  // namespace

BENCHMARK_CAPTURE(hit, dme, CacheKind::Dme, false)->Name("dme/hit")->RangeMultiplier(2)->Range(1024, 16384);
BENCHMARK_CAPTURE(hit, lazy, CacheKind::Lazy, false)->Name("lazy/hit")->RangeMultiplier(2)->Range(1024, 16384);
BENCHMARK_CAPTURE(hit, dme_seq, CacheKind::Dme, true)->Name("dme/hit_seq")->RangeMultiplier(2)->Range(1024, 16384);
BENCHMARK_CAPTURE(hit, lazy_seq, CacheKind::Lazy, true)
    ->Name("lazy/hit_seq")->RangeMultiplier(2)->Range(1024, 16384);
BENCHMARK_CAPTURE(miss, dme, CacheKind::Dme)->Name("dme/miss")->RangeMultiplier(2)->Range(1024, 16384);
BENCHMARK_CAPTURE(miss, lazy, CacheKind::Lazy)->Name("lazy/miss")->RangeMultiplier(2)->Range(1024, 16384);
BENCHMARK(verbs_reg_dereg)->Name("verbs_reg_dereg")->Arg(65536)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
