#include "bench/bare_ranks.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <chrono>
#include <memory>
#include <vector>

#include "backends/sim/actor_wake.hpp"
#include "backends/sim/event_queue.hpp"
#include "backends/sim/sim_fabric.hpp"

namespace twinfab::bench {

namespace {
namespace s4u = simgrid::s4u;
using Clock = std::chrono::steady_clock;

constexpr double kRoundSeconds = 1e-6;  ///< simulated time between two wakes of a rank
}  // namespace

double bare_rank_resume_cost(const sim::Platform& platform, unsigned ranks, unsigned rounds) {
  if (ranks == 0 || rounds == 0) return 0;
  const auto& hosts = sim::ensure_engine(platform);
  // Only deadlines are queued: no packet travels.
  sim::EventQueue events([](sim::SimDevice*, sim::WireMessage*) {});
  Clock::time_point start;  // set by rank 0 when the untimed round is done
  unsigned long resumes = 0;
  for (unsigned r = 0; r < ranks; ++r) {
    s4u::Actor::create("bare-" + std::to_string(r), hosts[r % hosts.size()], [&, r] {
      auto wake = std::make_shared<sim::ActorWake>();
      // SimRuntime::block, without a fabric.
      auto block = [&] {
        sim::ActorWake& w = *wake;
        w.blocked = true;
        w.signalled = false;
        const std::uint64_t generation = ++w.generation;
        events.wake_at(s4u::Engine::get_clock() + kRoundSeconds, wake, generation);
        w.actor = s4u::Actor::self();
        s4u::this_actor::suspend();
        w.blocked = false;
      };
      block();  // the untimed round: rank 0, woken first, starts the clock
      if (r == 0) start = Clock::now();
      for (unsigned round = 0; round < rounds; ++round) {
        block();
        ++resumes;
      }
    });
  }
  s4u::Engine::get_instance()->run();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return seconds / static_cast<double>(resumes);
}

}  // namespace twinfab::bench
