// Helpers for MPI engine tests: run N ranks, each with its own mpi::Context, on a
// simulated platform in a forked child (one SimGrid platform per process).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backends/sim/simulation.hpp"
#include "mpi/core/context.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab::mpitest {

using mpi::BasicKind;
using mpi::Context;

/// Runs `body` on `ranks` ranks of `loaded`, each with a Context built from
/// `config`. ranks_per_host 0: the platform's value, raised so that the ranks fit
/// on the platform's hosts.
inline void run_ranks(const sim::Platform& loaded, unsigned ranks, const mpi::Config& config,
                      const std::function<void(Context&)>& body, unsigned ranks_per_host = 0) {
  testing::run_forked([&] {
    if (ranks_per_host == 0) {
      const unsigned hosts = loaded.hosts;
      ranks_per_host = std::max(loaded.ranks_per_host, (ranks + hosts - 1) / hosts);
    }
    sim::Simulation simulation(loaded);
    simulation.run(ranks, [&](sim::RankEnv& env) {
      Context context(env.device, env.oob, config);
      body(context);
    }, ranks_per_host);
  });
}

/// The same on the preset or platform file `platform`.
inline void run_ranks(const std::string& platform, unsigned ranks, const mpi::Config& config,
                      const std::function<void(Context&)>& body, unsigned ranks_per_host = 0) {
  run_ranks(sim::load_platform(platform), ranks, config, body, ranks_per_host);
}

/// A deterministic byte pattern that differs per message and position.
inline std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  std::uint32_t x = seed * 2654435761u + 12345u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] = static_cast<std::byte>(x >> 24);
  }
  return v;
}

/// Rank 0 sends `count` ints (0, 1, ...) to rank 1 with tag `tag` at once; rank 1 first
/// computes `receiver_busy` seconds of simulated time (no MPI call: the messages wait
/// in its queues), then receives them and checks each value. Then rank 1 answers with
/// tag `tag` + 1, so both return after the flood.
inline void flood_a_busy_receiver(Context& c, int count, double receiver_busy, int tag) {
  const auto& world = c.world();
  const auto& ints = c.datatype(BasicKind::Int);
  if (world.rank() == 0) {
    std::vector<int> out(static_cast<std::size_t>(count));
    std::vector<mpi::RequestId> requests;
    for (int i = 0; i < count; ++i) {
      out[static_cast<std::size_t>(i)] = i;
      requests.push_back(c.isend(&out[static_cast<std::size_t>(i)], 1, ints, 1, tag, world));
    }
    c.waitall(requests);
  } else {
    c.runtime().sleep_for(receiver_busy);
    for (int i = 0; i < count; ++i) {
      int v = -1;
      c.recv(&v, 1, ints, 0, tag, world);
      ASSERT_EQ(v, i);
    }
  }
  int done = 0;
  if (world.rank() == 0)
    c.recv(&done, 1, ints, 1, tag + 1, world);
  else
    c.send(&done, 1, ints, 0, tag + 1, world);
}

/// Runs `f`, which must throw mpi::Error of class `expected` with `fragment` in its
/// message.
template <class F>
void expect_error(F&& f, mpi::ErrorClass expected, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected " << mpi::to_string(expected);
  } catch (const mpi::Error& e) {
    EXPECT_EQ(e.error_class(), expected) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

}  // namespace twinfab::mpitest
