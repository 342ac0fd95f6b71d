// An RDMA read's or atomic's response writes into the requester's memory only while
// its work request is outstanding and its local MR still covers it: after a flush
// (the QP to ERR), a reset, or the local MR's deregistration, the application may
// have reused the buffer. (The simulator wrote the data regardless and reported
// Success; an audit found the freed buffer overwritten.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

using fabric::Opcode;
using fabric::Transport;
using fabric::WcStatus;

enum class Then { Deregister, ToError, ToReset };

/// Host 0 posts `op` on host 1's memory (all 0x5a), its result into its own (all
/// 0x11), then does `then` before the response can arrive, and checks that none of its
/// bytes changed and the completion it gets.
void run(Opcode op, Then then) {
  sim::Simulation s(sim::load_platform("connectx-ddr"));
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1);
    auto a = testing::make_side(*da, Transport::RC, 4096);
    auto b = testing::make_side(*db, Transport::RC, 4096);
    testing::connect_sides(a, b);
    std::fill(a.buffer.begin(), a.buffer.end(), std::byte{0x11});
    std::fill(b.buffer.begin(), b.buffer.end(), std::byte{0x5a});
    const uint32_t len = op == Opcode::RdmaRead ? 4096 : 8;
    fabric::Sge sge = a.mr->sge(0, len);
    fabric::SendWr wr;
    wr.wr_id = 1;
    wr.opcode = op;
    wr.sg_list = {&sge, 1};
    wr.remote_addr = b.mr->remote_addr();
    wr.rkey = b.mr->rkey();
    wr.compare_add = 1;
    ASSERT_EQ(a.qp->post_send(wr), fabric::Status::Ok) << a.qp->last_error();
    switch (then) {
      case Then::Deregister: a.mr.reset(); break;
      case Then::ToError: ASSERT_EQ(a.qp->to_error(), fabric::Status::Ok); break;
      case Then::ToReset: ASSERT_EQ(a.qp->to_reset(), fabric::Status::Ok); break;
    }
    const auto wcs = testing::collect(*da, *a.cq, 1, 0.01);  // long past the response
    const auto changed = std::count_if(a.buffer.begin(), a.buffer.begin() + len,
                                       [](std::byte x) { return x != std::byte{0x11}; });
    EXPECT_EQ(changed, 0) << "bytes the late response wrote";
    if (then == Then::Deregister) {
      ASSERT_EQ(wcs.size(), 1u);
      EXPECT_EQ(wcs[0].status, WcStatus::LocalProtectionError);
      EXPECT_EQ(a.qp->state(), fabric::QpState::Error);
    } else if (then == Then::ToError) {
      ASSERT_EQ(wcs.size(), 1u);
      EXPECT_EQ(wcs[0].status, WcStatus::WrFlushError);
    }
  });
}

TEST(LateResponse, ReadIntoADeregisteredBufferIsALocalProtectionError) {
  testing::run_forked([] { run(Opcode::RdmaRead, Then::Deregister); });
}
TEST(LateResponse, AtomicIntoADeregisteredBufferIsALocalProtectionError) {
  testing::run_forked([] { run(Opcode::AtomicFetchAdd, Then::Deregister); });
}
TEST(LateResponse, ReadFlushedByAnErrorWritesNothing) {
  testing::run_forked([] { run(Opcode::RdmaRead, Then::ToError); });
}
TEST(LateResponse, AtomicFlushedByAnErrorWritesNothing) {
  testing::run_forked([] { run(Opcode::AtomicFetchAdd, Then::ToError); });
}
TEST(LateResponse, ReadResetAwayWritesNothing) {
  testing::run_forked([] { run(Opcode::RdmaRead, Then::ToReset); });
}

}  // namespace
}  // namespace twinfab
