// Agents in the simulator (docs/agents.md): what the conformance suite cannot measure
// because it needs a platform of its own.
// - CPU time: two actors computing on a one-core host each take twice as long; on two
//   cores, as long as alone; a polling agent slows the rank down as a computing one
//   does; an agent blocked in wait_for_event costs the rank nothing.
// - An event wait returns hca.event_latency after the completion that a polling wait
//   returns at.
// - An agent cannot wait on a CQ of another rank, an unrelated actor cannot use a
//   rank's runtime (clear errors); waits that can never end are deadlocks, not hangs.
// - An agent that ends while the rank is waking it leaves the rank's other agents
//   intact.
// - All of it is deterministic.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "backends/sim/simulation.hpp"
#include "fabric/error.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

using fabric::CompletionQueue;
using fabric::Status;

constexpr double kWork = 1e-3;  // simulated CPU seconds of each computation
constexpr double kExact = 1e-12;

sim::Platform platform(unsigned cores, double event_latency = 0) {
  sim::Platform p = sim::load_platform("ideal");
  p.cores = cores;
  p.hca.event_latency = event_latency;
  return p;
}

/// What the rank's agent does while the rank computes kWork.
enum class AgentDoes { Nothing, Computes, Polls, WaitsForEvent, Idles };

struct Ends {
  double rank = -1;   ///< when the rank's sleep_for(kWork) returned
  double agent = -1;  ///< when the agent's activity ended
};

/// One driver on host 0 with `cores` cores: it spawns an agent that does `what`, then
/// computes kWork itself.
Ends run_beside(unsigned cores, AgentDoes what) {
  Ends ends;
  sim::Simulation s(platform(cores));
  s.run_single([&] {
    auto device = s.open_device(0);
    fabric::Runtime& rt = device->runtime();
    auto cq = device->create_cq(4);  // nothing ever completes in it
    CompletionQueue* const sources[] = {cq.get()};
    const double start = rt.now();
    std::unique_ptr<fabric::Agent> agent;
    switch (what) {
      case AgentDoes::Nothing: break;
      case AgentDoes::Computes:
        agent = rt.spawn("computer", [&] {
          rt.sleep_for(kWork);
          ends.agent = rt.now() - start;
        });
        break;
      case AgentDoes::Polls:
        agent = rt.spawn("poller", [&] {
          EXPECT_EQ(rt.wait_for_completion(sources, start + 5 * kWork), Status::Timeout);
          ends.agent = rt.now() - start;
        });
        break;
      case AgentDoes::Idles:
        agent = rt.spawn("idler", [&] {
          rt.idle_for(5 * kWork);
          ends.agent = rt.now() - start;
        });
        break;
      case AgentDoes::WaitsForEvent:
        agent = rt.spawn("sleeper", [&] {
          EXPECT_EQ(rt.wait_for_event(sources, start + 5 * kWork), Status::Timeout);
          ends.agent = rt.now() - start;
        });
        break;
    }
    rt.sleep_for(kWork);
    ends.rank = rt.now() - start;
    if (agent) agent->join();
  });
  return ends;
}

TEST(AgentsCpu, ARankAloneComputesAtFullSpeed) {
  testing::run_forked([] { EXPECT_NEAR(run_beside(1, AgentDoes::Nothing).rank, kWork, kExact); });
}

TEST(AgentsCpu, TwoComputingActorsOnOneCoreEachTakeTwiceAsLong) {
  testing::run_forked([] {
    const Ends e = run_beside(1, AgentDoes::Computes);
    EXPECT_NEAR(e.rank, 2 * kWork, kExact);
    EXPECT_NEAR(e.agent, 2 * kWork, kExact);
  });
}

TEST(AgentsCpu, TwoComputingActorsOnTwoCoresTakeAsLongAsAlone) {
  testing::run_forked([] {
    const Ends e = run_beside(2, AgentDoes::Computes);
    EXPECT_NEAR(e.rank, kWork, kExact);
    EXPECT_NEAR(e.agent, kWork, kExact);
  });
}

TEST(AgentsCpu, APollingAgentTakesHalfOfASharedCore) {
  testing::run_forked([] {
    const Ends e = run_beside(1, AgentDoes::Polls);
    EXPECT_NEAR(e.rank, 2 * kWork, kExact) << "a polling wait is CPU time";
    EXPECT_NEAR(e.agent, 5 * kWork, kExact) << "its deadline is kept";
  });
}

TEST(AgentsCpu, AnAgentBlockedOnEventsCostsNoCpu) {
  testing::run_forked([] {
    const Ends e = run_beside(1, AgentDoes::WaitsForEvent);
    EXPECT_NEAR(e.rank, kWork, kExact);
    EXPECT_NEAR(e.agent, 5 * kWork, kExact);
  });
}

TEST(AgentsCpu, AnIdlingAgentCostsNoCpu) {
  testing::run_forked([] {
    const Ends e = run_beside(1, AgentDoes::Idles);
    EXPECT_NEAR(e.rank, kWork, kExact) << "idle_for is no computation";
    EXPECT_NEAR(e.agent, 5 * kWork, kExact);
  });
}

TEST(AgentsCpu, AnAgentThatOversubscribesTheHostSlowsDownWhoWasAlreadyComputing) {
  // Two cores. Agent A computes 1 ms from 0 (a core each: no sharing). At 0.5 ms the
  // driver spawns agent B: three actors on two cores, so A (0.5 ms left), B and the
  // driver (1 ms each) run at 2/3 speed: A ends at 0.5 + 0.75 = 1.25 ms, having let B
  // and the driver do 0.5 ms each; those two then have a core each: 1.75 ms.
  testing::run_forked([] {
    double a_end = -1, b_end = -1, driver_end = -1;
    sim::Simulation s(platform(2));
    s.run_single([&] {
      auto device = s.open_device(0);
      fabric::Runtime& rt = device->runtime();
      auto a = rt.spawn("a", [&] {
        rt.sleep_for(kWork);
        a_end = rt.now();
      });
      rt.sleep_for(kWork / 2);
      auto b = rt.spawn("b", [&] {
        rt.sleep_for(kWork);
        b_end = rt.now();
      });
      rt.sleep_for(kWork);
      driver_end = rt.now();
      a->join();
      b->join();
    });
    EXPECT_NEAR(a_end, 1.25 * kWork, kExact);
    EXPECT_NEAR(b_end, 1.75 * kWork, kExact);
    EXPECT_NEAR(driver_end, 1.75 * kWork, kExact);
  });
}

TEST(AgentsCpu, SharingIsDeterministic) {
  testing::run_forked([] {
    const Ends first = run_beside(1, AgentDoes::Polls);
    const Ends second = run_beside(1, AgentDoes::Polls);
    EXPECT_EQ(first.rank, second.rank);
    EXPECT_EQ(first.agent, second.agent);
  });
}

/// When the agent's wait on b's receive CQ returned, relative to the send, with a
/// polling wait or an event wait. Two cores: the agent's polling does not slow the
/// driver down, so the send leaves at the same date either way.
double woken_after_send(bool event, double event_latency) {
  double woken = -1, sent_at = -1;
  sim::Simulation s(platform(2, event_latency));
  s.run_single([&] {
    auto a = s.open_device(0);
    auto b = s.open_device(1);
    auto sa = testing::make_side(*a, fabric::Transport::RC, 64);
    auto sb = testing::make_side(*b, fabric::Transport::RC, 64);
    testing::connect_sides(sa, sb);
    fabric::Runtime& rt = a->runtime();
    const fabric::Sge r = sb.mr->sge(0, 64);
    ASSERT_EQ(sb.qp->post_recv(fabric::RecvWr{1, std::span(&r, 1)}), Status::Ok);
    auto agent = rt.spawn("receiver", [&] {
      CompletionQueue* const sources[] = {sb.cq.get()};
      const double deadline = rt.now() + 1.0;
      const Status st = event ? rt.wait_for_event(sources, deadline) : rt.wait_for_completion(sources, deadline);
      EXPECT_EQ(st, Status::Ok);
      woken = rt.now();
    });
    rt.sleep_for(1e-4);
    sent_at = rt.now();
    const fabric::Sge snd = sa.mr->sge(0, 64);
    ASSERT_EQ(sa.qp->post_send(fabric::SendWr{.wr_id = 2, .flags = fabric::SendFlags::Signaled,
                                              .sg_list = std::span(&snd, 1)}),
              Status::Ok);
    agent->join();
  });
  return woken - sent_at;
}

TEST(AgentsEvents, AnEventWaitWakesTheLatencyKeyAfterAPollingOne) {
  testing::run_forked([] {
    constexpr double kLatency = 7e-6;
    const double polled = woken_after_send(false, kLatency);
    const double evented = woken_after_send(true, kLatency);
    EXPECT_GT(polled, 0);
    EXPECT_NEAR(evented - polled, kLatency, kExact);
  });
}

TEST(AgentsEvents, WithoutLatencyAnEventWaitWakesWithThePoller) {
  testing::run_forked([] {
    EXPECT_NEAR(woken_after_send(true, 0), woken_after_send(false, 0), kExact);
  });
}

TEST(AgentsLifetime, AnAgentThatEndsWhileTheRankWakesItLeavesTheOtherAgentsIntact) {
  // Waking a blocked actor is a SimGrid simcall, during which other actors run. Here
  // the driver, joining agent `first`, processes the arrival `first` waits for and
  // wakes it; `first` (no event latency) returns at once and leaves the runtime while
  // the driver is still going through the runtime's waiters. It once read the slot
  // `first` had left (a segmentation fault; MPICH's win_shared_put_flush_get under
  // TWINFAB_RMA_LOCK=event, whose two windows each have a lock agent). The second
  // agent must still be woken by its own completion afterwards.
  testing::run_forked([] {
    bool first_woken = false, second_woken = false;
    sim::Simulation s(platform(2, 0));
    s.run_single([&] {
      auto a = s.open_device(0);
      auto b = s.open_device(1);
      auto sa = testing::make_side(*a, fabric::Transport::RC, 64);
      auto sb = testing::make_side(*b, fabric::Transport::RC, 64);
      auto sc = testing::make_side(*b, fabric::Transport::RC, 64);
      auto sd = testing::make_side(*a, fabric::Transport::RC, 64);
      testing::connect_sides(sa, sb);
      testing::connect_sides(sd, sc);
      fabric::Runtime& rt = a->runtime();
      for (testing::SimSide* side : {&sb, &sc}) {
        const fabric::Sge r = side->mr->sge(0, 64);
        ASSERT_EQ(side->qp->post_recv(fabric::RecvWr{1, std::span(&r, 1)}), Status::Ok);
      }
      auto waits_on = [&](testing::SimSide& side, bool& woken) {
        return [&] {
          CompletionQueue* const sources[] = {side.cq.get()};
          EXPECT_EQ(rt.wait_for_event(sources, rt.now() + 1.0), Status::Ok);
          woken = true;
        };
      };
      auto first = rt.spawn("first", waits_on(sb, first_woken));
      auto second = rt.spawn("second", waits_on(sc, second_woken));
      rt.sleep_for(1e-5);
      const fabric::Sge snd = sa.mr->sge(0, 64);
      ASSERT_EQ(sa.qp->post_send(fabric::SendWr{.wr_id = 2, .flags = fabric::SendFlags::Signaled,
                                                .sg_list = std::span(&snd, 1)}),
                Status::Ok);
      first->join();
      EXPECT_TRUE(first_woken);
      EXPECT_FALSE(second_woken);
      const fabric::Sge snd2 = sd.mr->sge(0, 64);
      ASSERT_EQ(sd.qp->post_send(fabric::SendWr{.wr_id = 3, .flags = fabric::SendFlags::Signaled,
                                                .sg_list = std::span(&snd2, 1)}),
                Status::Ok);
      second->join();
      EXPECT_TRUE(second_woken);
    });
  });
}

TEST(AgentsErrors, AnAgentCannotWaitOnACqOfAnotherRank) {
  testing::run_forked([] {
    sim::Simulation s(platform(0));
    std::atomic<CompletionQueue*> theirs{nullptr};
    std::atomic<bool> done{false};
    s.run(2, [&](sim::RankEnv& env) {
      if (env.rank == 1) {
        auto cq = env.device.create_cq(4);
        theirs = cq.get();
        while (!done) env.runtime.sleep_for(1e-5);
        return;
      }
      while (theirs.load() == nullptr) env.runtime.sleep_for(1e-5);
      auto agent = env.runtime.spawn("trespasser", [&] {
        CompletionQueue* const sources[] = {theirs.load()};
        env.runtime.wait_for_event(sources, env.runtime.now() + 1e-3);
      });
      try {
        agent->join();
        ADD_FAILURE() << "waiting on another rank's CQ was accepted";
      } catch (const fabric::Error& e) {
        EXPECT_EQ(e.status(), Status::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find("another rank"), std::string::npos) << e.what();
      }
      done = true;
    });
  });
}

TEST(AgentsErrors, AnUnrelatedActorCannotUseARanksRuntime) {
  testing::run_forked([] {
    sim::Simulation s(platform(0));
    std::atomic<fabric::Runtime*> rank0{nullptr};
    std::atomic<bool> done{false};
    s.run(2, [&](sim::RankEnv& env) {
      if (env.rank == 0) {
        // With an agent, the runtime tells its actors apart and refuses others.
        auto agent = env.runtime.spawn("idle", [&] {
          while (!done) env.runtime.sleep_for(1e-5);
        });
        rank0 = &env.runtime;
        agent->join();
        return;
      }
      while (rank0.load() == nullptr) env.runtime.sleep_for(1e-5);
      try {
        rank0.load()->sleep_for(1e-6);
        ADD_FAILURE() << "rank 1 used rank 0's runtime";
      } catch (const fabric::Error& e) {
        EXPECT_EQ(e.status(), Status::InvalidState);
        EXPECT_NE(std::string(e.what()).find("neither the rank"), std::string::npos) << e.what();
      }
      done = true;
    });
  });
}

TEST(AgentsErrors, AJoinThatCanNeverReturnIsADeadlockNotAHang) {
  testing::run_forked([] {
    sim::Simulation s(platform(0));
    EXPECT_THROW(s.run_single([&] {
      auto device = s.open_device(0);
      auto cq = device->create_cq(4);
      CompletionQueue* const sources[] = {cq.get()};
      auto agent = device->runtime().spawn("forever", [&] {
        device->runtime().wait_for_event(sources, fabric::Runtime::kForever);
      });
      agent->join();
    }), fabric::Error);
  });
}

TEST(AgentsErrors, APollingWaitThatCanNeverEndOnASharedCoreIsADeadlockNotAHang) {
  // SimGrid sees a busy execution, not a blocked actor, so the runtime itself reports
  // it once the execution ran out.
  testing::run_forked([] {
    sim::Simulation s(platform(1));
    try {
      s.run_single([&] {
        auto device = s.open_device(0);
        auto cq = device->create_cq(4);
        CompletionQueue* const sources[] = {cq.get()};
        auto agent = device->runtime().spawn("spinner", [&] {
          device->runtime().wait_for_completion(sources, fabric::Runtime::kForever);
        });
        agent->join();
      });
      ADD_FAILURE() << "an endless polling wait ended";
    } catch (const fabric::Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidState);
      EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    }
  });
}

}  // namespace
}  // namespace twinfab
