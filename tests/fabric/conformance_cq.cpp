// Conformance: completion queues and SRQs at their limits.
// - A CQ that overflows says so (CompletionQueue::overrun()), and only that one.
// - A CQ or SRQ destroyed while a QP still uses it (the contract destroys QPs first;
//   verbs refuses with EBUSY and keeps the object) neither crashes nor corrupts: the
//   QP's peer still gets its data, the simulator used to touch freed memory.
#include <cstring>

#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

class CompletionQueues : public ConformanceTest {};

TEST_P(CompletionQueues, AnOverrunIsReportedByTheCqThatOverran) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    auto small = a.create_cq(1);
    const uint32_t room = small->capacity();  // what the device really allocated
    const uint32_t posts = room + 4;
    if (posts > caps.max_qp_wr) GTEST_SKIP() << "the device's smallest CQ (" << room << " entries) exceeds a send queue";
    QpConfig config = qp_config(Transport::RC);
    config.send_cq = small.get();
    config.max_send_wr = posts;
    auto pair = make_connected_pair(a, b, config, qp_config(Transport::RC));
    ASSERT_TRUE(pair);
    EXPECT_TRUE(poll_now(*small).empty());  // a handshake message's completion, if any, was consumed
    EXPECT_FALSE(small->overrun());

    RegisteredBuffer src(a, 8 * posts);
    RegisteredBuffer dst(b, 8 * posts);
    src.fill_pattern(31);
    dst.fill(0);
    for (uint32_t i = 0; i < posts; ++i) {
      const Sge s = src.sge(8 * i, 8);
      ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = i,
                                             .opcode = Opcode::RdmaWrite,
                                             .flags = SendFlags::Signaled,
                                             .sg_list = std::span(&s, 1),
                                             .remote_addr = dst.remote_addr(8 * i),
                                             .rkey = dst.rkey()}));
    }
    // Every write lands (the overrun is the initiator's CQ, not the transfer) ...
    EXPECT_TRUE(wait_for_memory(b, [&] { return std::memcmp(dst.data(), src.data(), 8 * posts) == 0; }));
    // ... and the CQ, never polled, says it lost completions.
    EXPECT_TRUE(wait_for_memory(a, [&] { return small->overrun(); }))
        << posts << " signaled writes into a CQ of " << room << " entries";
    const auto kept = poll_now(*small);
    EXPECT_LE(kept.size(), room);
    for (const auto& wc : kept) EXPECT_EQ(wc.status, WcStatus::Success) << describe(wc);
    EXPECT_TRUE(small->overrun()) << "an overrun is not forgotten by polling";
    EXPECT_FALSE(pair->b.recv_cq->overrun());
    EXPECT_FALSE(pair->a.recv_cq->overrun());
  });
}

TEST_P(CompletionQueues, DestroyingASendCqItsQpStillUsesLosesOnlyItsCompletions) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    // Out of order on purpose: the backend warns (verbs: EBUSY, the CQ is kept).
    pair->a.own_send_cq.reset();
    pair->a.send_cq = nullptr;

    RegisteredBuffer src(a, 64);
    RegisteredBuffer dst(b, 64);
    src.fill_pattern(32);
    dst.fill(0);
    const Sge r = dst.sge(0, 64);
    const Sge s = src.sge(0, 64);
    ASSERT_TRUE(posted(pair->b, RecvWr{7, std::span(&r, 1)}));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 8, .flags = SendFlags::Signaled, .sg_list = std::span(&s, 1)}));
    auto wc = poll_n(b, *pair->b.recv_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].wr_id, 7u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), 64), 0);
    // Time for the sender's completion to arrive (and be dropped) before the QP goes.
    a.runtime().sleep_for(kQuietWindow);
    EXPECT_EQ(pair->a.qp->state(), QpState::ReadyToSend);
    pair.reset();
  });
}

TEST_P(CompletionQueues, DestroyingAnSrqItsQpStillUsesLeavesItWithoutReceives) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = b.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (!caps.srq) GTEST_SKIP() << lacks("shared receive queues");
    if (!has_rnr_flow_control(a)) GTEST_SKIP() << lacks("receiver-not-ready flow control (iWARP)");
    auto srq = b.create_srq(16, 1);
    QpConfig sender = qp_config(Transport::RC);
    sender.rnr_retry = 1;
    sender.min_rnr_timer = 1;
    QpConfig receiver = qp_config(Transport::RC);
    receiver.srq = srq.get();
    receiver.min_rnr_timer = 1;
    auto pair = make_connected_pair(a, b, sender, receiver);
    ASSERT_TRUE(pair);
    srq.reset();  // out of order on purpose, with no receive posted in it
    pair->b.srq = nullptr;

    RegisteredBuffer src(a, 64);
    const Sge s = src.sge(0, 64);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 9, .flags = SendFlags::Signaled, .sg_list = std::span(&s, 1)}));
    auto wc = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::RnrRetryExceededError) << describe(wc[0]);
    EXPECT_TRUE(poll_now(*pair->b.recv_cq).empty());
    pair.reset();
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(CompletionQueues);

}  // namespace twinfab::testing
