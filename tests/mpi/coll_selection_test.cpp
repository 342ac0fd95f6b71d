// The collective algorithm selection (mpi/coll/selection.hpp): auto's table at points
// on either side of MPICH's thresholds, the thresholds as parameters, an unknown
// algorithm name refused at MPI_Init naming the choices, TWINFAB_COLL_FALLBACK's
// three behaviours for an algorithm that cannot serve a call, and the node-aware
// branch (TWINFAB_COLL_NODE_AWARE) when ranks share hosts.
#include <gtest/gtest.h>

#include <spdlog/sinks/ringbuffer_sink.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "fabric/log.hpp"
#include "mpi/coll/selection.hpp"
#include "tests/mpi/coll_test_support.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::coll::CallShape;

/// run_ranks without its fork, for a test that looks at this process's log after
/// the ranks ran (call it in a forked child).
void run_here(unsigned ranks, const mpi::Config& config, const std::function<void(Context&)>& body,
              unsigned ranks_per_host = 0) {
  sim::Platform loaded = sim::load_platform("connectx-ddr");
  unsigned per_host = std::max(loaded.ranks_per_host, (ranks + loaded.hosts - 1) / loaded.hosts);
  if (ranks_per_host != 0) {
    per_host = ranks_per_host;
    loaded.hosts = std::max(loaded.hosts, (ranks + per_host - 1) / per_host);
  }
  sim::Simulation simulation(loaded);
  simulation.run(ranks, [&](sim::RankEnv& env) {
    Context context(env.device, env.oob, config);
    body(context);
  }, per_host);
}

TEST(CollSelection, AllreduceFollowsMpichsTable) {
  const mpi::Config c{};
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {64, 1, 8, true}), mpi::AllreduceAlgorithm::RecursiveDoubling);
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {64, 256, 2048, true}), mpi::AllreduceAlgorithm::RecursiveDoubling);
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {64, 257, 2056, true}), mpi::AllreduceAlgorithm::Rabenseifner);
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {64, 8192, 65536, true}), mpi::AllreduceAlgorithm::Rabenseifner);
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {64, 8192, 65536, false}), mpi::AllreduceAlgorithm::RecursiveDoubling);
  // Fewer elements than the largest power of two of ranks: 40 big elements on 64.
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {64, 40, 40 * 4096, true}), mpi::AllreduceAlgorithm::RecursiveDoubling);
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {48, 40, 40 * 4096, true}), mpi::AllreduceAlgorithm::Rabenseifner);
  // A user-defined op, even a commutative one, stays with recursive doubling (MPICH's
  // "is_op_built_in=no").
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {64, 8192, 65536, true, false}), mpi::AllreduceAlgorithm::RecursiveDoubling);
}

TEST(CollSelection, AllgatherBcastAlltoallFollowMpichsTables) {
  const mpi::Config c{};
  using AG = mpi::AllgatherAlgorithm;
  EXPECT_EQ(mpi::coll::auto_allgather(c, {64, 1, 4 * 64}), AG::RecursiveDoubling);
  EXPECT_EQ(mpi::coll::auto_allgather(c, {64, 1, 524287}), AG::RecursiveDoubling);
  EXPECT_EQ(mpi::coll::auto_allgather(c, {64, 1, 524288}), AG::Ring);
  EXPECT_EQ(mpi::coll::auto_allgather(c, {63, 1, 4 * 63}), AG::Bruck);
  EXPECT_EQ(mpi::coll::auto_allgather(c, {63, 1, 81919}), AG::Bruck);
  EXPECT_EQ(mpi::coll::auto_allgather(c, {63, 1, 81920}), AG::Ring);

  using B = mpi::BcastAlgorithm;
  EXPECT_EQ(mpi::coll::auto_bcast(c, {64, 8, 8}), B::Binomial);
  EXPECT_EQ(mpi::coll::auto_bcast(c, {64, 1, 12288}), B::Binomial);
  EXPECT_EQ(mpi::coll::auto_bcast(c, {64, 1, 12289}), B::ScatterRecursiveDoublingAllgather);
  EXPECT_EQ(mpi::coll::auto_bcast(c, {64, 1, 524288}), B::ScatterRecursiveDoublingAllgather);
  EXPECT_EQ(mpi::coll::auto_bcast(c, {64, 1, 524289}), B::ScatterRingAllgather);
  EXPECT_EQ(mpi::coll::auto_bcast(c, {63, 1, 65536}), B::ScatterRingAllgather);
  EXPECT_EQ(mpi::coll::auto_bcast(c, {7, 1, 1 << 20}), B::Binomial);  // below MPIR_CVAR_BCAST_MIN_PROCS
  EXPECT_EQ(mpi::coll::auto_bcast(c, {8, 1, 1 << 20}), B::ScatterRingAllgather);

  using A = mpi::AlltoallAlgorithm;
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {64, 1, 8}), A::Bruck);
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {8, 1, 256}), A::Bruck);
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {7, 1, 8}), A::Scattered);
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {64, 1, 257}), A::Scattered);
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {64, 1, 32768}), A::Scattered);
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {64, 1, 32769}), A::Pairwise);
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {64, 1, 8, true, true, true}), A::Pairwise);  // in place
}

TEST(CollSelection, ReduceReduceScatterGatherScatterFollowMpichsTables) {
  const mpi::Config c{};
  using R = mpi::ReduceAlgorithm;
  EXPECT_EQ(mpi::coll::auto_reduce(c, {64, 256, 2048, true}), R::Binomial);
  EXPECT_EQ(mpi::coll::auto_reduce(c, {64, 257, 2056, true}), R::Rabenseifner);
  EXPECT_EQ(mpi::coll::auto_reduce(c, {64, 257, 2056, false}), R::Binomial);
  EXPECT_EQ(mpi::coll::auto_reduce(c, {64, 257, 2056, true, false}), R::Binomial);  // user-defined op
  EXPECT_EQ(mpi::coll::auto_reduce(c, {64, 63, 63 * 64, true}), R::Binomial);

  using RS = mpi::ReduceScatterAlgorithm;
  EXPECT_EQ(mpi::coll::auto_reduce_scatter(c, {64, 64, 512, true}), RS::RecursiveHalving);
  EXPECT_EQ(mpi::coll::auto_reduce_scatter(c, {64, 1 << 16, 524287, true}), RS::RecursiveHalving);
  EXPECT_EQ(mpi::coll::auto_reduce_scatter(c, {64, 1 << 16, 524288, true}), RS::Pairwise);
  EXPECT_EQ(mpi::coll::auto_reduce_scatter(c, {64, 64, 512, false}), RS::ReduceScatterv);

  EXPECT_EQ(mpi::coll::auto_gather(c, {64, 1, 8}), mpi::RootedAlgorithm::Binomial);
  EXPECT_EQ(mpi::coll::auto_scatter(c, {64, 1 << 20, 1 << 20}), mpi::RootedAlgorithm::Binomial);
}

TEST(CollSelection, AutoAlwaysChoosesAnAlgorithmThatServesTheCall) {
  const mpi::Config c{};
  for (int n = 1; n <= 70; ++n)
    for (std::int64_t count : {0, 1, 3, 64, 100, 5000, 1 << 18})
      for (bool commutative : {true, false}) {
        const CallShape call{n, count, count * 8, commutative};
        EXPECT_EQ(mpi::coll::why_not(mpi::coll::auto_allreduce(c, call), call), "") << n << " " << count;
        EXPECT_EQ(mpi::coll::why_not(mpi::coll::auto_reduce(c, call), call), "") << n << " " << count;
        EXPECT_EQ(mpi::coll::why_not(mpi::coll::auto_reduce_scatter(c, call), call), "") << n << " " << count;
        EXPECT_EQ(mpi::coll::why_not(mpi::coll::auto_allgather(c, call), call), "") << n << " " << count;
        EXPECT_EQ(mpi::coll::why_not(mpi::coll::auto_bcast(c, call), call), "") << n << " " << count;
      }
}

TEST(CollSelection, ThresholdsAreParameters) {
  const mpi::Config c = mpi::apply_variables(
      {}, {{"TWINFAB_ALLREDUCE_SHORT_MSG", "64"}, {"TWINFAB_ALLGATHER_LONG_MSG", "0"},
           {"TWINFAB_BCAST_MIN_PROCS", "100"}, {"TWINFAB_ALLTOALL_SHORT_MSG", "0"}});
  EXPECT_EQ(mpi::coll::auto_allreduce(c, {4, 16, 128, true}), mpi::AllreduceAlgorithm::Rabenseifner);
  EXPECT_EQ(mpi::coll::auto_allgather(c, {64, 1, 256}), mpi::AllgatherAlgorithm::Bruck);
  EXPECT_EQ(mpi::coll::auto_bcast(c, {64, 1, 1 << 20}), mpi::BcastAlgorithm::Binomial);
  EXPECT_EQ(mpi::coll::auto_alltoall(c, {64, 1, 8}), mpi::AlltoallAlgorithm::Scattered);
}

TEST(CollSelection, AnUnknownAlgorithmIsRefusedAtInitNamingTheChoices) {
  testing::run_forked([] {
    const std::pair<const char*, const char*> cases[] = {
        {"TWINFAB_ALLREDUCE", "auto, recursive_doubling, rabenseifner"},
        {"TWINFAB_ALLGATHER", "auto, recursive_doubling, bruck, ring"},
        {"TWINFAB_BCAST", "auto, binomial, scatter_recursive_doubling_allgather, scatter_ring_allgather"},
        {"TWINFAB_ALLTOALL", "auto, bruck, scattered, pairwise"},
        {"TWINFAB_REDUCE", "auto, binomial, rabenseifner"},
        {"TWINFAB_REDUCE_SCATTER", "auto, recursive_halving, pairwise, reduce_scatterv"},
        {"TWINFAB_GATHER", "auto, binomial, linear"},
        {"TWINFAB_SCATTER", "auto, binomial, linear"},
        {"TWINFAB_COLL_FALLBACK", "error, warn, silent"},
    };
    for (const auto& [name, choices] : cases) {
      setenv(name, "bruk", 1);
      std::string text;
      try {
        mpi::apply_environment({});
      } catch (const mpi::Error& e) {
        EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_ARG);
        text = e.what();
      }
      unsetenv(name);
      EXPECT_NE(text.find(name), std::string::npos) << text;
      EXPECT_NE(text.find("'bruk'"), std::string::npos) << text;
      EXPECT_NE(text.find(choices), std::string::npos) << text;
    }
    setenv("TWINFAB_ALLGATHER", "bruck", 1);
    EXPECT_EQ(mpi::apply_environment({}).allgather_algorithm, mpi::AllgatherAlgorithm::Bruck);
    unsetenv("TWINFAB_ALLGATHER");
  });
}

TEST(CollSelection, ANonApplicableAlgorithmIsAnErrorNamingWhatApplies) {
  // Recursive doubling allgather on 3 ranks; Rabenseifner on a non-commutative op.
  const mpi::Config config = mpi::apply_variables(
      {}, {{"TWINFAB_ALLGATHER", "recursive_doubling"}, {"TWINFAB_ALLREDUCE", "rabenseifner"}});
  run_ranks("connectx-ddr", 3, config, [](Context& c) {
    const auto& int32 = c.datatype(BasicKind::Int);
    std::vector<int> in(1, c.world().rank()), out(3, -1);
    expect_error([&] { mpi::allgather(c, in.data(), 1, int32, out.data(), 1, int32, c.world()); },
                 mpi::ErrorClass::MPI_ERR_ARG,
                 "MPI_Allgather(TWINFAB_ALLGATHER=recursive_doubling): it needs a power of two of ranks, and the "
                 "communicator has 3; algorithms that serve this call: auto, bruck, ring");
    // The nonblocking form is refused by the call itself, too.
    expect_error(
        [&] { mpi::allgather(c, in.data(), 1, int32, out.data(), 1, int32, c.world(), mpi::Mode::Nonblocking); },
        mpi::ErrorClass::MPI_ERR_ARG, "MPI_Iallgather(TWINFAB_ALLGATHER=recursive_doubling)");
    const auto noncommutative = mpi::ReductionOp::user(
        [](const void*, const void* a, void* b, std::int64_t n, const mpi::Datatype&) {
          for (std::int64_t i = 0; i < n; ++i) static_cast<int*>(b)[i] = static_cast<const int*>(a)[i];
        },
        nullptr, false);
    std::vector<int> v(64, 1), r(64);
    expect_error([&] { mpi::allreduce(c, v.data(), r.data(), 64, int32, noncommutative, c.world()); },
                 mpi::ErrorClass::MPI_ERR_ARG,
                 "the op is not commutative, and this algorithm combines in any order; algorithms that serve this "
                 "call: auto, recursive_doubling");
    // Too few elements for the 2 chunks of 3 ranks' power of two.
    expect_error([&] { mpi::allreduce(c, v.data(), r.data(), 1, int32, mpi::Op::Sum, c.world()); },
                 mpi::ErrorClass::MPI_ERR_ARG, "it needs at least 2 elements");
    // Nothing to move: served by any algorithm.
    mpi::allreduce(c, v.data(), r.data(), 0, int32, mpi::Op::Sum, c.world());
  });
}

TEST(CollSelection, WarnAndSilentRunAutosChoiceAndWarnOncePerCollective) {
  for (const char* fallback : {"warn", "silent"}) {
    testing::run_forked([fallback] {
      auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
      fabric::log().sinks().push_back(sink);
      const mpi::Config config = mpi::apply_variables(
          {}, {{"TWINFAB_ALLGATHER", "recursive_doubling"}, {"TWINFAB_COLL_FALLBACK", fallback}});
      run_here(3, config, [](Context& c) {
        const auto& int32 = c.datatype(BasicKind::Int);
        for (int round = 0; round < 3; ++round) {
          std::vector<int> in(2, c.world().rank() + round), out(6, -1);
          mpi::allgather(c, in.data(), 2, int32, out.data(), 2, int32, c.world());
          for (int i = 0; i < 6; ++i) ASSERT_EQ(out[static_cast<std::size_t>(i)], i / 2 + round);
        }
      });
      int warnings = 0;
      for (const std::string& line : sink->last_formatted())
        if (line.find("TWINFAB_ALLGATHER=recursive_doubling cannot serve this call") != std::string::npos) ++warnings;
      // Once per rank (3 ranks, 3 calls each) with warn; never with silent.
      EXPECT_EQ(warnings, std::string(fallback) == "warn" ? 3 : 0);
    });
  }
}

TEST(CollSelection, TheDebugLogNamesTheChoice) {
  testing::run_forked([] {
    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
    fabric::log().sinks().push_back(sink);
    fabric::log().set_level(spdlog::level::debug);
    sink->set_level(spdlog::level::debug);
    // One rank per host: the flat table (node-aware: the tests below).
    run_here(4, {}, [](Context& c) {
      const auto& int64 = c.datatype(BasicKind::Int64);
      std::vector<std::int64_t> in(8192, 1), out(8192);
      mpi::allreduce(c, in.data(), out.data(), 8192, int64, mpi::Op::Sum, c.world());
    }, 1);
    int found = 0;
    for (const std::string& line : sink->last_formatted())
      if (line.find("MPI_Allreduce on 4 ranks, 65536 bytes: rabenseifner (auto)") != std::string::npos) ++found;
    EXPECT_EQ(found, 4);
  });
}

TEST(CollSelection, NodeAwareComesFirstWhenRanksShareHosts) {
  const mpi::Config on{};
  CallShape shared{64, 1, 8, true};
  shared.nodes_known = shared.shares_hosts = true;
  shared.hosts = 8;
  EXPECT_EQ(mpi::coll::auto_barrier(on, shared), mpi::BarrierAlgorithm::NodeAware);
  EXPECT_EQ(mpi::coll::auto_allreduce(on, shared), mpi::AllreduceAlgorithm::NodeAware);
  EXPECT_EQ(mpi::coll::auto_bcast(on, shared), mpi::BcastAlgorithm::NodeAware);
  EXPECT_EQ(mpi::coll::auto_reduce(on, shared), mpi::ReduceAlgorithm::NodeAware);
  // Allgather below MPICH's short-message size only (the whole vector, 81920 bytes).
  CallShape gathered = shared;
  gathered.bytes = 81919;
  EXPECT_EQ(mpi::coll::auto_allgather(on, gathered), mpi::AllgatherAlgorithm::NodeAware);
  gathered.bytes = 81920;
  EXPECT_EQ(mpi::coll::auto_allgather(on, gathered), mpi::AllgatherAlgorithm::RecursiveDoubling);
  // A non-commutative op keeps its flat, rank-ordered algorithms.
  CallShape ordered = shared;
  ordered.commutative = false;
  EXPECT_EQ(mpi::coll::auto_allreduce(on, ordered), mpi::AllreduceAlgorithm::RecursiveDoubling);
  EXPECT_EQ(mpi::coll::auto_reduce(on, ordered), mpi::ReduceAlgorithm::Binomial);
  EXPECT_NE(mpi::coll::why_not(mpi::AllreduceAlgorithm::NodeAware, ordered).find("not commutative"),
            std::string::npos);
  // Ranks on distinct hosts (or all on one), or TWINFAB_COLL_NODE_AWARE=0: MPICH's
  // flat table.
  CallShape flat{64, 1, 8, true};
  flat.nodes_known = true;
  EXPECT_EQ(mpi::coll::auto_barrier(on, flat), mpi::BarrierAlgorithm::Dissemination);
  EXPECT_EQ(mpi::coll::auto_allreduce(on, flat), mpi::AllreduceAlgorithm::RecursiveDoubling);
  const mpi::Config off = mpi::apply_variables({}, {{"TWINFAB_COLL_NODE_AWARE", "0"}});
  EXPECT_EQ(mpi::coll::auto_barrier(off, shared), mpi::BarrierAlgorithm::Dissemination);
  EXPECT_EQ(mpi::coll::auto_allreduce(off, shared), mpi::AllreduceAlgorithm::RecursiveDoubling);
  EXPECT_EQ(mpi::coll::auto_bcast(off, shared), mpi::BcastAlgorithm::Binomial);
  EXPECT_EQ(mpi::coll::auto_reduce(off, shared), mpi::ReduceAlgorithm::Binomial);
  EXPECT_EQ(mpi::coll::auto_allgather(off, shared), mpi::AllgatherAlgorithm::RecursiveDoubling);
  expect_error([] { mpi::apply_variables({}, {{"TWINFAB_COLL_NODE_AWARE", "2"}}); }, mpi::ErrorClass::MPI_ERR_ARG,
               "TWINFAB_COLL_NODE_AWARE");
}

/// How many lines of the debug log name `words[i]` as the choice of call i: a
/// barrier, an 8-byte allreduce, a bcast and a reduce on 8 ranks, 4 per host, with
/// TWINFAB_COLL_NODE_AWARE `node_aware`.
std::vector<int> logged_choices(const char* node_aware, const std::vector<std::string>& words) {
  std::vector<int> found(4, 0);
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(200);
  fabric::log().sinks().push_back(sink);
  fabric::log().set_level(spdlog::level::debug);
  sink->set_level(spdlog::level::debug);
  run_here(8, mpi::apply_variables({}, {{"TWINFAB_COLL_NODE_AWARE", node_aware}}), [](Context& c) {
    const auto& int64 = c.datatype(BasicKind::Int64);
    std::int64_t in = c.world().rank(), out = -1;
    mpi::barrier(c, c.world());
    mpi::allreduce(c, &in, &out, 1, int64, mpi::Op::Sum, c.world());
    EXPECT_EQ(out, 28);
    mpi::bcast(c, &in, 1, int64, 5, c.world());
    EXPECT_EQ(in, 5);
    mpi::reduce(c, &in, &out, 1, int64, mpi::Op::Sum, 6, c.world());
    if (c.world().rank() == 6) EXPECT_EQ(out, 40);
  }, 4);
  const char* calls[] = {"MPI_Barrier on 8 ranks, 0 bytes: ", "MPI_Allreduce on 8 ranks, 8 bytes: ",
                         "MPI_Bcast on 8 ranks, 8 bytes: ", "MPI_Reduce on 8 ranks, 8 bytes: "};
  for (const std::string& line : sink->last_formatted())
    for (std::size_t i = 0; i < 4; ++i)
      if (line.find(calls[i] + words[i]) != std::string::npos) ++found[i];
  return found;
}

TEST(CollSelection, AutoPicksNodeAwareWhenRanksShareHosts) {
  testing::run_forked([] {
    const std::string word = "node-aware (auto), ranks on 2 hosts";
    EXPECT_EQ(logged_choices("1", {word, word, word, word}), std::vector<int>(4, 8));
  });
}

TEST(CollSelection, NodeAwareOffRunsTheFlatTable) {
  // Nothing asks for the node map then, so the log does not mention hosts.
  testing::run_forked([] {
    EXPECT_EQ(logged_choices("0", {"dissemination (auto)", "recursive_doubling (auto)", "binomial (auto)",
                                   "binomial (auto)"}),
              std::vector<int>(4, 8));
  });
}

}  // namespace
}  // namespace twinfab::mpitest
