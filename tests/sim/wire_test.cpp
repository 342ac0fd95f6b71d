// Small packets wait for their arrival date in the fabric's event queue
// (backends/sim/event_queue.hpp, fed by wire.hpp): one SimGrid timer stands for every
// pending arrival, so a packet due earlier than all pending ones must move that timer
// forward instead of waiting behind them.
#include <gtest/gtest.h>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

/// Sends `first` bytes from host 0, then `second` bytes from host 2, both to host 1 at
/// the same simulated date (two senders: one HCA would send its packets one after the
/// other); returns the simulated dates at which each arrived.
std::pair<double, double> arrival_dates(size_t first, size_t second) {
  std::pair<double, double> dates{-1, -1};
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.hosts = 3;
  sim::Simulation s(p);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1), dc = s.open_device(2);
    testing::SimSide a0 = testing::make_side(*da, fabric::Transport::RC, 256);
    testing::SimSide b0 = testing::make_side(*db, fabric::Transport::RC, 256);
    testing::SimSide a1 = testing::make_side(*dc, fabric::Transport::RC, 256);
    testing::SimSide b1 = testing::make_side(*db, fabric::Transport::RC, 256);
    testing::connect_sides(a0, b0);
    testing::connect_sides(a1, b1);
    fabric::Sge r0 = b0.mr->sge(0, 256), r1 = b1.mr->sge(0, 256);
    ASSERT_EQ(b0.qp->post_recv({0, {&r0, 1}}), fabric::Status::Ok);
    ASSERT_EQ(b1.qp->post_recv({1, {&r1, 1}}), fabric::Status::Ok);
    fabric::Sge s0 = a0.mr->sge(0, first), s1 = a1.mr->sge(0, second);
    fabric::SendWr w0, w1;
    w0.sg_list = {&s0, 1};
    w1.sg_list = {&s1, 1};
    ASSERT_EQ(a0.qp->post_send(w0), fabric::Status::Ok);
    ASSERT_EQ(a1.qp->post_send(w1), fabric::Status::Ok);
    // Whichever arrives first is collected first: wait on both receive CQs at once.
    fabric::CompletionQueue* both[] = {b0.cq.get(), b1.cq.get()};
    fabric::WorkCompletion wc[4];
    while (dates.first < 0 || dates.second < 0) {
      for (auto* cq : both) {
        size_t n = cq->poll(wc);
        for (size_t i = 0; i < n; ++i) (wc[i].wr_id == 0 ? dates.first : dates.second) = db->runtime().now();
      }
      if (dates.first >= 0 && dates.second >= 0) break;
      ASSERT_NE(db->runtime().wait(both, 1.0), fabric::Status::Timeout);
    }
  });
  return dates;
}

TEST(Wire, ASmallPacketDueEarlierThanThosePendingIsNotHeldBack) {
  testing::run_forked([] {
    // Both packets fit the timer path (Wire::kTimerBytes); the second is shorter, so it
    // is due earlier although it was sent later.
    auto [long_first, short_second] = arrival_dates(150, 2);
    EXPECT_LT(short_second, long_first);
    EXPECT_GT(short_second, 0);
  });
}

TEST(Wire, SmallPacketsDueAtOneDateBothArriveAtIt) {
  testing::run_forked([] {
    // Same size from two hosts over equal routes: one timer delivers both.
    auto [first, second] = arrival_dates(8, 8);
    EXPECT_GT(first, 0);
    EXPECT_DOUBLE_EQ(first, second);
  });
}

}  // namespace
}  // namespace twinfab
