// Conformance: unreliable datagram (UD) QPs: one QP reaches several peers through
// address handles, receives name their source QP and carry the 40-byte GRH area, and
// messages above the MTU are refused at post.
//
// UD is unreliable: these tests assume a lossless platform (a backend preset with
// loss must not run them, or must expect their failures).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

using fabric::kUdGrhBytes;

class Ud : public ConformanceTest {};

TEST_P(Ud, OneQpReachesSeveralPeersAndReceivesNameTheSource) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.ud) GTEST_SKIP() << lacks("UD");
    constexpr int kPeers = 3;
    constexpr uint32_t kPayload = 200;
    constexpr uint32_t kSlot = kUdGrhBytes + 256;

    Endpoint sender = make_ud_endpoint(a);
    ASSERT_TRUE(sender.qp);
    std::vector<Endpoint> peers;
    for (int i = 0; i < kPeers; ++i) {
      peers.push_back(make_ud_endpoint(b));
      ASSERT_TRUE(peers.back().qp);
    }
    RegisteredBuffer src(a, kPeers * kPayload);
    RegisteredBuffer dst(b, kPeers * kSlot);
    src.fill_pattern(31);
    dst.fill(0);
    for (int i = 0; i < kPeers; ++i) {
      const Sge r = dst.sge(i * kSlot, kSlot);
      ASSERT_TRUE(posted(peers[i], RecvWr{100u + i, std::span(&r, 1)}));
    }

    std::vector<std::unique_ptr<fabric::AddressHandle>> handles;
    for (int i = 0; i < kPeers; ++i) {
      handles.push_back(a.create_address_handle(peers[i].qp->local_address()));
      ASSERT_TRUE(handles.back());
      EXPECT_EQ(handles.back()->remote_qp_num(), peers[i].qp_num());
      const Sge s = src.sge(i * kPayload, kPayload);
      ASSERT_TRUE(posted(*sender.qp, SendWr{.wr_id = 10u + i, .sg_list = std::span(&s, 1), .ah = handles.back().get()}));
    }

    for (int i = 0; i < kPeers; ++i) {
      SCOPED_TRACE("peer " + std::to_string(i));
      auto wc = poll_n(b, *peers[i].recv_cq, 1);
      ASSERT_EQ(wc.size(), 1u) << "peer QP " << i << " received nothing";
      EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
      EXPECT_EQ(wc[0].opcode, WcOpcode::Recv);
      EXPECT_EQ(wc[0].wr_id, 100u + i);
      EXPECT_EQ(wc[0].qp_num, peers[i].qp_num());
      EXPECT_EQ(wc[0].src_qp, sender.qp_num()) << "a UD receive names the sending QP";
      EXPECT_EQ(wc[0].byte_len, kUdGrhBytes + kPayload) << "UD byte_len includes the 40-byte GRH area";
      EXPECT_EQ(std::memcmp(dst.data() + i * kSlot + kUdGrhBytes, src.data() + i * kPayload, kPayload), 0)
          << "the payload must follow the GRH area";
    }
    auto sent = poll_n(a, *sender.send_cq, kPeers);
    ASSERT_EQ(sent.size(), size_t{kPeers});
    for (int i = 0; i < kPeers; ++i) {
      EXPECT_EQ(sent[i].status, WcStatus::Success) << describe(sent[i]);
      EXPECT_EQ(sent[i].opcode, WcOpcode::Send);
      EXPECT_EQ(sent[i].wr_id, 10u + i);
    }
  });
}

TEST_P(Ud, SendWithImmediateOverUd) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.ud) GTEST_SKIP() << lacks("UD");
    if (!caps.send_with_imm) GTEST_SKIP() << lacks("send with immediate");
    Endpoint sender = make_ud_endpoint(a);
    Endpoint receiver = make_ud_endpoint(b);
    ASSERT_TRUE(sender.qp && receiver.qp);
    RegisteredBuffer src(a, 64), dst(b, kUdGrhBytes + 64);
    src.fill_pattern(32);
    const Sge r = dst.sge(0, kUdGrhBytes + 64), s = src.sge(0, 16);
    ASSERT_TRUE(posted(receiver, RecvWr{1, std::span(&r, 1)}));
    auto ah = a.create_address_handle(receiver.qp->local_address());
    ASSERT_TRUE(posted(*sender.qp, SendWr{.wr_id = 2, .opcode = Opcode::SendWithImm, .sg_list = std::span(&s, 1),
                                          .imm_data = 0xcafe, .ah = ah.get()}));
    auto wc = poll_n(b, *receiver.recv_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_TRUE(wc[0].has_imm);
    EXPECT_EQ(wc[0].imm_data, 0xcafeu);
    EXPECT_EQ(wc[0].byte_len, kUdGrhBytes + 16);
    EXPECT_EQ(std::memcmp(dst.data() + kUdGrhBytes, src.data(), 16), 0);
    EXPECT_EQ(wc[0].src_qp, sender.qp_num());
  });
}

TEST_P(Ud, MessageAboveTheMtuIsRefusedAtPostAndOneOfExactlyTheMtuIsDelivered) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.ud) GTEST_SKIP() << lacks("UD");
    const uint32_t mtu = caps.mtu;
    ASSERT_GT(mtu, 0u);
    Endpoint sender = make_ud_endpoint(a);
    Endpoint receiver = make_ud_endpoint(b);
    ASSERT_TRUE(sender.qp && receiver.qp);
    RegisteredBuffer src(a, mtu + 1), dst(b, kUdGrhBytes + mtu + 1);
    src.fill_pattern(33);
    dst.fill(0);
    auto ah = a.create_address_handle(receiver.qp->local_address());
    const Sge r = dst.sge(0, kUdGrhBytes + mtu + 1);
    ASSERT_TRUE(posted(receiver, RecvWr{1, std::span(&r, 1)}));

    const Sge too_big = src.sge(0, mtu + 1);
    Status s = sender.qp->post_send(SendWr{.wr_id = 2, .sg_list = std::span(&too_big, 1), .ah = ah.get()});
    EXPECT_EQ(s, Status::InvalidArgument) << "a UD message of MTU + 1 bytes must be refused at post";
    std::string why = sender.qp->last_error();
    std::transform(why.begin(), why.end(), why.begin(), [](unsigned char c) { return std::tolower(c); });
    EXPECT_NE(why.find("mtu"), std::string::npos) << "last_error() should name the MTU: " << sender.qp->last_error();

    const Sge exact = src.sge(0, mtu);
    ASSERT_TRUE(posted(*sender.qp, SendWr{.wr_id = 3, .sg_list = std::span(&exact, 1), .ah = ah.get()}));
    auto wc = poll_n(b, *receiver.recv_cq, 1);
    ASSERT_EQ(wc.size(), 1u) << "a message of exactly the MTU must be delivered";
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_EQ(wc[0].byte_len, kUdGrhBytes + mtu);
    EXPECT_EQ(std::memcmp(dst.data() + kUdGrhBytes, src.data(), mtu), 0);
    auto sent = poll_n(a, *sender.send_cq, 1);
    ASSERT_EQ(sent.size(), 1u) << "the refused WR must not complete, the valid one must";
    EXPECT_EQ(sent[0].wr_id, 3u);
    EXPECT_EQ(sent[0].status, WcStatus::Success) << describe(sent[0]);
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(Ud);

}  // namespace twinfab::testing
