// The registration cache under MPI in the simulator: a freed buffer whose address is
// reused with new contents arrives with the new contents, the cache's hits show in
// simulated time, and an area above the pin limit falls back to a per-transfer
// registration. In the simulator data moves by address, so a stale registration
// would not corrupt data here: the counters (invalidation, miss) are what these
// tests check; the verbs label repeats the scenario where staleness would show.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::regcache::CacheKind;

class RegcacheMpi : public ::testing::TestWithParam<CacheKind> {};

std::string kind_name(const ::testing::TestParamInfo<CacheKind>& info) {
  return std::string(mpi::regcache::to_string(info.param));
}

constexpr std::size_t kBig = 4u << 20;  // rendezvous, and above glibc's default mmap threshold

TEST_P(RegcacheMpi, UnmapAndMapFixedAtTheSameAddressSendsTheNewContents) {
  mpi::Config config;
  config.regcache = GetParam();
  run_ranks("connectx-ddr", 2, config, [&](Context& c) {
    const auto& type = c.datatype(BasicKind::Byte);
    if (c.world().rank() == 0) {
      void* buffer = mmap(nullptr, kBig, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      ASSERT_NE(buffer, MAP_FAILED);
      const auto first = pattern(kBig, 1);
      std::memcpy(buffer, first.data(), kBig);
      c.send(buffer, kBig, type, 1, 0, c.world());
      ASSERT_EQ(munmap(buffer, kBig), 0);
      void* again = mmap(buffer, kBig, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      ASSERT_EQ(again, buffer);
      const auto second = pattern(kBig, 2);
      std::memcpy(again, second.data(), kBig);
      c.send(again, kBig, type, 1, 0, c.world());
      munmap(again, kBig);
      const auto& counters = c.registration_counters();
      EXPECT_EQ(counters.misses, 2u) << "the remapped buffer must be registered anew";
      EXPECT_EQ(counters.hits, 0u);
      if (GetParam() != CacheKind::None) {
        EXPECT_GE(counters.invalidations, 1u);
      }
    } else {
      std::vector<std::byte> in(kBig);
      c.recv(in.data(), kBig, type, 0, 0, c.world());
      EXPECT_EQ(in, pattern(kBig, 1));
      c.recv(in.data(), kBig, type, 0, 0, c.world());
      EXPECT_EQ(in, pattern(kBig, 2));
    }
  });
}

TEST_P(RegcacheMpi, FreeAndMallocAgainSendsTheNewContents) {
  mpi::Config config;
  config.regcache = GetParam();
  run_ranks("connectx-ddr", 2, config, [&](Context& c) {
    const auto& type = c.datatype(BasicKind::Byte);
    if (c.world().rank() == 0) {
      // With a cache, malloc keeps freed memory mapped (memory_hooks.hpp), so the
      // reused address has the same pages and the cached registration stays right.
      auto* buffer = static_cast<std::byte*>(std::malloc(kBig));
      const auto first = pattern(kBig, 3);
      std::memcpy(buffer, first.data(), kBig);
      c.send(buffer, kBig, type, 1, 0, c.world());
      std::free(buffer);
      auto* again = static_cast<std::byte*>(std::malloc(kBig));
      const auto second = pattern(kBig, 4);
      std::memcpy(again, second.data(), kBig);
      c.send(again, kBig, type, 1, 0, c.world());
      std::free(again);
    } else {
      std::vector<std::byte> in(kBig);
      c.recv(in.data(), kBig, type, 0, 0, c.world());
      EXPECT_EQ(in, pattern(kBig, 3));
      c.recv(in.data(), kBig, type, 0, 0, c.world());
      EXPECT_EQ(in, pattern(kBig, 4));
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Kinds, RegcacheMpi, ::testing::Values(CacheKind::None, CacheKind::Dme, CacheKind::Lazy),
                         kind_name);

// PingPong of 1 MiB, 10 times, on the seeds' platform: with a cache each side
// registers its buffers once; without, twice per round trip each. The simulated time
// must show the platform's registration cost (40 us + 4 us per page) saved.
TEST(RegcacheMpiTime, CacheHitsShowInSimulatedTime) {
  testing::run_forked([] {
    const sim::Platform platform = sim::load_platform("infinihost-sdr");
    constexpr std::size_t kSize = 1u << 20;
    constexpr int kRounds = 10;
    double elapsed[3] = {};
    mpi::regcache::Counters counters[3];
    const CacheKind kinds[3] = {CacheKind::None, CacheKind::Dme, CacheKind::Lazy};
    for (int k = 0; k < 3; ++k) {
      mpi::Config config;
      config.regcache = kinds[k];
      sim::Simulation simulation(platform);
      simulation.run(2, [&](sim::RankEnv& env) {
        Context c(env.device, env.oob, config);
        const auto& type = c.datatype(BasicKind::Byte);
        std::vector<std::byte> buffer(kSize);
        const int peer = 1 - c.world().rank();
        const double start = c.runtime().now();
        for (int i = 0; i < kRounds; ++i) {
          if (c.world().rank() == 0) {
            c.send(buffer.data(), kSize, type, peer, 0, c.world());
            c.recv(buffer.data(), kSize, type, peer, 0, c.world());
          } else {
            c.recv(buffer.data(), kSize, type, peer, 0, c.world());
            c.send(buffer.data(), kSize, type, peer, 0, c.world());
          }
        }
        if (c.world().rank() == 0) {
          elapsed[k] = c.runtime().now() - start;
          counters[k] = c.registration_counters();
        }
      });
    }
    // Registration of 1 MiB: 40 us + 256 pages * 4 us = 1.064 ms.
    const double per_registration = platform.registration.base + 256 * platform.registration.per_page;
    EXPECT_EQ(counters[0].misses, 2u * kRounds);
    for (int k = 1; k < 3; ++k) {
      EXPECT_EQ(counters[k].misses, 1u) << to_string(kinds[k]);
      EXPECT_EQ(counters[k].hits, 2u * kRounds - 1) << to_string(kinds[k]);
      // Each side saves (2 * kRounds - 1) registrations, on the critical path.
      EXPECT_GT(elapsed[0] - elapsed[k], 0.9 * 2 * (2 * kRounds - 1) * per_registration) << to_string(kinds[k]);
    }
  });
}

TEST(RegcacheMpiLimits, AnAreaAbovethePinLimitFallsBackAndArrives) {
  mpi::Config config;
  config.regcache = CacheKind::Lazy;
  config.regcache_max_bytes = 1u << 20;
  run_ranks("connectx-ddr", 2, config, [&](Context& c) {
    const auto& type = c.datatype(BasicKind::Byte);
    const auto data = pattern(kBig, 5);
    if (c.world().rank() == 0) {
      c.send(data.data(), kBig, type, 1, 0, c.world());
      EXPECT_EQ(c.registration_counters().fallbacks, 1u);
      EXPECT_EQ(c.registration_counters().too_large, 1u);
    } else {
      std::vector<std::byte> in(kBig);
      c.recv(in.data(), kBig, type, 0, 0, c.world());
      EXPECT_EQ(in, data);
    }
  });
}

}  // namespace
}  // namespace twinfab::mpitest

namespace twinfab::mpitest {
namespace {

// TWINFAB_REGCACHE* are read by apply_environment; bad values are MPI_ERR_ARG errors
// that name the variable.
TEST(RegcacheConfig, EnvironmentSelectsTheCacheAndRejectsBadValues) {
  testing::run_forked([] {
    setenv("TWINFAB_REGCACHE", "dme", 1);
    setenv("TWINFAB_REGCACHE_MAX_ENTRIES", "128", 1);
    setenv("TWINFAB_REGCACHE_MAX_BYTES", "1048576", 1);
    mpi::Config config = mpi::apply_environment({});
    EXPECT_EQ(config.regcache, CacheKind::Dme);
    EXPECT_EQ(config.regcache_max_entries, 128u);
    EXPECT_EQ(config.regcache_max_bytes, 1048576u);
    auto message_of = [](const char* name, const char* value) {
      setenv(name, value, 1);
      std::string text;
      try {
        mpi::apply_environment({});
      } catch (const mpi::Error& e) {
        EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_ARG);
        text = e.what();
      }
      unsetenv(name);
      return text;
    };
    EXPECT_NE(message_of("TWINFAB_REGCACHE", "ucx").find("not one of none, dme, lazy"), std::string::npos);
    EXPECT_NE(message_of("TWINFAB_REGCACHE_MAX_ENTRIES", "0").find("regcache_max_entries"), std::string::npos);
    EXPECT_NE(message_of("TWINFAB_REGCACHE_MAX_BYTES", "0").find("regcache_max_bytes"), std::string::npos);
    EXPECT_NE(message_of("TWINFAB_REGCACHE_MAX_BYTES", "-5").find("TWINFAB_REGCACHE_MAX_BYTES"), std::string::npos);
  });
}

}  // namespace
}  // namespace twinfab::mpitest
