// Runtime::charge_cpu in the simulator: CPU work recorded without blocking (the MPI
// library's, fabric::HostCosts) delays the caller's next post and is spent at its next
// wait or sleep; less than a nanosecond stays owed; the HCA counts it
// (docs/model.md, "Host software").
#include <gtest/gtest.h>

#include <limits>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

using fabric::Opcode;
using fabric::Transport;

/// Posts an 8-byte RDMA write from `a` to `b` and returns when its completion came,
/// relative to the post.
double write_and_complete(fabric::Device& d, testing::SimSide& a, testing::SimSide& b) {
  fabric::Sge sge = a.mr->sge(0, 8);
  fabric::SendWr wr;
  wr.wr_id = 1;
  wr.opcode = Opcode::RdmaWrite;
  wr.sg_list = {&sge, 1};
  wr.remote_addr = b.mr->remote_addr();
  wr.rkey = b.mr->rkey();
  const double posted = d.runtime().now();
  EXPECT_EQ(a.qp->post_send(wr), fabric::Status::Ok) << a.qp->last_error();
  EXPECT_EQ(testing::collect(d, *a.cq, 1, 0.01).size(), 1u);
  return d.runtime().now() - posted;
}

TEST(ChargedCpu, DelaysTheNextPostAndIsSpentAtTheNextWait) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("connectx-ddr"));
    s.run_single([&] {
      auto da = s.open_device(0), db = s.open_device(1);
      auto a = testing::make_side(*da, Transport::RC, 4096);
      auto b = testing::make_side(*db, Transport::RC, 4096);
      testing::connect_sides(a, b);
      fabric::Runtime& rt = da->runtime();
      write_and_complete(*da, a, b);  // warm-up
      const double plain = write_and_complete(*da, a, b);

      // Recorded, not spent: the clock does not move.
      const double before = rt.now();
      rt.charge_cpu(5e-6);
      EXPECT_EQ(rt.now(), before);
      // The write leaves 5 us later; the wait for its completion spends the 5 us first.
      EXPECT_NEAR(write_and_complete(*da, a, b), plain + 5e-6, 1e-10);

      // A sleep spends what is owed before its own time.
      const double t0 = rt.now();
      rt.charge_cpu(3e-6);
      rt.sleep_for(1e-6);
      EXPECT_NEAR(rt.now() - t0, 4e-6, 1e-12);

      // A wait with nothing to wait for ends at its deadline, or after the owed time
      // when that is later.
      const double t1 = rt.now();
      rt.charge_cpu(2e-6);
      EXPECT_EQ(rt.wait({}, t1 + 1e-6), fabric::Status::Timeout);
      EXPECT_NEAR(rt.now() - t1, 2e-6, 1e-12);

      // Below a nanosecond it stays owed (SimGrid's CPU model mishandles computations
      // that end where they start) until it adds up.
      const double t2 = rt.now();
      rt.charge_cpu(0.6e-9);
      rt.sleep_for(0);
      EXPECT_EQ(rt.now(), t2);
      rt.charge_cpu(0.6e-9);
      rt.sleep_for(0);
      EXPECT_NEAR(rt.now() - t2, 1.2e-9, 1e-13);

      // Nothing for zero, negative or NaN amounts.
      const double t3 = rt.now();
      rt.charge_cpu(0);
      rt.charge_cpu(-1e-6);
      rt.charge_cpu(std::numeric_limits<double>::quiet_NaN());
      rt.sleep_for(0);
      EXPECT_EQ(rt.now(), t3);
    });
    // 5 + 3 + 2 us and 2 x 0.6 ns, counted by host 0's HCA (whose device was charged).
    EXPECT_EQ(s.hca_counters(0).host_software_ns, 10000u + 1u + 1u);
    EXPECT_EQ(s.hca_counters(1).host_software_ns, 0u);
  });
}

}  // namespace
}  // namespace twinfab
