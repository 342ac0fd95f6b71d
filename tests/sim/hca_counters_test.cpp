// Per-HCA counters (counters.hpp): each host's HCA counts its own share, the total is
// their sum, and the right HCA counts each event -- the sender its packets and
// retransmissions, the receiver the bytes delivered and the packets lost on the way.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "backends/sim/simulation.hpp"
#include "fabric/error.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

using fabric::Opcode;
using fabric::Transport;
using testing::make_side;

constexpr unsigned kMessages = 50;
constexpr uint32_t kBytes = 16384;  // 4 packets at the ideal platform's MTU (4096)

sim::Platform lossy_pair() {
  sim::Platform p = sim::load_platform("ideal");
  p.loss.probability = 0.02;
  p.loss.seed = 7;
  return p;
}

/// Host 0 sends kMessages RC messages to host 1, then RDMA-reads one message back.
void send_then_read(sim::Simulation& s) {
  s.run_single([&] {
    auto d0 = s.open_device(0), d1 = s.open_device(1);
    fabric::QpConfig cfg;
    cfg.ack_timeout = 4;  // 65 us: keeps the lossy run short
    auto a = make_side(*d0, Transport::RC, size_t(kBytes) * kMessages, cfg);
    auto b = make_side(*d1, Transport::RC, size_t(kBytes) * kMessages, cfg);
    testing::connect_sides(a, b);
    for (unsigned i = 0; i < kMessages; ++i) {
      fabric::Sge sge = b.mr->sge(size_t(i) * kBytes, kBytes);
      ASSERT_EQ(b.qp->post_recv({i, {&sge, 1}}), fabric::Status::Ok);
    }
    for (unsigned i = 0; i < kMessages; ++i) {
      fabric::Sge sge = a.mr->sge(size_t(i) * kBytes, kBytes);
      fabric::SendWr wr;
      wr.wr_id = i;
      wr.opcode = Opcode::Send;
      wr.sg_list = {&sge, 1};
      ASSERT_EQ(a.qp->post_send(wr), fabric::Status::Ok) << a.qp->last_error();
    }
    ASSERT_EQ(testing::collect(*d0, *a.cq, kMessages, 10.0).size(), kMessages);
    fabric::Sge sge = a.mr->sge(0, kBytes);
    fabric::SendWr read;
    read.wr_id = 99;
    read.opcode = Opcode::RdmaRead;
    read.sg_list = {&sge, 1};
    read.remote_addr = b.mr->remote_addr(0);
    read.rkey = b.mr->rkey();
    ASSERT_EQ(a.qp->post_send(read), fabric::Status::Ok) << a.qp->last_error();
    ASSERT_EQ(testing::collect(*d0, *a.cq, 1, 10.0).size(), 1u);
  });
}

TEST(HcaCounters, SumToTheTotalAndTheSenderCountsPackets) {
  testing::run_forked([] {
    sim::Simulation s(lossy_pair());
    ASSERT_EQ(s.host_count(), 2u);
    send_then_read(s);
    const sim::Counters total = s.counters();
    const sim::Counters h0 = s.hca_counters(0), h1 = s.hca_counters(1);
    sim::Counters sum = h0;
    sum += h1;
    EXPECT_EQ(sum.to_text(), total.to_text());

    // The sends: host 0 put them on the wire and resent what was lost; host 1 lost
    // those packets (they were addressed to it) and received the payload.
    EXPECT_GT(total.packets_dropped, 0u) << "the seed must make the loss matter";
    EXPECT_EQ(h0.retransmissions, total.retransmissions);
    EXPECT_GT(h0.retransmissions, 0u);
    EXPECT_EQ(h1.packets_dropped, total.packets_dropped);
    EXPECT_EQ(h1.bytes, uint64_t{kBytes} * kMessages);
    // The read: host 0 sent its request (a message, one packet), host 1 the response
    // (its packets), and the response's data landed on host 0.
    EXPECT_EQ(h0.messages, kMessages + 1);
    EXPECT_EQ(h1.messages, 1u);
    EXPECT_EQ(h1.packets, 4u);  // responses are not subject to loss
    EXPECT_EQ(h0.bytes, uint64_t{kBytes});
    EXPECT_GT(h0.packets, h1.packets);
    // Each side touched its own QP context, and registered its own buffer.
    EXPECT_GT(h0.icm_hits + h0.icm_misses, 0u);
    EXPECT_GT(h1.icm_hits + h1.icm_misses, 0u);
    EXPECT_EQ(h0.registrations, 1u);
    EXPECT_EQ(h1.registrations, 1u);
  });
}

TEST(HcaCounters, ResetClearsEveryHcaAndKeepsLiveMemory) {
  testing::run_forked([] {
    sim::Simulation s(lossy_pair());
    send_then_read(s);
    const uint64_t pinned = s.hca_counters(1).registered_bytes;
    s.reset_counters();
    for (unsigned h = 0; h < s.host_count(); ++h) {
      const sim::Counters c = s.hca_counters(h);
      EXPECT_EQ(c.packets, 0u);
      EXPECT_EQ(c.bytes, 0u);
      EXPECT_EQ(c.packets_dropped, 0u);
      EXPECT_EQ(c.icm_hits + c.icm_misses, 0u);
    }
    EXPECT_EQ(s.hca_counters(1).registered_bytes, pinned);
    EXPECT_EQ(s.counters().packets, 0u);
  });
}

TEST(HcaCounters, AHostBeyondThePlatformIsAClearError) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    try {
      (void)s.hca_counters(2);
      FAIL() << "expected an error";
    } catch (const fabric::Error& e) {
      EXPECT_EQ(e.status(), fabric::Status::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("host 2 does not exist"), std::string::npos) << e.what();
    }
  });
}

}  // namespace
}  // namespace twinfab
