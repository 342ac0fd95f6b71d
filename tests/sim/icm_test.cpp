// The HCA's QP-context cache (seed 004, 3.2.1): a working set of QPs larger than the
// cache misses on every message and each miss adds the platform's penalty.
#include <gtest/gtest.h>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

struct IcmRun {
  double seconds_per_message = 0;
  sim::Counters counters;
};

/// Round-robin RC sends over `qps` connections, each waited for.
IcmRun round_robin(unsigned qps, unsigned rounds) {
  IcmRun r;
  sim::Platform p = sim::load_platform("connectx-ddr");
  sim::Simulation s(p);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1);
    std::vector<testing::SimSide> a, b;
    for (unsigned i = 0; i < qps; ++i) {
      a.push_back(testing::make_side(*da, fabric::Transport::RC, 64));
      b.push_back(testing::make_side(*db, fabric::Transport::RC, 64));
      testing::connect_sides(a.back(), b.back());
    }
    auto run_round = [&] {
      for (unsigned i = 0; i < qps; ++i) {
        fabric::Sge rs = b[i].mr->sge(0, 64), ss = a[i].mr->sge(0, 8);
        ASSERT_EQ(b[i].qp->post_recv({i, {&rs, 1}}), fabric::Status::Ok);
        fabric::SendWr wr;
        wr.sg_list = {&ss, 1};
        ASSERT_EQ(a[i].qp->post_send(wr), fabric::Status::Ok);
        ASSERT_EQ(testing::collect(*db, *b[i].cq, 1, 1.0).size(), 1u);
        ASSERT_EQ(testing::collect(*da, *a[i].cq, 1, 1.0).size(), 1u);
      }
    };
    run_round();  // warm-up: every context is loaded once
    s.reset_counters();
    const double t0 = da->runtime().now();
    for (unsigned k = 0; k < rounds; ++k) run_round();
    r.seconds_per_message = (da->runtime().now() - t0) / (qps * rounds);
  });
  r.counters = s.counters();
  return r;
}

TEST(IcmCache, WorkingSetWithinTheCacheHits) {
  testing::run_forked([] {
    IcmRun r = round_robin(64, 3);  // 64 QPs per HCA, cache of 128
    EXPECT_EQ(r.counters.icm_misses, 0u);
    EXPECT_GT(r.counters.icm_hits, 0u);
  });
}

TEST(IcmCache, WorkingSetBeyondTheCacheMissesAndCostsThePenalty) {
  testing::run_forked([] {
    IcmRun small = round_robin(64, 3);
    IcmRun large = round_robin(200, 3);  // LRU over 200 > 128: every touch misses
    EXPECT_EQ(large.counters.icm_hits, 0u);
    EXPECT_GT(large.counters.icm_misses, 0u);
    const double penalty = sim::load_platform("connectx-ddr").hca.icm_miss_penalty;
    // A message and its ACK: a miss at the sender's HCA and one at the receiver's.
    EXPECT_NEAR(large.seconds_per_message - small.seconds_per_message, 2 * penalty, 0.05 * penalty);
  });
}

}  // namespace
}  // namespace twinfab
