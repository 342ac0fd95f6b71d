// Receiver-not-ready handling with the platform's [hca] rnr_retry and min_rnr_timer:
// a QP whose config leaves them unset runs with the platform's values (chelsio-t3-iwarp's
// rnr_retry = 0 makes a send that finds no receive fatal at once, as on iWARP).
#include <gtest/gtest.h>

#include <optional>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

using fabric::Transport;
using fabric::WcStatus;

struct RnrRun {
  WcStatus status = WcStatus::Success;
  double seconds = 0;  ///< simulated time from the post to the send's completion
  uint64_t rnr_naks = 0;
};

/// One RC send from host 0 to host 1, which posts no receive. `rnr_retry` and
/// `min_rnr_timer` are the QPs' config (unset: the platform's).
RnrRun send_without_receive(const sim::Platform& plat, std::optional<uint8_t> rnr_retry,
                            std::optional<uint8_t> min_rnr_timer) {
  RnrRun r;
  sim::Simulation s(plat);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1);
    fabric::QpConfig cfg;
    cfg.rnr_retry = rnr_retry;
    cfg.min_rnr_timer = min_rnr_timer;
    auto a = testing::make_side(*da, Transport::RC, 64, cfg);
    auto b = testing::make_side(*db, Transport::RC, 64, cfg);
    testing::connect_sides(a, b);
    fabric::Sge sge = a.mr->sge(0, 64);
    fabric::SendWr wr;
    wr.sg_list = {&sge, 1};
    const double start = da->runtime().now();
    ASSERT_EQ(a.qp->post_send(wr), fabric::Status::Ok) << a.qp->last_error();
    auto wc = testing::collect(*da, *a.cq, 1, 1.0);
    ASSERT_EQ(wc.size(), 1u) << "the send never completed";
    r.status = wc[0].status;
    r.seconds = da->runtime().now() - start;
  });
  r.rnr_naks = s.counters().rnr_naks;
  return r;
}

TEST(RnrDefaults, UnsetFieldsTakeThePlatformsRnrRetryAndTimer) {
  testing::run_forked([] {
    sim::Platform plat = sim::load_platform("ideal");
    plat.hca.rnr_retry = 0;
    RnrRun fatal = send_without_receive(plat, std::nullopt, std::nullopt);
    EXPECT_EQ(fatal.status, WcStatus::RnrRetryExceededError);
    EXPECT_EQ(fatal.rnr_naks, 1u);  // no retry

    plat.hca.rnr_retry = 2;
    plat.hca.min_rnr_timer = 12;  // 0.64 ms per retry
    RnrRun retried = send_without_receive(plat, std::nullopt, std::nullopt);
    EXPECT_EQ(retried.status, WcStatus::RnrRetryExceededError);
    EXPECT_EQ(retried.rnr_naks, 3u);  // the try and two retries
    EXPECT_GT(retried.seconds, 2 * 0.64e-3);
    EXPECT_LT(retried.seconds, 2 * 0.64e-3 + 0.1e-3);

    // The config's values win over the platform's.
    RnrRun configured = send_without_receive(plat, /*rnr_retry=*/1, /*min_rnr_timer=*/1);  // 0.01 ms
    EXPECT_EQ(configured.status, WcStatus::RnrRetryExceededError);
    EXPECT_EQ(configured.rnr_naks, 2u);
    EXPECT_LT(configured.seconds, 0.1e-3);
  });
}

TEST(RnrDefaults, TheChelsioPresetFailsASendWithoutAReceiveAtOnce) {
  testing::run_forked([] {
    RnrRun r = send_without_receive(sim::load_platform("chelsio-t3-iwarp"), std::nullopt, std::nullopt);
    EXPECT_EQ(r.status, WcStatus::RnrRetryExceededError);
    EXPECT_EQ(r.rnr_naks, 1u);
  });
}

}  // namespace
}  // namespace twinfab
