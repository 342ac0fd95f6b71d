// A run models only the hosts its ranks use (backends/sim/model_size.hpp): the kept
// hosts keep their indices and routes, so a pattern's simulated time is the same on
// the cut platform as on the whole one; and a platform too large for this machine is
// refused before SimGrid builds it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "backends/sim/model_size.hpp"
#include "fabric/error.hpp"
#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

/// Simulated seconds of a shifted exchange (every rank sends 64 KiB to rank + k and
/// receives from rank - k, for k = 1 .. n-1) of `ranks` ranks, one per host, on `p`,
/// run in a child process (one SimGrid platform per process).
double exchange_time(const sim::Platform& p, unsigned ranks) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    double t = -1;
    try {
      sim::Simulation simulation(p);
      simulation.run(ranks, [&](sim::RankEnv& env) {
        Context c(env.device, env.oob, {});
        const auto& world = c.world();
        const auto& type = c.datatype(BasicKind::Byte);
        const int n = world.size(), r = world.rank();
        std::vector<char> out(65536, static_cast<char>(r)), in(65536);
        for (int k = 1; k < n; ++k) {
          auto sent = c.isend(out.data(), 65536, type, (r + k) % n, k, world);
          c.recv(in.data(), 65536, type, (r - k + n) % n, k, world);
          c.wait(sent);
        }
      }, 1);
      t = simulation.now();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    [[maybe_unused]] auto written = write(fds[1], &t, sizeof t);
    _exit(0);
  }
  close(fds[1]);
  double t = -1;
  if (read(fds[0], &t, sizeof t) != sizeof t) t = -1;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return t;
}

TEST(ModelSize, FatTreeCutToTheUsedHostsKeepsTheirRoutes) {
  // 40 hosts: a whole leaf switch of 32 and 8 hosts of the next, so traffic crosses the
  // spines; the cut platform keeps 2 of the 128 leaves.
  const sim::Platform whole = sim::load_platform("fat-tree-4096");
  const sim::Platform cut = sim::hosts_in_use(whole, 40);
  ASSERT_EQ(cut.hosts, 64u);
  EXPECT_EQ(cut.fat_tree.down, (std::vector<unsigned>{32, 2}));
  const double t_whole = exchange_time(whole, 40);
  const double t_cut = exchange_time(cut, 40);
  ASSERT_GT(t_whole, 0);
  EXPECT_EQ(t_whole, t_cut);  // bit for bit: the same routes and bandwidth sharing
}

TEST(ModelSize, SingleSwitchCutToTheUsedHosts) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.hosts = 1u << 24;
  const sim::Platform cut = sim::hosts_in_use(p, 3);
  EXPECT_EQ(cut.hosts, 3u);
  EXPECT_EQ(sim::hosts_in_use(p, 1).hosts, 2u);  // never below the 2 a perf test needs
  p.hosts = 4;
  EXPECT_GT(exchange_time(sim::hosts_in_use(p, 3), 3), 0);
}

TEST(ModelSize, APlatformBeyondThisMachinesMemoryIsRefusedWithTheEstimate) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.hosts = 1u << 24;
  // 16 M hosts at a few KB each: tens of GB, more than any CI machine has free.
  EXPECT_GT(sim::estimate_model_bytes(p), 50ull << 30);
  try {
    sim::check_model_fits(p);
    GTEST_SKIP() << "this machine has the memory for 16 M simulated hosts";
  } catch (const fabric::Error& e) {
    EXPECT_NE(std::string(e.what()).find("models 16777216 hosts"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GB of simulator memory, more than this machine has available"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace twinfab::mpitest
