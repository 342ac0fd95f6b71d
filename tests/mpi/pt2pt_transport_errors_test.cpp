// A connection that the fabric breaks under the MPI library: the error names what
// broke it (the send that ran out of retries), not the receives flushed as a result.
#include <gtest/gtest.h>

#include <string>

#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

TEST(TransportErrors, ASendThatRunsOutOfRetriesIsTheErrorReported) {
  sim::Platform platform = sim::load_platform("ideal");  // ACK timeout 8.2 us, 7 retries
  platform.loss.probability = 1.0;                        // every packet is lost
  run_ranks(platform, 2, mpi::Config{}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    const int peer = 1 - world.rank();
    int out = world.rank(), in = -1;
    c.send(&out, 1, type, peer, 0, world);  // eager: done once the packet is posted
    try {
      c.recv(&in, 1, type, peer, 0, world);
      ADD_FAILURE() << "a receive over a connection that lost every packet returned";
    } catch (const mpi::Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_OTHER) << what;
      EXPECT_NE(what.find("a packet to rank " + std::to_string(peer) + " completed with IBV_WC_RETRY_EXC_ERR"),
                std::string::npos)
          << what;
      EXPECT_EQ(what.find("WR_FLUSH_ERR"), std::string::npos) << what;
    }
  });
}

// Issue 35: a rank whose library throws (bench_srq_memory's centre refusing one
// connection too many) while its peers block in receives from it. The run must end
// with that rank's error, not with SimGrid's deadlock report and a crash in the
// peers' unwinding.
TEST(TransportErrors, ARankThatFailsWhileItsPeersWaitEndsTheRunWithItsError) {
  testing::run_forked([] {
    sim::Simulation simulation(sim::load_platform("ideal"));
    try {
      simulation.run(3, [&](sim::RankEnv& env) {
        Context c(env.device, env.oob, mpi::Config{});
        const auto& world = c.world();
        const auto& type = c.datatype(BasicKind::Int);
        int value = 0;
        if (world.rank() == 0) {
          c.recv(&value, 1, type, 1, 0, world);  // connected to rank 1, with a message in flight
          throw mpi::Error(mpi::ErrorClass::MPI_ERR_NO_MEM, "connect", "rank 0 refuses another connection");
        }
        if (world.rank() == 1) c.send(&value, 1, type, 0, 0, world);
        c.recv(&value, 1, type, 0, 1, world);  // never sent
      }, 2);
      ADD_FAILURE() << "expected rank 0's error";
    } catch (const mpi::Error& e) {
      EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_NO_MEM) << e.what();
      EXPECT_NE(std::string(e.what()).find("rank 0 refuses another connection"), std::string::npos) << e.what();
    }
  });
}

}  // namespace
}  // namespace twinfab::mpitest
