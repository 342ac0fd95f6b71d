// The simulated HCA's atomic unit and the max_rd_atomic limit: what makes contention
// for remote atomics (one-sided locks, mpi/rma) cost what it costs on hardware.
//  - The target HCA applies one atomic at a time: n atomics that arrive together
//    finish hca.atomic_latency apart, whichever QPs sent them (before, each response
//    was only delayed by the latency, so they overlapped for free).
//  - A requester keeps at most features.max_rd_atomic reads/atomics on the wire per QP
//    and holds the rest in its send queue, in order, as verbs' max_rd_atomic does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

using fabric::Opcode;
using fabric::Transport;
using fabric::WcStatus;

/// Posts `n` work requests of `op` (8 bytes each, into consecutive slots of the
/// requester's buffer) on one QP to one word of the responder's memory, and returns the
/// simulated time from the post to the last completion; `olds` gets the values the
/// atomics returned.
void run_here(const sim::Platform& platform, Opcode op, int n, double& elapsed, std::vector<std::uint64_t>* olds,
              std::uint64_t* final_value) {
  sim::Simulation s(platform);
  s.run_single([&] {
    auto da = s.open_device(0), db = s.open_device(1);
    auto a = testing::make_side(*da, Transport::RC, 8 * static_cast<size_t>(n));
    auto b = testing::make_side(*db, Transport::RC, 8);
    testing::connect_sides(a, b);
    const double start = da->runtime().now();
    for (int i = 0; i < n; ++i) {
      fabric::Sge sge = a.mr->sge(8 * static_cast<size_t>(i), 8);
      fabric::SendWr wr;
      wr.wr_id = static_cast<std::uint64_t>(i);
      wr.opcode = op;
      wr.sg_list = {&sge, 1};
      wr.remote_addr = b.mr->remote_addr();
      wr.rkey = b.mr->rkey();
      wr.compare_add = 1;
      ASSERT_EQ(a.qp->post_send(wr), fabric::Status::Ok) << a.qp->last_error();
    }
    const auto wcs = testing::collect(*da, *a.cq, static_cast<size_t>(n), 1.0);
    elapsed = da->runtime().now() - start;
    ASSERT_EQ(wcs.size(), static_cast<size_t>(n));
    for (std::size_t i = 0; i < wcs.size(); ++i) {
      EXPECT_EQ(wcs[i].status, WcStatus::Success);
      EXPECT_EQ(wcs[i].wr_id, i) << "completions in posting order";
    }
    if (olds != nullptr) {
      olds->resize(static_cast<size_t>(n));
      std::memcpy(olds->data(), a.buffer.data(), 8 * static_cast<size_t>(n));
    }
    if (final_value != nullptr) std::memcpy(final_value, b.buffer.data(), 8);
  });
}

/// run_here() in a child process (SimGrid keeps one engine per process), its results
/// brought back through shared memory.
double run(const sim::Platform& platform, Opcode op, int n, std::vector<std::uint64_t>* olds = nullptr,
           std::uint64_t* final_value = nullptr) {
  struct Shared {
    double elapsed;
    std::uint64_t final_value;
    std::uint64_t olds[16];
  };
  EXPECT_LE(n, 16);
  const Shared shared = testing::run_forked_result<Shared>([&](Shared& out) {
    std::vector<std::uint64_t> o;
    run_here(platform, op, n, out.elapsed, &o, &out.final_value);
    std::copy(o.begin(), o.end(), out.olds);
  });
  const double elapsed = shared.elapsed;
  if (olds != nullptr) olds->assign(shared.olds, shared.olds + n);
  if (final_value != nullptr) *final_value = shared.final_value;
  return elapsed;
}

TEST(AtomicUnit, AtomicsToOneHcaAreAppliedOneAtATime) {
  sim::Platform p = sim::load_platform("infinihost-sdr");
  // Long enough that the unit, not the requester's posting or the wire, sets the pace.
  p.hca.atomic_latency = 10e-6;
  p.features.max_rd_atomic = 16;
  std::vector<std::uint64_t> olds;
  std::uint64_t final_value = 0;
  const double one = run(p, Opcode::AtomicFetchAdd, 1);
  const double eight = run(p, Opcode::AtomicFetchAdd, 8, &olds, &final_value);
  EXPECT_EQ(final_value, 8u);
  EXPECT_EQ(std::set<std::uint64_t>(olds.begin(), olds.end()), (std::set<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}))
      << "each fetch-and-add saw the one before it";
  // Seven more pass through the unit after the first.
  EXPECT_GE(eight - one, 7 * p.hca.atomic_latency * 0.999);
}

TEST(AtomicUnit, MaxRdAtomicHoldsFurtherReadsInTheSendQueue) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.hca.icm_cache_entries = 0;  // the first read's context misses would blur the round trips' ratio
  p.features.max_rd_atomic = 16;
  const double pipelined = run(p, Opcode::RdmaRead, 6);
  p.features.max_rd_atomic = 2;
  const double two_at_a_time = run(p, Opcode::RdmaRead, 6);
  p.features.max_rd_atomic = 1;
  const double one_at_a_time = run(p, Opcode::RdmaRead, 6);
  // Three and six round trips against one: allow for the pipelined run's WQE spacing.
  EXPECT_GT(two_at_a_time, 2.0 * pipelined);
  EXPECT_GT(one_at_a_time, 1.8 * two_at_a_time);
}

TEST(AtomicUnit, MaxRdAtomicAlsoLimitsAtomics) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  p.features.max_rd_atomic = 1;
  std::uint64_t final_value = 0;
  std::vector<std::uint64_t> olds;
  run(p, Opcode::AtomicFetchAdd, 4, &olds, &final_value);
  EXPECT_EQ(final_value, 4u);
  EXPECT_EQ(olds, (std::vector<std::uint64_t>{0, 1, 2, 3})) << "one at a time, in posting order";
}

}  // namespace
}  // namespace twinfab
