// Conformance: shared receive queues: several QPs take their receives from one SRQ;
// the SRQ reports back-pressure and malformed receives.
#include <array>
#include <cstring>
#include <map>
#include <set>

#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

class Srq : public ConformanceTest {};

TEST_P(Srq, TwoQpsShareOneSrq) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (!caps.srq) GTEST_SKIP() << lacks("shared receive queues");
    constexpr int kPerQp = 4;
    constexpr int kReceives = 2 * kPerQp;
    constexpr uint32_t kSlot = 256;

    // Declared before the pairs: the QPs must die before the SRQ and the shared CQ.
    auto srq = b.create_srq(64, 1);
    auto shared_recv_cq = b.create_cq(256);
    QpConfig with_srq = qp_config(Transport::RC);
    with_srq.srq = srq.get();
    with_srq.recv_cq = shared_recv_cq.get();
    std::array<std::unique_ptr<ConnectedPair>, 2> pairs;
    for (auto& pair : pairs) {
      pair = make_connected_pair(a, b, qp_config(Transport::RC), with_srq);
      ASSERT_TRUE(pair);
    }

    RegisteredBuffer dst(b, kReceives * kSlot);
    dst.fill(0);
    for (int i = 0; i < kReceives; ++i) {
      const Sge r = dst.sge(i * kSlot, kSlot);
      ASSERT_EQ(srq->post_recv(RecvWr{100u + i, std::span(&r, 1)}), Status::Ok);
    }
    // Message j from pair p: 8 bytes "p j" then a pattern of seed 40 + p.
    RegisteredBuffer src(a, 2 * kPerQp * 64);
    for (int p = 0; p < 2; ++p) {
      for (int j = 0; j < kPerQp; ++j) {
        const size_t at = (p * kPerQp + j) * 64;
        fill_pattern(src.bytes().subspan(at, 64), 40 + p);
        src.data()[at] = static_cast<uint8_t>(p);
        src.data()[at + 1] = static_cast<uint8_t>(j);
      }
    }
    for (int j = 0; j < kPerQp; ++j) {
      for (int p = 0; p < 2; ++p) {
        const Sge s = src.sge((p * kPerQp + j) * 64, 64);
        ASSERT_TRUE(posted(*pairs[p]->a.qp, SendWr{.wr_id = static_cast<uint64_t>(j), .sg_list = std::span(&s, 1)}));
      }
    }

    auto wcs = poll_n(b, *shared_recv_cq, kReceives);
    ASSERT_EQ(wcs.size(), size_t{kReceives});
    std::map<uint32_t, int> per_qp;
    std::set<uint64_t> used;
    for (const WorkCompletion& wc : wcs) {
      SCOPED_TRACE(describe(wc));
      ASSERT_EQ(wc.status, WcStatus::Success);
      EXPECT_EQ(wc.opcode, WcOpcode::Recv);
      EXPECT_EQ(wc.byte_len, 64u);
      ASSERT_GE(wc.wr_id, 100u);
      ASSERT_LT(wc.wr_id, 100u + kReceives);
      EXPECT_TRUE(used.insert(wc.wr_id).second) << "an SRQ receive was consumed twice";
      const uint8_t* got = dst.data() + (wc.wr_id - 100) * kSlot;
      const int p = got[0];
      ASSERT_LT(p, 2);
      EXPECT_EQ(wc.qp_num, pairs[p]->b.qp_num()) << "the completion must name the QP the message came through";
      EXPECT_EQ(std::memcmp(got, src.data() + (p * kPerQp + got[1]) * 64, 64), 0);
      ++per_qp[wc.qp_num];
    }
    EXPECT_EQ(per_qp[pairs[0]->b.qp_num()], kPerQp);
    EXPECT_EQ(per_qp[pairs[1]->b.qp_num()], kPerQp);
    // Per QP, messages still arrive in order.
    for (int p = 0; p < 2; ++p) {
      int next = 0;
      for (const WorkCompletion& wc : wcs) {
        if (wc.qp_num != pairs[p]->b.qp_num()) continue;
        EXPECT_EQ(dst.data()[(wc.wr_id - 100) * kSlot + 1], next++) << "QP " << p << " out of order";
      }
    }
  });
}

TEST_P(Srq, FullSrqIsNoResourceAndTooManySgesIsInvalidArgument) {
  run_on_backend([&](Device& a, Device&) {
    const auto& caps = a.capabilities();
    if (!caps.srq) GTEST_SKIP() << lacks("shared receive queues");
    auto srq = a.create_srq(4, 1);
    ASSERT_GE(srq->capacity(), 4u);
    RegisteredBuffer buffer(a, 64);
    std::vector<Sge> many;
    for (uint32_t i = 0; i <= caps.max_sge; ++i) many.push_back(buffer.sge(i % 64, 1));
    EXPECT_EQ(srq->post_recv(RecvWr{1, many}), Status::InvalidArgument) << "more SGEs than the device's max_sge";
    EXPECT_NE(srq->last_error().find("SGE"), std::string::npos) << srq->last_error();

    const Sge sge = buffer.sge(0, 64);
    uint32_t accepted = 0;
    Status s = Status::Ok;
    while (accepted <= srq->capacity()) {
      s = srq->post_recv(RecvWr{100u + accepted, std::span(&sge, 1)});
      if (s != Status::Ok) break;
      ++accepted;
    }
    EXPECT_GE(accepted, 4u) << "the requested capacity must be usable";
    EXPECT_EQ(s, Status::NoResource) << "after " << accepted << " receives (capacity() " << srq->capacity() << ")";
    EXPECT_NE(srq->last_error().find("full"), std::string::npos) << srq->last_error();
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(Srq);

}  // namespace twinfab::testing
