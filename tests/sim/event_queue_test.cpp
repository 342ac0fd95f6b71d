// The simulated fabric's event queue (backends/sim/event_queue.hpp): blocked ranks
// whose deadlines fall on one date wake in the order they set them, so a simulation
// of identical ranks keeps running them in one stable order.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "backends/sim/simulation.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

constexpr unsigned kRanks = 64;

/// The order in which `kRanks` ranks set a deadline for one common date: each first
/// sleeps a rank-dependent time (all different dates), which scrambles their order.
unsigned position_in_setting_order(unsigned rank) { return (rank * 37 + 11) % kRanks; }

TEST(EventQueue, RanksWhoseDeadlinesFallOnOneDateWakeInTheOrderTheySetThem) {
  testing::run_forked([] {
    sim::Platform p = sim::load_platform("connectx-ddr");
    p.hosts = kRanks;
    sim::Simulation s(p);
    std::vector<unsigned> set_order, wake_order;
    s.run(kRanks, [&](sim::RankEnv& env) {
      env.runtime.sleep_for(1e-6 * (position_in_setting_order(env.rank) + 1));
      set_order.push_back(env.rank);  // ranks run one at a time
      env.runtime.sleep_for(1e-3 - env.runtime.now());
      wake_order.push_back(env.rank);
      EXPECT_DOUBLE_EQ(env.runtime.now(), 1e-3);
    });
    ASSERT_EQ(set_order.size(), kRanks);
    // The first deadlines were all different: the ranks went on in date order.
    for (unsigned i = 0; i < kRanks; ++i) EXPECT_EQ(position_in_setting_order(set_order[i]), i);
    EXPECT_EQ(wake_order, set_order);
  });
}

TEST(EventQueue, ADeadlineEarlierThanThosePendingIsNotHeldBack) {
  testing::run_forked([] {
    sim::Platform p = sim::load_platform("connectx-ddr");
    p.hosts = 2;
    sim::Simulation s(p);
    std::vector<double> woke(2, -1);
    s.run(2, [&](sim::RankEnv& env) {
      // Rank 0 sets the later deadline first, rank 1 an earlier one after it.
      env.runtime.sleep_for(env.rank == 0 ? 5e-3 : 1e-3);
      woke[env.rank] = env.runtime.now();
    });
    EXPECT_DOUBLE_EQ(woke[1], 1e-3);
    EXPECT_DOUBLE_EQ(woke[0], 5e-3);
  });
}

// A rank that blocks again and again until one date, woken early in between (a UD
// channel waits until its next timer between messages): the date's event is queued by
// the first block only, and it wakes the last block at that date. Rank 1 starts three
// barriers that end rank 0's waits early; rank 0's last wait ends at the deadline.
TEST(EventQueue, BlocksSharingADeadlineAreWokenAtItByOneEvent) {
  testing::run_forked([] {
    sim::Platform p = sim::load_platform("ideal");
    p.hosts = 2;
    sim::Simulation s(p);
    const double deadline = 100e-6;
    std::vector<double> early;
    double last = -1;
    int last_waits = 0;
    s.run(2, [&](sim::RankEnv& env) {
      auto cq = env.device.create_cq(4);  // nothing ever completes in it
      fabric::CompletionQueue* src[] = {cq.get()};
      for (int round = 1; round <= 3; ++round) {
        if (env.rank == 1) env.runtime.sleep_for(10e-6 * round - env.runtime.now());
        std::unique_ptr<fabric::PendingBarrier> b = env.oob.start_barrier();
        while (!b->done()) env.runtime.wait(src, deadline);
        if (env.rank == 0) early.push_back(env.runtime.now());
      }
      if (env.rank != 0) return;
      while (env.runtime.now() < deadline) {
        ++last_waits;
        env.runtime.wait(src, deadline);
      }
      last = env.runtime.now();
    });
    ASSERT_EQ(early.size(), 3u);
    for (std::size_t i = 0; i < early.size(); ++i) EXPECT_NEAR(early[i], 10e-6 * static_cast<double>(i + 1), 1e-12);
    EXPECT_DOUBLE_EQ(last, deadline);
    EXPECT_EQ(last_waits, 1) << "no spurious wake-up before the deadline";
  });
}

}  // namespace
}  // namespace twinfab
