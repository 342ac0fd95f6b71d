// Loss as hardware handles it: RC retransmits after an ACK timeout and fails with
// RETRY_EXC_ERR after more than retry_count losses in a row; UD/UC lose messages
// silently. Seeded and
// reproducible.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

using fabric::Opcode;
using fabric::Transport;
using fabric::WcStatus;
using testing::collect;
using testing::make_side;

sim::Platform lossy(double p, uint64_t seed = 7) {
  sim::Platform plat = sim::load_platform("ideal");
  plat.loss.probability = p;
  plat.loss.seed = seed;
  return plat;
}

struct LossRun {
  size_t ok = 0;
  double sender_seconds = 0;  ///< simulated time from the first post to the sender's last completion
  size_t received = 0;
  bool data_intact = true;
  std::vector<uint8_t> arrivals;  ///< which message each receive got, in order
  sim::Counters counters;
};

/// Sends `n` messages of `bytes` from host 0 to host 1 over `t`. Unset reliability
/// fields take the platform's values.
LossRun send_many(const sim::Platform& plat, Transport t, unsigned n, uint32_t bytes,
                  std::optional<uint8_t> retry_count = 7, std::optional<uint8_t> ack_timeout = 4) {
  LossRun r;
  sim::Simulation s(plat);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1);
    fabric::QpConfig cfg;
    cfg.retry_count = retry_count;
    cfg.ack_timeout = ack_timeout;  // 4: 65 us, keeps the run short
    auto a = make_side(*da, t, size_t(bytes) * n, cfg);
    auto b = make_side(*db, t, size_t(bytes) * n + fabric::kUdGrhBytes * n, cfg);
    testing::connect_sides(a, b);
    std::unique_ptr<fabric::AddressHandle> ah;
    if (t == Transport::UD) ah = da->create_address_handle(b.qp->local_address());
    const uint32_t recv_len = bytes + (t == Transport::UD ? fabric::kUdGrhBytes : 0);
    for (unsigned i = 0; i < n; ++i) {
      fabric::Sge sge = b.mr->sge(size_t(i) * recv_len, recv_len);
      ASSERT_EQ(b.qp->post_recv({i, {&sge, 1}}), fabric::Status::Ok);
    }
    const double start = da->runtime().now();
    for (unsigned i = 0; i < n; ++i) {
      std::memset(a.buffer.data() + size_t(i) * bytes, int(i % 251) + 1, bytes);
      fabric::Sge sge = a.mr->sge(size_t(i) * bytes, bytes);
      fabric::SendWr wr;
      wr.wr_id = i;
      wr.opcode = Opcode::Send;
      wr.sg_list = {&sge, 1};
      wr.ah = ah.get();
      ASSERT_EQ(a.qp->post_send(wr), fabric::Status::Ok) << a.qp->last_error();
    }
    for (const auto& wc : collect(*da, *a.cq, n, 10.0))
      if (wc.status == WcStatus::Success) ++r.ok;
    r.sender_seconds = da->runtime().now() - start;
    for (const auto& wc : collect(*db, *b.cq, n, 0.01)) {
      if (wc.status != WcStatus::Success) continue;
      ++r.received;
      // Receives are consumed in arrival order, so with losses receive i holds some
      // message j: intact means one message's bytes, whole and unmixed.
      const std::byte* p = b.buffer.data() + wc.wr_id * recv_len + (t == Transport::UD ? fabric::kUdGrhBytes : 0);
      if (p[0] == std::byte{0}) r.data_intact = false;
      r.arrivals.push_back(static_cast<uint8_t>(p[0]));
      for (uint32_t k = 0; k < bytes; ++k)
        if (p[k] != p[0]) r.data_intact = false;
    }
  });
  r.counters = s.counters();
  return r;
}

TEST(Loss, RcRetransmitsAndDeliversEverythingIntact) {
  testing::run_forked([] {
    LossRun r = send_many(lossy(0.02), Transport::RC, 200, 16384);  // 4 packets each
    EXPECT_EQ(r.ok, 200u);
    EXPECT_EQ(r.received, 200u);
    EXPECT_TRUE(r.data_intact);
    EXPECT_GT(r.counters.packets_dropped, 0u);
    EXPECT_GT(r.counters.retransmissions, 0u);
    EXPECT_EQ(r.counters.messages_dropped, 0u);
  });
}

TEST(Loss, RcGivesUpAfterRetryCount) {
  testing::run_forked([] {
    LossRun r = send_many(lossy(1.0), Transport::RC, 3, 64, /*retry_count=*/2);
    EXPECT_EQ(r.ok, 0u);
    EXPECT_EQ(r.received, 0u);
    // All three were on the wire before the first gave up: each lost 1 try + 2 retries.
    EXPECT_EQ(r.counters.packets_dropped, 9u);
  });
}

// The retry counter counts losses without progress between them, as hardware reloads
// it when an ACK acknowledges new packets: a 256-packet message at 2 % loss loses ~5
// packets, far more than retry_count = 2, and still arrives.
TEST(Loss, RcRetryCountLimitsLossesInARowNotLossesPerMessage) {
  testing::run_forked([] {
    constexpr unsigned kMessages = 20;
    LossRun r = send_many(lossy(0.02), Transport::RC, kMessages, 1u << 20, /*retry_count=*/2);
    EXPECT_EQ(r.ok, kMessages);
    EXPECT_EQ(r.received, kMessages);
    EXPECT_TRUE(r.data_intact);
    EXPECT_GT(r.counters.packets_dropped, 3u * kMessages);
  });
}

// A QP whose config leaves the reliability fields unset runs with the platform's [hca]
// values; fields the config sets win.
TEST(Loss, RcQpsTakeThePlatformsRetryCountAndAckTimeoutUnlessTheirConfigSetsThem) {
  testing::run_forked([] {
    sim::Platform plat = lossy(1.0);
    plat.hca.retry_count = 1;
    plat.hca.ack_timeout = 4;  // 65.5 us
    LossRun from_platform = send_many(plat, Transport::RC, 1, 64, std::nullopt, std::nullopt);
    EXPECT_EQ(from_platform.ok, 0u);
    EXPECT_EQ(from_platform.counters.packets_dropped, 2u);  // a try and one retry
    EXPECT_NEAR(from_platform.sender_seconds, 2 * 65.536e-6, 10e-6);

    plat.hca.ack_timeout = 6;  // 262 us
    LossRun longer = send_many(plat, Transport::RC, 1, 64, std::nullopt, std::nullopt);
    EXPECT_NEAR(longer.sender_seconds, 2 * 262.144e-6, 10e-6);

    LossRun from_config = send_many(plat, Transport::RC, 1, 64, /*retry_count=*/3, /*ack_timeout=*/4);
    EXPECT_EQ(from_config.counters.packets_dropped, 4u);
    EXPECT_NEAR(from_config.sender_seconds, 4 * 65.536e-6, 10e-6);
  });
}

TEST(Loss, UdLosesMessagesSilently) {
  testing::run_forked([] {
    LossRun r = send_many(lossy(0.3), Transport::UD, 300, 256);
    EXPECT_EQ(r.ok, 300u);  // the sender never learns
    EXPECT_GT(r.received, 150u);
    EXPECT_LT(r.received, 260u);
    EXPECT_EQ(r.counters.messages_dropped, 300u - r.received);
    EXPECT_TRUE(r.data_intact);
  });
}

TEST(Loss, UcLosesMessagesSilently) {
  testing::run_forked([] {
    LossRun r = send_many(lossy(0.05), Transport::UC, 200, 16384);
    EXPECT_EQ(r.ok, 200u);
    EXPECT_LT(r.received, 200u);
    EXPECT_EQ(r.counters.messages_dropped, 200u - r.received);
  });
}

TEST(Loss, SameSeedSameDropsOtherSeedOtherDrops) {
  testing::run_forked([] {
    LossRun a = send_many(lossy(0.3, 11), Transport::UD, 300, 256);
    LossRun b = send_many(lossy(0.3, 11), Transport::UD, 300, 256);
    LossRun c = send_many(lossy(0.3, 12), Transport::UD, 300, 256);
    EXPECT_EQ(a.received, b.received);
    EXPECT_EQ(a.counters.to_text(), b.counters.to_text());
    EXPECT_EQ(a.arrivals, b.arrivals);
    EXPECT_NE(a.arrivals, c.arrivals);  // which messages are lost depends on the seed
  });
}

}  // namespace
}  // namespace twinfab
