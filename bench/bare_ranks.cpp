#include "bench/bare_ranks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>
#include <vector>

#include "backends/sim/actor_wake.hpp"
#include "backends/sim/event_queue.hpp"
#include "backends/sim/sim_fabric.hpp"

namespace twinfab::bench {

namespace {
namespace s4u = simgrid::s4u;
using Clock = std::chrono::steady_clock;

constexpr double kRoundSeconds = 1e-6;  ///< simulated time between two wakes of a rank

/// One line of a rank's private state.
struct alignas(64) StateLine {
  StateLine* next = nullptr;
  std::uint64_t count = 0;
};
static_assert(sizeof(StateLine) == 64);

constexpr unsigned kBlockLines = 256;  ///< 16 KiB: about a simulated MPI rank's heap objects

/// A rank's private block and the order in which it touches `touched.count` of its lines.
class PrivateState {
 public:
  PrivateState(unsigned rank, TouchedLines touched) : chained_(touched.access == LineAccess::chained) {
    // No block at all for none: the bare ranks of --scaling keep the heap layout they
    // had before there was a block.
    if (touched.count == 0) return;
    lines_ = std::make_unique<StateLine[]>(kBlockLines);
    std::mt19937 random(rank + 1);
    std::vector<std::uint16_t> order(kBlockLines);
    if (touched.access == LineAccess::contiguous) {
      const auto first = std::uniform_int_distribution<unsigned>(0, kBlockLines - touched.count)(random);
      std::iota(order.begin(), order.end(), static_cast<std::uint16_t>(first));
    } else {
      std::iota(order.begin(), order.end(), std::uint16_t{0});
      std::shuffle(order.begin(), order.end(), random);
    }
    order.resize(touched.count);
    if (chained_) {
      for (std::size_t i = 0; i + 1 < order.size(); ++i) lines_[order[i]].next = &lines_[order[i + 1]];
      head_ = order.empty() ? nullptr : &lines_[order.front()];
    } else {
      order_ = std::move(order);
    }
  }

  /// Reads and writes each chosen line once.
  void touch() {
    if (chained_) {
      for (StateLine* line = head_; line != nullptr; line = line->next) ++line->count;
    } else {
      for (std::uint16_t index : order_) ++lines_[index].count;
    }
  }

 private:
  std::unique_ptr<StateLine[]> lines_;
  bool chained_;
  StateLine* head_ = nullptr;
  std::vector<std::uint16_t> order_;  ///< the lines to touch, unless chained
};
}  // namespace

const char* line_access_name(LineAccess access) {
  switch (access) {
    case LineAccess::chained:
      return "chained";
    case LineAccess::scattered:
      return "scattered";
    case LineAccess::contiguous:
      return "contiguous";
  }
  return "?";
}

double bare_rank_resume_cost(const sim::Platform& platform, unsigned ranks, unsigned rounds, TouchedLines touched) {
  if (ranks == 0 || rounds == 0) return 0;
  if (touched.count > kBlockLines)
    throw std::invalid_argument("bare ranks: at most " + std::to_string(kBlockLines) + " touched lines per resume");
  const auto& hosts = sim::ensure_engine(platform);
  // Only deadlines are queued: no packet travels.
  sim::EventQueue events([](sim::SimDevice*, sim::WireMessage*) {});
  Clock::time_point start;  // set by rank 0 when the untimed round is done
  unsigned long resumes = 0;
  for (unsigned r = 0; r < ranks; ++r) {
    s4u::Actor::create("bare-" + std::to_string(r), hosts[r % hosts.size()], [&, r] {
      auto wake = std::make_shared<sim::ActorWake>();
      PrivateState state(r, touched);
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
        state.touch();
        ++resumes;
      }
    });
  }
  s4u::Engine::get_instance()->run();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return seconds / static_cast<double>(resumes);
}

}  // namespace twinfab::bench
