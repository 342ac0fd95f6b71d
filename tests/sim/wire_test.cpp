// Small packets wait for their arrival date in the fabric's event queue
// (backends/sim/event_queue.hpp, fed by wire.hpp): one SimGrid timer stands for every
// pending arrival, so a packet due earlier than all pending ones must move that timer
// forward instead of waiting behind them.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "backends/sim/simulation.hpp"
#include "backends/sim/timing_model.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

/// Sends `first` bytes from host 0 to host 1, then `second` bytes from host 2 to host 3,
/// at the same simulated date (two senders: one HCA would send its packets one after
/// the other; two receivers: one would take them in one after the other); returns the
/// simulated dates at which each arrived.
std::pair<double, double> arrival_dates(size_t first, size_t second) {
  std::pair<double, double> dates{-1, -1};
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.hosts = 4;
  sim::Simulation s(p);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1), dc = s.open_device(2), dd = s.open_device(3);
    testing::SimSide a0 = testing::make_side(*da, fabric::Transport::RC, 256);
    testing::SimSide b0 = testing::make_side(*db, fabric::Transport::RC, 256);
    testing::SimSide a1 = testing::make_side(*dc, fabric::Transport::RC, 256);
    testing::SimSide b1 = testing::make_side(*dd, fabric::Transport::RC, 256);
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
    // Whichever arrives first is collected first: wait on both receive CQs at once (the
    // actor's devices share its runtime).
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

/// Posts `count` sends of `bytes` from host 0 to host 1 at one date; returns the dates
/// at which the receiver saw the first and the last.
std::pair<double, double> burst_dates(const sim::Platform& p, size_t count, size_t bytes) {
  std::pair<double, double> dates{-1, -1};
  sim::Simulation s(p);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1);
    testing::SimSide a = testing::make_side(*da, fabric::Transport::RC, bytes * count);
    testing::SimSide b = testing::make_side(*db, fabric::Transport::RC, bytes * count);
    testing::connect_sides(a, b);
    for (size_t i = 0; i < count; ++i) {
      fabric::Sge r = b.mr->sge(i * bytes, bytes);
      ASSERT_EQ(b.qp->post_recv({i, {&r, 1}}), fabric::Status::Ok);
    }
    const double start = db->runtime().now();
    for (size_t i = 0; i < count; ++i) {
      fabric::Sge sge = a.mr->sge(i * bytes, bytes);
      fabric::SendWr w;
      w.wr_id = i;
      w.sg_list = {&sge, 1};
      ASSERT_EQ(a.qp->post_send(w), fabric::Status::Ok);
    }
    fabric::CompletionQueue* cqs[] = {b.cq.get()};
    fabric::WorkCompletion wc[64];
    size_t seen = 0;
    while (seen < count) {
      const size_t n = b.cq->poll(wc);
      for (size_t i = 0; i < n; ++i) {
        if (wc[i].opcode != fabric::WcOpcode::Recv) continue;
        if (seen == 0) dates.first = db->runtime().now() - start;
        if (++seen == count) dates.second = db->runtime().now() - start;
      }
      if (seen < count) {
        ASSERT_NE(db->runtime().wait(cqs, 1.0), fabric::Status::Timeout);
      }
    }
  });
  return dates;
}

TEST(Wire, ABurstLeavesAsTheHcaGetsToItAndDrainsAtTheBottleneckRate) {
  testing::run_forked([] {
    // 32 sends of 2 KiB posted at once, more than connectx-ddr's transmit window (7):
    // the burst drains at the bottleneck's rate, one packet's serialisation apart
    // (longer than the HCA's wqe_processing here) after the first, and the first
    // shares the link only with the window, not with all 32 (before, every posted
    // message shared it and then waited for the HCA: the first arrived with the last,
    // ~50 us, and the last at ~66 us).
    sim::Platform p = sim::load_platform("connectx-ddr");
    const size_t count = 32, bytes = 2048;
    auto [first, last] = burst_dates(p, count, bytes);
    const double isolated = sim::predicted_one_way(p, bytes);
    const double serialisation =
        static_cast<double>(sim::predicted_wire_bytes(p, bytes)) / std::min(p.link_bandwidth, p.hca.pcie_bandwidth);
    ASSERT_GT(serialisation, p.hca.wqe_processing);
    const double drained = isolated + (count - 1) * serialisation;
    EXPECT_NEAR(last, drained, 0.05 * drained);
    EXPECT_LT(first, isolated + 8 * serialisation);
    EXPECT_GE(first, isolated);
  });
}

/// Hosts 1..`senders` each post `count` sends of `bytes` to host 0 at one date; returns
/// when host 0 had received them all, from the posts.
double incast_drained(const sim::Platform& p, size_t senders, size_t count, size_t bytes) {
  double drained = -1;
  sim::Simulation s(p);
  s.run_single([&] {
    auto target = s.open_device(0);
    std::vector<std::unique_ptr<fabric::Device>> devices;
    std::vector<testing::SimSide> from, to;
    for (size_t h = 1; h <= senders; ++h) {
      devices.push_back(s.open_device(static_cast<unsigned>(h)));
      from.push_back(testing::make_side(*devices.back(), fabric::Transport::RC, bytes * count));
      to.push_back(testing::make_side(*target, fabric::Transport::RC, bytes * count));
      testing::connect_sides(from.back(), to.back());
      for (size_t i = 0; i < count; ++i) {
        fabric::Sge r = to.back().mr->sge(i * bytes, bytes);
        ASSERT_EQ(to.back().qp->post_recv({i, {&r, 1}}), fabric::Status::Ok);
      }
    }
    const double start = target->runtime().now();
    for (size_t i = 0; i < count; ++i) {
      for (auto& side : from) {
        fabric::Sge sge = side.mr->sge(i * bytes, bytes);
        fabric::SendWr w;
        w.wr_id = i;
        w.sg_list = {&sge, 1};
        ASSERT_EQ(side.qp->post_send(w), fabric::Status::Ok);
      }
    }
    std::vector<fabric::CompletionQueue*> cqs;
    for (auto& side : to) cqs.push_back(side.cq.get());
    fabric::WorkCompletion wc[64];
    size_t seen = 0;
    while (seen < senders * count) {
      for (auto* cq : cqs) {
        const size_t n = cq->poll(wc);
        for (size_t i = 0; i < n; ++i)
          if (wc[i].opcode == fabric::WcOpcode::Recv) ++seen;
      }
      if (seen < senders * count) {
        ASSERT_NE(target->runtime().wait(cqs, 1.0), fabric::Status::Timeout);
      }
    }
    drained = target->runtime().now() - start;
  });
  return drained;
}

TEST(Wire, AnIncastOfSmallPacketsIsLimitedByTheReceiversLinkAsLargerOnesAre) {
    // 8 hosts send 32 packets each to one host. Without the HCA's message rate (no
    // wqe_processing), the receiver's link (the bottleneck of link and PCIe) is what
    // limits them, for packets below Wire::kTimerBytes (serialisers) as for larger ones
    // (SimGrid's solver): the last arrives after all 256 serialisations. Before the
    // serialisers, small packets crossed the receiver's port as if alone: 128-byte MPI
    // messages reached one rank at 3.7 GB/s over a 1.43 GB/s link.
    for (size_t bytes : {64, 200, 400, 1000}) {
      testing::run_forked([bytes] {
        sim::Platform p = sim::load_platform("connectx-ddr");
        p.hosts = 9;
        p.hca.wqe_processing = 0;
        p.hca.icm_cache_entries = 0;  // no first-message misses in the figure
        const double bw = std::min(p.link_bandwidth, p.hca.pcie_bandwidth);
        const double serialisation = static_cast<double>(sim::predicted_wire_bytes(p, bytes)) / bw;
        const double at_link_rate = 256 * serialisation;
        const double drained = incast_drained(p, 8, 32, bytes);
        EXPECT_GE(drained, at_link_rate) << bytes << " bytes";
        EXPECT_LT(drained, at_link_rate + sim::predicted_one_way(p, bytes) + 8 * serialisation) << bytes << " bytes";
      });
    }
}

TEST(Wire, AnIncastIsLimitedByTheReceivingHcasMessageRate) {
  testing::run_forked([] {
    // With connectx-ddr's wqe_processing (0.5 us: ~2 M messages/s), 256 small messages
    // into one HCA take at least 255 of them after the first arrives: its receive
    // pipeline, not the senders' (each sent only 32).
    sim::Platform p = sim::load_platform("connectx-ddr");
    p.hosts = 9;
    p.hca.icm_cache_entries = 0;  // no first-message misses in the figure
    const double drained = incast_drained(p, 8, 32, 64);
    EXPECT_GE(drained, sim::predicted_one_way(p, 64) + 255 * p.hca.wqe_processing);
    EXPECT_LT(drained, sim::predicted_one_way(p, 64) + 256 * p.hca.wqe_processing + 1e-6);
  });
}

/// Hosts 0 and 1 each write `bytes` to the other at one date; returns when both writes
/// had completed, from the posts.
double both_ways(const sim::Platform& p, size_t bytes) {
  double done = -1;
  sim::Simulation s(p);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1);
    testing::SimSide a = testing::make_side(*da, fabric::Transport::RC, bytes);
    testing::SimSide b = testing::make_side(*db, fabric::Transport::RC, bytes);
    testing::connect_sides(a, b);
    const double start = da->runtime().now();
    for (auto [from, to] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      fabric::Sge sge = from->mr->sge(0, bytes);
      fabric::SendWr w;
      w.opcode = fabric::Opcode::RdmaWrite;
      w.sg_list = {&sge, 1};
      w.remote_addr = to->mr->remote_addr();
      w.rkey = to->mr->rkey();
      ASSERT_EQ(from->qp->post_send(w), fabric::Status::Ok);
    }
    ASSERT_EQ(testing::collect(*da, *a.cq, 1, 1.0).size(), 1u);
    ASSERT_EQ(testing::collect(*db, *b.cq, 1, 1.0).size(), 1u);
    done = da->runtime().now() - start;
  });
  return done;
}

TEST(Wire, AFullDuplexBusCarriesBothDirectionsAtOnceAndAHalfDuplexOneSharesIt) {
  // connectx-ddr's PCIe (1.45 GB/s, below its 2 GB/s link) each way at once: a write in
  // each direction takes as long as one alone. infinihost-sdr's PCI-X (885 MB/s, below
  // its 1 GB/s link) is one bus for both: the two writes share it and take twice as
  // long. (Before, every preset shared the bus both ways: osu_bibw on connectx-ddr gave
  // exactly the one-way 1429 MB/s.)
  constexpr size_t kBytes = 1 << 20;
  for (const char* preset : {"connectx-ddr", "infinihost-sdr"}) {
    testing::run_forked([preset] {
      const sim::Platform p = sim::load_platform(preset);
      const double alone = sim::predicted_one_way(p, kBytes);
      const double serialisation =
          static_cast<double>(sim::predicted_wire_bytes(p, kBytes)) / std::min(p.link_bandwidth, p.hca.pcie_bandwidth);
      const double both = both_ways(p, kBytes);
      if (p.hca.pcie_full_duplex) {
        EXPECT_NEAR(both, alone, 0.02 * alone) << preset;  // + the ACK's way back
      } else {
        EXPECT_NEAR(both, alone + serialisation, 0.02 * alone) << preset;
      }
    });
  }
}

}  // namespace
}  // namespace twinfab
