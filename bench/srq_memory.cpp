// The shared receive queue's memory (issue 33): a process connected to 4096 peers over
// RC, with receive buffers per connection and with the SRQ, both measured in this run
// on the same simulated platform (connectx-ddr, a host per rank). Rank 0 is the centre
// of a star: every other rank sends it one message, so rank 0 ends with a connection
// to each. Its modelled memory is what its host's counters say: QP contexts, the
// platform's per-QP memory (seed 004's 68 KB per RC connection) and every registered
// byte (the channel's buffers; an SRQ's pool). Exits 1 if the SRQ's is above 0.3 times
// the per-connection configuration's, the target.
//
// Buffers per connection cannot reach 4096 peers: each connection's 33 receives need
// entries in the one receive CQ, whose 65536 serve 1985 connections (the channel then
// refuses more, naming TWINFAB_CREDITS). That configuration is measured at two sizes
// below its limit and its memory extrapolated linearly to PEERS (it is linear: the
// same QP and buffers per connection), and the output says so.
//
//   bench_srq_memory [PEERS]     (default 4096)
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>

#include "backends/sim/simulation.hpp"
#include "fabric/capabilities.hpp"
#include "bench/in_child.hpp"
#include "mpi/coll/collectives.hpp"
#include "mpi/core/context.hpp"

namespace twinfab::bench {
namespace {

struct Memory {
  std::uint64_t qp_bytes = 0;          ///< QP contexts and the per-QP memory
  std::uint64_t registered_bytes = 0;  ///< the channel's buffers
  std::uint64_t connections = 0;
  std::uint64_t srq_growths = 0;
  std::uint64_t total() const { return qp_bytes + registered_bytes; }
};

Memory star(unsigned peers, std::uint32_t srq) {
  return in_child<Memory>("bench_srq_memory", fmt::format("run with TWINFAB_SRQ={}", srq), [&] {
    Memory m;
    mpi::Config config;
    config.srq = srq;
    sim::Platform platform = sim::load_platform("connectx-ddr");
    platform.hosts = peers + 1;
    sim::Simulation simulation(platform);
    simulation.run(peers + 1, [&](sim::RankEnv& env) {
      mpi::Context c(env.device, env.oob, config);
      const auto& world = c.world();
      const auto& ints = c.datatype(mpi::BasicKind::Int);
      int v = world.rank();
      if (world.rank() == 0) {
        for (int from = 1; from < world.size(); ++from) c.recv(&v, 1, ints, mpi::kAnySource, 7, world);
        m.connections = c.channel_counters().connections;
        m.srq_growths = c.channel_counters().srq_growths;
      } else {
        c.send(&v, 1, ints, 0, 7, world);
      }
      mpi::barrier(c, world);
    }, 1);
    const sim::Counters counters = simulation.hca_counters(0);
    m.qp_bytes = counters.qp_context_bytes + counters.communication_buffer_bytes;
    m.registered_bytes = counters.registered_bytes;
    return m;
  });
}

}  // namespace
}  // namespace twinfab::bench

int main(int argc, char** argv) {
  using namespace twinfab::bench;
  const unsigned peers = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 4096;
  if (peers < 1) {
    fmt::print(stderr, "usage: bench_srq_memory [PEERS >= 1]\n");
    return 2;
  }
  // The most connections buffers per connection allow (rc_channel.cpp, max_connections_).
  const unsigned limit = twinfab::fabric::DeviceCapabilities{}.max_cqe / (twinfab::mpi::Config{}.credits + 1);
  Memory per_connection;
  if (peers <= limit) {
    per_connection = star(peers, 0);
  } else {
    const unsigned a = limit / 2;
    const unsigned b = limit - 10;
    const Memory at_a = star(a, 0);
    const Memory at_b = star(b, 0);
    const auto extend = [&](std::uint64_t va, std::uint64_t vb) {
      const double slope = static_cast<double>(vb - va) / (b - a);
      return static_cast<std::uint64_t>(static_cast<double>(vb) + slope * (peers - b));
    };
    per_connection.qp_bytes = extend(at_a.qp_bytes, at_b.qp_bytes);
    per_connection.registered_bytes = extend(at_a.registered_bytes, at_b.registered_bytes);
    per_connection.connections = peers;
    fmt::print("# buffers per connection serve at most {} connections (receive CQ of {} entries): measured at {} "
               "and {} peers, extrapolated linearly to {}\n",
               limit, twinfab::fabric::DeviceCapabilities{}.max_cqe, a, b, peers);
  }
  const Memory shared = star(peers, 1);
  const auto mib = [](std::uint64_t b) { return static_cast<double>(b) / (1 << 20); };
  fmt::print("# rank 0 with RC connections to {} peers (connectx-ddr, simulated; modelled memory of its host)\n",
             peers);
  fmt::print("{:<26} {:>11} {:>14} {:>12} {:>14}\n", "receive buffers", "connections", "QP memory MiB",
             "buffers MiB", "per peer KiB");
  for (const auto& [name, m] : {std::pair{"per connection (default)", per_connection}, std::pair{"SRQ", shared}})
    fmt::print("{:<26} {:>11} {:>14.1f} {:>12.1f} {:>14.1f}\n", name, m.connections, mib(m.qp_bytes),
               mib(m.registered_bytes), static_cast<double>(m.total()) / 1024.0 / peers);
  const double ratio = static_cast<double>(shared.total()) / static_cast<double>(per_connection.total());
  fmt::print("SRQ / per connection: {:.3f} (target <= 0.3); the SRQ's pool grew {} time(s)\n", ratio,
             shared.srq_growths);
  return ratio <= 0.3 ? 0 : 1;
}
