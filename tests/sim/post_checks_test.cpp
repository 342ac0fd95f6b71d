// What the simulated QP refuses at post time that is not in the conformance suite
// (the verbs backend leaves it to the provider): an opcode value that names no
// fabric::Opcode was posted as a plain Send and succeeded.
#include <gtest/gtest.h>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

TEST(SimPostChecks, AnOpcodeThatNamesNoneIsInvalidArgument) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("connectx-ddr"));
    s.run_single([&] {
      auto da = s.open_device(0), db = s.open_device(1);
      auto a = testing::make_side(*da, fabric::Transport::RC, 64);
      auto b = testing::make_side(*db, fabric::Transport::RC, 64);
      testing::connect_sides(a, b);
      fabric::Sge sge = a.mr->sge(0, 8);
      fabric::SendWr wr;
      wr.opcode = static_cast<fabric::Opcode>(99);
      wr.sg_list = {&sge, 1};
      EXPECT_EQ(a.qp->post_send(wr), fabric::Status::InvalidArgument);
      EXPECT_NE(a.qp->last_error().find("opcode 99 is not a fabric::Opcode"), std::string::npos) << a.qp->last_error();
      EXPECT_TRUE(testing::collect(*db, *b.cq, 1, 0.001).empty());
    });
  });
}

}  // namespace
}  // namespace twinfab
