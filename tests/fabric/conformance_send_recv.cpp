// Conformance: two-sided send/receive on connected QPs (RC, and UC where it applies):
// ordering, lengths, zero-length, inline, scatter/gather, immediate data, unsignaled
// sends, and receiver-not-ready (RNR) with infinite retry.
#include <algorithm>
#include <array>
#include <cstring>

#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

class SendRecv : public ConformanceTest {};

/// 64 messages of varied sizes, each into its own receive: every receive completion in
/// posting order, with the right wr_id, opcode, byte_len and bytes.
void check_ordered_messages(Device& a, Device& b, Transport transport) {
  SCOPED_TRACE(std::string("transport ") + std::string(fabric::to_string(transport)));
  constexpr int kMessages = 64;
  constexpr uint32_t kSlot = 512;
  auto size_of = [](int i) -> uint32_t { return 1 + static_cast<uint32_t>(i * 97) % 500; };

  auto pair = make_connected_pair(a, b, transport);
  ASSERT_TRUE(pair);
  RegisteredBuffer src(a, kMessages * kSlot);
  RegisteredBuffer dst(b, kMessages * kSlot);
  src.fill_pattern(1);
  dst.fill(0);

  for (int i = 0; i < kMessages; ++i) {
    const Sge sge = dst.sge(i * kSlot, kSlot);
    ASSERT_TRUE(posted(pair->b, RecvWr{1000u + i, std::span(&sge, 1)}));
  }
  for (int i = 0; i < kMessages; ++i) {
    const Sge sge = src.sge(i * kSlot, size_of(i));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = static_cast<uint64_t>(i), .sg_list = std::span(&sge, 1)}));
  }

  auto recvs = poll_n(b, *pair->b.recv_cq, kMessages);
  ASSERT_EQ(recvs.size(), size_t{kMessages}) << "receive completions missing";
  for (int i = 0; i < kMessages; ++i) {
    const WorkCompletion& wc = recvs[i];
    SCOPED_TRACE("message " + std::to_string(i) + " " + describe(wc));
    EXPECT_EQ(wc.status, WcStatus::Success);
    EXPECT_EQ(wc.opcode, WcOpcode::Recv);
    EXPECT_EQ(wc.wr_id, 1000u + i) << "receives must complete in the order they were posted";
    EXPECT_EQ(wc.byte_len, size_of(i));
    EXPECT_EQ(wc.qp_num, pair->b.qp_num());
    EXPECT_FALSE(wc.has_imm);
    EXPECT_EQ(std::memcmp(dst.data() + i * kSlot, src.data() + i * kSlot, size_of(i)), 0)
        << "message " << i << " did not land intact in receive " << i << " (order or data broken)";
    EXPECT_EQ(dst.data()[i * kSlot + size_of(i)], 0) << "bytes written past the message length";
  }

  auto sends = poll_n(a, *pair->a.send_cq, kMessages);
  ASSERT_EQ(sends.size(), size_t{kMessages}) << "send completions missing";
  for (int i = 0; i < kMessages; ++i) {
    SCOPED_TRACE(describe(sends[i]));
    EXPECT_EQ(sends[i].status, WcStatus::Success);
    EXPECT_EQ(sends[i].opcode, WcOpcode::Send);
    EXPECT_EQ(sends[i].wr_id, static_cast<uint64_t>(i)) << "send completions must come in posting order";
    EXPECT_EQ(sends[i].qp_num, pair->a.qp_num());
  }
}

TEST_P(SendRecv, MessagesArriveInOrderWithTheirLength) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    check_ordered_messages(a, b, Transport::RC);
    if (caps.uc) check_ordered_messages(a, b, Transport::UC);
  });
}

TEST_P(SendRecv, ZeroLengthSendCompletesAReceiveWithByteLenZero) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer dst(b, 64);
    dst.fill(0xab);
    const Sge sge = dst.sge(0, 64);
    ASSERT_TRUE(posted(pair->b, RecvWr{5, std::span(&sge, 1)}));
    ASSERT_TRUE(posted(pair->b, RecvWr{7, {}}));  // a receive without SGEs takes zero-length messages
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 6}));  // no SGE at all
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 8}));

    auto recv = poll_n(b, *pair->b.recv_cq, 2);
    ASSERT_EQ(recv.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(recv[i].status, WcStatus::Success) << describe(recv[i]);
      EXPECT_EQ(recv[i].opcode, WcOpcode::Recv);
      EXPECT_EQ(recv[i].wr_id, i == 0 ? 5u : 7u);
      EXPECT_EQ(recv[i].byte_len, 0u);
    }
    for (uint8_t byte : dst.bytes()) ASSERT_EQ(byte, 0xab) << "a zero-length message wrote into the buffer";
    auto send = poll_n(a, *pair->a.send_cq, 2);
    ASSERT_EQ(send.size(), 2u);
    EXPECT_EQ(send[0].status, WcStatus::Success) << describe(send[0]);
    EXPECT_EQ(send[0].wr_id, 6u);
    EXPECT_EQ(send[1].status, WcStatus::Success) << describe(send[1]);
    EXPECT_EQ(send[1].wr_id, 8u);
  });
}

TEST_P(SendRecv, InlineSendCopiesThePayloadAtPostTime) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    constexpr uint32_t kLen = 32;
    if (caps.max_inline < kLen) GTEST_SKIP() << lacks("inline sends of " + std::to_string(kLen) + " bytes");
    QpConfig config = qp_config(Transport::RC);
    config.max_inline = std::min<uint32_t>(64, caps.max_inline);
    auto pair = make_connected_pair(a, b, config, qp_config(Transport::RC));
    ASSERT_TRUE(pair);
    RegisteredBuffer dst(b, 64);
    dst.fill(0);
    const Sge recv_sge = dst.sge(0, 64);
    ASSERT_TRUE(posted(pair->b, RecvWr{1, std::span(&recv_sge, 1)}));

    // Unregistered memory: an inline payload needs no lkey.
    std::array<uint8_t, kLen> payload;
    fill_pattern(payload, 3);
    std::array<uint8_t, kLen> expected = payload;
    const Sge send_sge{reinterpret_cast<uint64_t>(payload.data()), kLen, 0};
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 2, .flags = SendFlags::Signaled | SendFlags::Inline,
                                           .sg_list = std::span(&send_sge, 1)}));
    payload.fill(0xff);  // the device must have copied it already

    auto recv = poll_n(b, *pair->b.recv_cq, 1);
    ASSERT_EQ(recv.size(), 1u);
    EXPECT_EQ(recv[0].status, WcStatus::Success) << describe(recv[0]);
    EXPECT_EQ(recv[0].byte_len, kLen);
    EXPECT_EQ(std::memcmp(dst.data(), expected.data(), kLen), 0)
        << "the receiver got the buffer's later contents: inline data was not copied at post time";
    auto send = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(send.size(), 1u);
    EXPECT_EQ(send[0].status, WcStatus::Success) << describe(send[0]);
  });
}

TEST_P(SendRecv, MultiSgeSendGathersAndMultiSgeReceiveScatters) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (caps.max_sge < 3) GTEST_SKIP() << lacks("3 SGEs per work request");
    QpConfig config = qp_config(Transport::RC);
    config.max_send_sge = 3;
    config.max_recv_sge = 3;
    auto pair = make_connected_pair(a, b, config, config);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, 1024);
    RegisteredBuffer dst(b, 1024);
    src.fill_pattern(4);
    dst.fill(0);

    const std::array<Sge, 3> recv_sges{dst.sge(0, 50), dst.sge(100, 200), dst.sge(400, 300)};
    ASSERT_TRUE(posted(pair->b, RecvWr{1, recv_sges}));
    const std::array<Sge, 3> send_sges{src.sge(10, 100), src.sge(300, 1), src.sge(500, 300)};
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 2, .sg_list = send_sges}));

    std::vector<uint8_t> gathered;
    for (const Sge& sge : send_sges) {
      const uint8_t* p = reinterpret_cast<const uint8_t*>(sge.addr);
      gathered.insert(gathered.end(), p, p + sge.length);
    }
    ASSERT_EQ(gathered.size(), 401u);

    auto recv = poll_n(b, *pair->b.recv_cq, 1);
    ASSERT_EQ(recv.size(), 1u);
    EXPECT_EQ(recv[0].status, WcStatus::Success) << describe(recv[0]);
    EXPECT_EQ(recv[0].byte_len, 401u);
    EXPECT_EQ(std::memcmp(dst.data() + 0, gathered.data() + 0, 50), 0) << "first receive SGE";
    EXPECT_EQ(std::memcmp(dst.data() + 100, gathered.data() + 50, 200), 0) << "second receive SGE";
    EXPECT_EQ(std::memcmp(dst.data() + 400, gathered.data() + 250, 151), 0) << "third receive SGE";
    for (size_t i : {50, 99, 300, 399, 551, 699}) EXPECT_EQ(dst.data()[i], 0) << "byte " << i << " outside the data";
    auto send = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(send.size(), 1u);
    EXPECT_EQ(send[0].status, WcStatus::Success) << describe(send[0]);
  });
}

TEST_P(SendRecv, SendWithImmediateDeliversTheImmediate) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (!caps.send_with_imm) GTEST_SKIP() << lacks("send with immediate");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, 64);
    RegisteredBuffer dst(b, 128);
    src.fill_pattern(5);
    dst.fill(0);
    const std::array<Sge, 2> recv_sges{dst.sge(0, 64), dst.sge(64, 64)};
    ASSERT_TRUE(posted(pair->b, RecvWr{1, std::span(recv_sges).first(1)}));
    ASSERT_TRUE(posted(pair->b, RecvWr{2, std::span(recv_sges).last(1)}));
    const Sge sge = src.sge(0, 16);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 3, .opcode = Opcode::SendWithImm, .sg_list = std::span(&sge, 1),
                                           .imm_data = 0xdeadbeef}));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 4, .sg_list = std::span(&sge, 1)}));

    auto recv = poll_n(b, *pair->b.recv_cq, 2);
    ASSERT_EQ(recv.size(), 2u);
    EXPECT_EQ(recv[0].status, WcStatus::Success) << describe(recv[0]);
    EXPECT_EQ(recv[0].opcode, WcOpcode::Recv);
    EXPECT_TRUE(recv[0].has_imm);
    EXPECT_EQ(recv[0].imm_data, 0xdeadbeefu);
    EXPECT_EQ(recv[0].byte_len, 16u);
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), 16), 0);
    EXPECT_EQ(recv[1].status, WcStatus::Success) << describe(recv[1]);
    EXPECT_FALSE(recv[1].has_imm) << "a plain send must not report an immediate";
    auto send = poll_n(a, *pair->a.send_cq, 2);
    ASSERT_EQ(send.size(), 2u);
    EXPECT_EQ(send[0].status, WcStatus::Success) << describe(send[0]);
    EXPECT_EQ(send[0].opcode, WcOpcode::Send);
  });
}

TEST_P(SendRecv, UnsignaledSendHasNoCompletionButALaterSignaledOneHas) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, 64);
    RegisteredBuffer dst(b, 128);
    src.fill_pattern(6);
    const Sge r0 = dst.sge(0, 64), r1 = dst.sge(64, 64), s = src.sge(0, 32);
    ASSERT_TRUE(posted(pair->b, RecvWr{1, std::span(&r0, 1)}));
    ASSERT_TRUE(posted(pair->b, RecvWr{2, std::span(&r1, 1)}));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 10, .flags = SendFlags::None, .sg_list = std::span(&s, 1)}));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 11, .flags = SendFlags::Signaled, .sg_list = std::span(&s, 1)}));

    auto recv = poll_n(b, *pair->b.recv_cq, 2);
    ASSERT_EQ(recv.size(), 2u) << "both messages, signaled or not, must be delivered";
    auto send = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(send.size(), 1u) << "the signaled send must complete";
    EXPECT_EQ(send[0].wr_id, 11u) << "the unsignaled send produced a completion: " << describe(send[0]);
    EXPECT_EQ(send[0].status, WcStatus::Success);
    auto extra = poll_for(a, *pair->a.send_cq);
    EXPECT_TRUE(extra.empty()) << "unexpected completion " << describe(extra.front());
  });
}

TEST_P(SendRecv, RnrWithInfiniteRetryWaitsForALateReceive) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    if (!has_rnr_flow_control(a)) GTEST_SKIP() << lacks("receiver-not-ready flow control (iWARP)");
    QpConfig config = qp_config(Transport::RC);
    config.rnr_retry = 7;       // infinite
    config.min_rnr_timer = 12;  // 0.64 ms
    auto pair = make_connected_pair(a, b, config, config);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, 256);
    RegisteredBuffer dst(b, 256);
    src.fill_pattern(7);
    dst.fill(0);
    const Sge s = src.sge(0, 200);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 1, .sg_list = std::span(&s, 1)}));

    // No receive posted: the sender keeps retrying, nothing completes.
    auto early = poll_for(a, *pair->a.send_cq);
    EXPECT_TRUE(early.empty()) << "send completed without a receive at the peer: " << describe(early.front());
    EXPECT_EQ(pair->a.qp->state(), QpState::ReadyToSend);

    const Sge r = dst.sge(0, 256);
    ASSERT_TRUE(posted(pair->b, RecvWr{2, std::span(&r, 1)}));
    auto recv = poll_n(b, *pair->b.recv_cq, 1);
    ASSERT_EQ(recv.size(), 1u) << "the late receive was never matched";
    EXPECT_EQ(recv[0].status, WcStatus::Success) << describe(recv[0]);
    EXPECT_EQ(recv[0].byte_len, 200u);
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), 200), 0);
    auto send = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(send.size(), 1u);
    EXPECT_EQ(send[0].status, WcStatus::Success) << describe(send[0]);
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(SendRecv);

}  // namespace twinfab::testing
