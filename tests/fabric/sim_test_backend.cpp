// The simulated backend as seen by the conformance suite: two device contexts on two
// simulated hosts, driven by one actor.
//
// Each run() forks (tests/support/run_forked.hpp): one SimGrid platform per process.
#include <algorithm>

#include "backends/sim/simulation.hpp"
#include "tests/fabric/test_backend.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab::testing {
namespace {

class SimTestBackend final : public TestBackend {
 public:
  explicit SimTestBackend(std::string preset) : preset_(std::move(preset)) {}

  std::string name() const override {
    std::string n = "sim_" + preset_;
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
  }

  void run(const std::function<void(fabric::Device&, fabric::Device&)>& body) override {
    run_forked([&] {
      sim::Simulation sim(sim::load_platform(preset_));
      sim.run_single([&] {
        auto a = sim.open_device(0);
        auto b = sim.open_device(1);
        body(*a, *b);
      });
    });
  }

 private:
  std::string preset_;
};

}  // namespace

std::shared_ptr<TestBackend> make_sim_test_backend(const std::string& preset) {
  return std::make_shared<SimTestBackend>(preset);
}

}  // namespace twinfab::testing
