// The Simulation API's contract: errors are clear, nothing hangs.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/simulation.hpp"
#include "fabric/error.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

TEST(Simulation, TooFewHostsIsAClearError) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    try {
      s.run(3, [](sim::RankEnv&) {}, 1);
      FAIL() << "expected an error";
    } catch (const fabric::Error& e) {
      EXPECT_EQ(e.status(), fabric::Status::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("need 3 hosts"), std::string::npos) << e.what();
    }
  });
}

TEST(Simulation, RanksRunWithTheirOwnDevicesAndExchange) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    std::vector<int> seen(4, -1);
    s.run(4, [&](sim::RankEnv& env) {
      std::byte mine{static_cast<uint8_t>(env.rank * 10)};
      env.oob.put({&mine, 1});
      env.oob.fence();
      auto next = env.oob.get(static_cast<int>((env.rank + 1) % env.size));
      seen[env.rank] = static_cast<int>(next.at(0));
      EXPECT_EQ(env.host, env.rank / 2);
      EXPECT_EQ(env.oob.node(), std::optional<int>(static_cast<int>(env.host)));  // the placement, for MPI
      EXPECT_THROW(env.oob.get(99), fabric::Error);
    }, 2);
    EXPECT_EQ(seen, (std::vector<int>{10, 20, 30, 0}));
  });
}

// A started barrier (OobExchange::start_barrier()): the UD channel's end polls one
// instead of keeping an agent. Ranks start it at different dates; those that wait for
// it in Runtime::wait() on a CQ where nothing will come wake when the last one starts,
// at its date, and not before; a second round works the same; a rank that starts it
// last finds it done at once.
TEST(Simulation, AStartedBarrierWakesItsWaitersWhenTheLastRankStartsIt) {
  testing::run_forked([] {
    sim::Platform platform = sim::load_platform("ideal");
    platform.hosts = 4;
    sim::Simulation s(platform);
    std::vector<double> ended(4, -1), second(4, -1);
    std::vector<int> waits(4, 0);
    s.run(4, [&](sim::RankEnv& env) {
      auto cq = env.device.create_cq(4);  // nothing ever completes in it
      fabric::CompletionQueue* src[] = {cq.get()};
      for (int round = 0; round < 2; ++round) {
        env.runtime.sleep_for(1e-6 * (env.rank + 1) * (round + 1));  // rank 3 starts last
        std::unique_ptr<fabric::PendingBarrier> b = env.oob.start_barrier();
        ASSERT_NE(b, nullptr);
        if (env.rank == 3) {
          EXPECT_TRUE(b->done());
        }
        while (!b->done()) {
          ++waits[env.rank];
          env.runtime.wait(src, fabric::Runtime::kForever);
        }
        (round == 0 ? ended : second)[env.rank] = env.runtime.now();
      }
    }, 1);
    for (int r = 0; r < 4; ++r) {
      EXPECT_NEAR(ended[r], 4e-6, 1e-12) << "rank " << r;
      EXPECT_NEAR(second[r], 4e-6 + 8e-6, 1e-12) << "rank " << r;
      EXPECT_EQ(waits[r], r == 3 ? 0 : 2) << "rank " << r;  // one wake-up per round, no spurious ones
    }
  });
}

TEST(Simulation, AnExceptionInARankIsRethrown) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    EXPECT_THROW(s.run(2, [](sim::RankEnv& env) {
      if (env.rank == 1) throw std::runtime_error("rank 1 failed");
    }), std::runtime_error);
  });
}

// Issue 35: a rank that fails while the others wait for it (for its connection, its
// message, a fence) used to leave them blocked; SimGrid then reported a deadlock,
// killed them, and their unwinding crashed the process before the error was seen.
// The failure must end the run at once and come back as the rank's own error.
TEST(Simulation, AFailingRankEndsTheRunWhileOthersWaitForIt) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    try {
      s.run(3, [](sim::RankEnv& env) {
        auto cq = env.device.create_cq(4);
        if (env.rank == 0) throw fabric::Error(fabric::Status::NoResource, "rank 0 ran out of connections");
        env.oob.fence();  // waits for rank 0, which never comes
        fabric::CompletionQueue* src[] = {cq.get()};
        env.runtime.wait(src, fabric::Runtime::kForever);
      }, 2);
      FAIL() << "expected rank 0's error";
    } catch (const fabric::Error& e) {
      EXPECT_EQ(e.status(), fabric::Status::NoResource);
      EXPECT_NE(std::string(e.what()).find("rank 0 ran out of connections"), std::string::npos) << e.what();
    }
  });
}

TEST(Simulation, ADeadlockIsReportedNotHung) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    try {
      s.run(2, [](sim::RankEnv& env) {
        auto cq = env.device.create_cq(4);
        fabric::CompletionQueue* src[] = {cq.get()};
        env.runtime.wait(src, fabric::Runtime::kForever);  // nothing will ever come
      });
      FAIL() << "expected a deadlock error";
    } catch (const fabric::Error& e) {
      EXPECT_NE(std::string(e.what()).find("deadlocked"), std::string::npos) << e.what();
    }
  });
}

TEST(Simulation, BusyPollingWithoutWaitingStopsWithAnExplanation) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    try {
      s.run_single([&] {
        auto d = s.open_device(0);
        auto cq = d->create_cq(4);
        fabric::WorkCompletion wc;
        for (;;) cq->poll({&wc, 1});
      });
      FAIL() << "expected an error";
    } catch (const fabric::Error& e) {
      EXPECT_NE(std::string(e.what()).find("Runtime::wait"), std::string::npos) << e.what();
    }
  });
}

/// One rank's side of an RDMA read test: a QP and 8 words of registered memory holding
/// `value`, published through the out-of-band exchange (address, then the memory's
/// remote address and rkey).
struct ReadSide {
  std::unique_ptr<fabric::CompletionQueue> cq;
  std::unique_ptr<fabric::QueuePair> qp;
  std::vector<uint64_t> words;
  std::unique_ptr<fabric::MemoryRegion> mr;
  std::vector<std::byte> peer;  ///< the peer's published blob, after connect_to

  ReadSide(sim::RankEnv& env, uint64_t value) : words(8, value) {
    cq = env.device.create_cq(16);
    fabric::QpConfig cfg;
    cfg.send_cq = cfg.recv_cq = cq.get();
    qp = env.device.create_qp(cfg);
    mr = env.device.register_memory(words.data(), 64, fabric::kAllAccess);
    const fabric::Address mine = qp->local_address();
    std::vector<std::byte> blob(mine.bytes().begin(), mine.bytes().end());
    const uint64_t addr = mr->remote_addr();
    const uint32_t rkey = mr->rkey();
    blob.insert(blob.end(), reinterpret_cast<const std::byte*>(&addr), reinterpret_cast<const std::byte*>(&addr) + 8);
    blob.insert(blob.end(), reinterpret_cast<const std::byte*>(&rkey), reinterpret_cast<const std::byte*>(&rkey) + 4);
    env.oob.put(blob);
  }
  /// After the exchange's fence: connects to `rank`'s QP.
  void connect_to(sim::RankEnv& env, int rank) {
    peer = env.oob.get(rank);
    auto peer_addr = fabric::Address::from_bytes({peer.data(), peer.size() - 12});
    ASSERT_EQ(qp->connect(&peer_addr), fabric::Status::Ok);
  }
  /// Reads the peer's first word into words[0] and waits for the completion.
  void read_first_word(sim::RankEnv& env) {
    uint64_t raddr;
    uint32_t rkey;
    std::memcpy(&raddr, peer.data() + peer.size() - 12, 8);
    std::memcpy(&rkey, peer.data() + peer.size() - 4, 4);
    fabric::Sge sge = mr->sge(0, 8);
    fabric::SendWr wr;
    wr.opcode = fabric::Opcode::RdmaRead;
    wr.sg_list = {&sge, 1};
    wr.remote_addr = raddr;
    wr.rkey = rkey;
    ASSERT_EQ(qp->post_send(wr), fabric::Status::Ok);
    auto wcs = testing::collect(env.device, *cq, 1, 1.0);
    ASSERT_EQ(wcs.size(), 1u);
    EXPECT_EQ(wcs[0].status, fabric::WcStatus::Success);
  }
};

TEST(Simulation, SleepAdvancesTimeAndTheHcaKeepsServing) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("connectx-ddr"));
    s.run(2, [&](sim::RankEnv& env) {
      // Rank 1 "computes" for 1 ms while rank 0 reads its memory: one-sided RDMA
      // needs no help from the target's CPU.
      ReadSide side(env, env.rank == 1 ? 42 : 0);
      env.oob.fence();
      side.connect_to(env, 1 - static_cast<int>(env.rank));
      env.oob.fence();
      const double t0 = env.runtime.now();
      if (env.rank == 1) {
        env.runtime.sleep_for(1e-3);
        EXPECT_NEAR(env.runtime.now() - t0, 1e-3, 1e-12);
        return;
      }
      side.read_first_word(env);
      EXPECT_EQ(side.words[0], 42u);
      EXPECT_LT(env.runtime.now() - t0, 1e-4);  // served during the target's sleep
    });
  });
}

// A rank waits on CQs of its own device contexts: another rank's CQ, whose completions
// never wake this rank, is refused (null and foreign CQs: conformance_errors.cpp).
TEST(Simulation, WaitingOnAnotherRanksCqIsRefused) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("ideal"));
    fabric::CompletionQueue* rank0_cq = nullptr;
    s.run(2, [&](sim::RankEnv& env) {
      auto own = env.device.create_cq(16);
      if (env.rank == 0) rank0_cq = own.get();
      env.oob.fence();
      if (env.rank == 1) {
        const double soon = env.runtime.now() + 1e-6;
        fabric::CompletionQueue* other_rank[] = {own.get(), rank0_cq};
        try {
          env.runtime.wait(other_rank, soon);
          ADD_FAILURE() << "a wait on another rank's CQ was accepted";
        } catch (const fabric::Error& e) {
          EXPECT_EQ(e.status(), fabric::Status::InvalidArgument) << e.what();
          EXPECT_NE(std::string(e.what()).find("Runtime::wait: source 1 is a CQ of"), std::string::npos) << e.what();
          EXPECT_NE(std::string(e.what()).find("another rank"), std::string::npos) << e.what();
        }
        fabric::CompletionQueue* fine[] = {own.get()};
        EXPECT_EQ(env.runtime.wait(fine, soon), fabric::Status::Timeout);
      }
      env.oob.fence();  // rank 0's CQ lives until rank 1 is done with it
    });
  });
}

// SimGrid 3.32 numbers a fat-tree's switches in a range that may overlap the hosts'
// ids; deciding "host or switch" by id gave a switch a host's PCIe link, declared
// twice, and SimGrid aborted while building the platform. Such a shape builds and
// carries a message between the two ends of the tree.
TEST(Simulation, AFatTreeWhoseSwitchIdsOverlapTheHostsBuildsAndCarries) {
  testing::run_forked([] {
    sim::Platform p = sim::load_platform("fat-tree-4096");
    p.name = "fat-tree-8-three-levels";
    p.hosts = 8;
    p.fat_tree = {3, {2, 2, 2}, {1, 2, 2}, {1, 1, 1}};
    sim::Simulation s(p);
    s.run(8, [&](sim::RankEnv& env) {
      ReadSide side(env, 100 + env.rank);
      env.oob.fence();
      if (env.rank == 0 || env.rank == 7) {
        side.connect_to(env, 7 - static_cast<int>(env.rank));
        if (env.rank == 0) {
          side.read_first_word(env);
          EXPECT_EQ(side.words[0], 107u);
        } else {
          env.runtime.sleep_for(1e-3);  // the target's HCA serves the read meanwhile
        }
      }
      env.oob.fence();
    }, 1);
  });
}

}  // namespace
}  // namespace twinfab
