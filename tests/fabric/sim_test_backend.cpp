// The simulated backend as seen by the conformance suite: two device contexts on two
// simulated hosts, driven by one actor.
//
// Each run() forks: SimGrid builds one platform per process and keeps global state, so
// every test body gets a fresh process whatever order gtest runs them in, and the
// binary works both under ctest (a process per test) and run directly.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "backends/sim/simulation.hpp"
#include "tests/fabric/test_backend.hpp"

namespace twinfab::testing {
namespace {

constexpr int kChildSkipped = 77;

class SimTestBackend final : public TestBackend {
 public:
  explicit SimTestBackend(std::string preset) : preset_(std::move(preset)) {}

  std::string name() const override {
    std::string n = "sim_" + preset_;
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
  }

  void run(const std::function<void(fabric::Device&, fabric::Device&)>& body) override {
    std::fflush(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      int code = 0;
      try {
        sim::Simulation sim(sim::load_platform(preset_));
        sim.run_single([&] {
          auto a = sim.open_device(0);
          auto b = sim.open_device(1);
          body(*a, *b);
        });
      } catch (const std::exception& e) {
        ADD_FAILURE() << "simulation failed: " << e.what();
      }
      if (::testing::Test::HasFailure()) code = 1;
      else if (::testing::Test::IsSkipped()) code = kChildSkipped;
      std::fflush(nullptr);
      _exit(code);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "the simulated test body crashed (signal " << WTERMSIG(status) << ")";
    if (WEXITSTATUS(status) == kChildSkipped) GTEST_SKIP() << "skipped inside the simulation (reason above)";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the simulated test body failed (details above)";
  }

 private:
  std::string preset_;
};

}  // namespace

std::shared_ptr<TestBackend> make_sim_test_backend(const std::string& preset) {
  return std::make_shared<SimTestBackend>(preset);
}

}  // namespace twinfab::testing
