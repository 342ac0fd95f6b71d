// Conformance: runtime agents (Runtime::spawn, fabric::Agent) and event-driven waits
// (Runtime::wait_for_event), on every backend.
// - spawn + join runs the body to its end; destroying an unjoined agent joins it;
//   join() rethrows what escaped the body, once.
// - An agent waits on a CQ of the rank's device and is woken by a completion a peer
//   caused (a send into a receive the agent posted), with each kind of wait.
// - The rank and an agent wait on the same device at once, both are woken.
// - wait_for_event returns at once for a completion already there, Timeout when none
//   comes.
// - AgentMutex (fabric/agent_mutex.hpp) keeps a rank and its agent out of each
//   other's critical sections, also when the holder yields inside one.
// - Bad input: an empty body, an event wait without a source or with a null one, an
//   agent joining itself.
// The simulator's CPU sharing and event latency are measured in tests/sim/agents_test.cpp
// (they need a platform of their own).
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "fabric/agent_mutex.hpp"
#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

using fabric::Agent;

class Agents : public ConformanceTest {};

/// Sleeps (through `rt`) until `flag` is set or kTimeout passed; returns the flag.
bool sleep_until(Runtime& rt, const std::atomic<bool>& flag) {
  const double deadline = rt.now() + kTimeout;
  while (!flag.load() && rt.now() < deadline) rt.sleep_for(1e-5);
  return flag.load();
}

/// The waits an agent may use on a CQ.
enum class WaitKind { Poll, Completion, Event };

Status wait_by(Runtime& rt, WaitKind kind, CompletionQueue* cq, double deadline) {
  CompletionQueue* const sources[] = {cq};
  switch (kind) {
    case WaitKind::Poll: return rt.wait(sources, deadline);
    case WaitKind::Completion: return rt.wait_for_completion(sources, deadline);
    case WaitKind::Event: return rt.wait_for_event(sources, deadline);
  }
  return Status::InvalidArgument;
}

/// An agent on `b` posts a receive, says so, waits on b's receive CQ with `kind`
/// and polls the completion; the rank then sends from `a`. The agent must see the
/// message.
void agent_woken_by_a_peer(Device& a, Device& b, WaitKind kind) {
  if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
  auto pair = make_connected_pair(a, b, Transport::RC);
  ASSERT_TRUE(pair);
  RegisteredBuffer src(a, 256);
  RegisteredBuffer dst(b, 256);
  src.fill_pattern(41);
  dst.fill(0);
  std::atomic<bool> posted_recv{false};
  std::vector<WorkCompletion> got;
  Status waited = Status::InvalidState;
  auto agent = b.runtime().spawn("receiver", [&] {
    Runtime& rt = b.runtime();
    const Sge r = dst.sge(0, 256);
    if (!posted(pair->b, RecvWr{21, std::span(&r, 1)})) return;
    posted_recv = true;
    const double deadline = rt.now() + kTimeout;
    while (got.empty() && rt.now() < deadline) {
      waited = wait_by(rt, kind, pair->b.recv_cq, deadline);
      got = poll_now(*pair->b.recv_cq);
    }
  });
  ASSERT_TRUE(sleep_until(a.runtime(), posted_recv)) << "the agent never posted its receive";
  const Sge s = src.sge(0, 256);
  ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 22, .flags = SendFlags::Signaled, .sg_list = std::span(&s, 1)}));
  const auto sent = poll_n(a, *pair->a.send_cq, 1);
  agent->join();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, WcStatus::Success) << describe(sent[0]);
  EXPECT_EQ(waited, Status::Ok);
  ASSERT_EQ(got.size(), 1u) << "the agent was not woken by the peer's send";
  EXPECT_EQ(got[0].wr_id, 21u);
  EXPECT_EQ(got[0].status, WcStatus::Success) << describe(got[0]);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), 256), 0);
}

TEST_P(Agents, SpawnAndJoinRunTheBodyToItsEnd) {
  run_on_backend([&](Device& a, Device&) {
    Runtime& rt = a.runtime();
    int steps = 0;
    const double start = rt.now();
    auto agent = rt.spawn("stepper", [&] {
      for (int i = 0; i < 3; ++i) {
        rt.sleep_for(1e-4);
        rt.yield();
        ++steps;
      }
    });
    EXPECT_EQ(agent->name(), "stepper");
    agent->join();
    EXPECT_EQ(steps, 3);
    EXPECT_GE(rt.now() - start, 3e-4) << "join returned before the agent's sleeps were over";
    agent->join();  // a second join returns at once
    EXPECT_EQ(steps, 3);
  });
}

TEST_P(Agents, OnAgentTellsTheAgentsFromTheRank) {
  run_on_backend([&](Device& a, Device&) {
    Runtime& rt = a.runtime();
    EXPECT_FALSE(rt.on_agent()) << "the rank, before any agent";
    std::atomic<int> seen_in_agent{-1}, seen_in_inner{-1};
    std::atomic<int> seen_by_rank_meanwhile{-1};
    auto agent = rt.spawn("who", [&] {
      seen_in_agent = rt.on_agent() ? 1 : 0;
      auto inner = rt.spawn("inner", [&] { seen_in_inner = rt.on_agent() ? 1 : 0; });
      inner->join();
      rt.sleep_for(1e-4);
    });
    seen_by_rank_meanwhile = rt.on_agent() ? 1 : 0;
    agent->join();
    EXPECT_EQ(seen_in_agent.load(), 1);
    EXPECT_EQ(seen_in_inner.load(), 1) << "an agent's agent is an agent too";
    EXPECT_EQ(seen_by_rank_meanwhile.load(), 0) << "the rank while its agent lives";
    EXPECT_FALSE(rt.on_agent()) << "the rank, after the join";
  });
}

TEST_P(Agents, IdleForWaitsItsTimeInTheRankAndInAnAgent) {
  run_on_backend([&](Device& a, Device&) {
    Runtime& rt = a.runtime();
    double start = rt.now();
    rt.idle_for(2e-4);
    EXPECT_GE(rt.now() - start, 2e-4);
    double agent_waited = -1;
    auto agent = rt.spawn("idler", [&] {
      const double t = rt.now();
      rt.idle_for(3e-4);
      agent_waited = rt.now() - t;
    });
    agent->join();
    EXPECT_GE(agent_waited, 3e-4);
    start = rt.now();
    rt.idle_for(0);  // nothing to wait for
    EXPECT_LT(rt.now() - start, 0.1);
    EXPECT_THROW(rt.idle_for(std::nan("")), fabric::Error);
  });
}

TEST_P(Agents, DestroyingAnUnjoinedAgentJoinsIt) {
  run_on_backend([&](Device& a, Device&) {
    Runtime& rt = a.runtime();
    std::atomic<bool> finished{false};
    auto agent = rt.spawn("unjoined", [&] {
      rt.sleep_for(1e-3);
      finished = true;
    });
    agent.reset();
    EXPECT_TRUE(finished.load());
  });
}

TEST_P(Agents, AnAgentMaySpawnAndJoinAnAgent) {
  run_on_backend([&](Device& a, Device&) {
    Runtime& rt = a.runtime();
    int inner_ran = 0;
    auto outer = rt.spawn("outer", [&] {
      auto inner = rt.spawn("inner", [&] {
        rt.sleep_for(1e-4);
        ++inner_ran;
      });
      inner->join();
    });
    outer->join();
    EXPECT_EQ(inner_ran, 1);
  });
}

TEST_P(Agents, AnExceptionEscapingTheBodyIsRethrownByJoinOnce) {
  run_on_backend([&](Device& a, Device&) {
    auto agent = a.runtime().spawn("thrower", [] { throw std::runtime_error("agent body failed"); });
    try {
      agent->join();
      ADD_FAILURE() << "join() did not rethrow the body's exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "agent body failed");
    }
    EXPECT_NO_THROW(agent->join());
  });
}

TEST_P(Agents, AnAgentPollingWaitIsWokenByAPeersSend) {
  run_on_backend([&](Device& a, Device& b) { agent_woken_by_a_peer(a, b, WaitKind::Poll); });
}

TEST_P(Agents, AnAgentWaitingForACompletionIsWokenByAPeersSend) {
  run_on_backend([&](Device& a, Device& b) { agent_woken_by_a_peer(a, b, WaitKind::Completion); });
}

TEST_P(Agents, AnAgentWaitingForAnEventIsWokenByAPeersSend) {
  run_on_backend([&](Device& a, Device& b) { agent_woken_by_a_peer(a, b, WaitKind::Event); });
}

TEST_P(Agents, TheRankAndAnAgentWaitOnTheDeviceAtOnce) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    constexpr int kMessages = 20;
    RegisteredBuffer src(a, 64);
    RegisteredBuffer dst(b, 64 * kMessages);
    src.fill_pattern(43);
    for (int i = 0; i < kMessages; ++i) {
      const Sge r = dst.sge(64 * i, 64);
      ASSERT_TRUE(posted(pair->b, RecvWr{static_cast<uint64_t>(i), std::span(&r, 1)}));
    }
    // The agent takes the receives on b while the rank sends on a and waits for each
    // send's completion: both block on the same runtime's devices in turn.
    std::atomic<bool> started{false};
    int received = 0;
    auto agent = b.runtime().spawn("consumer", [&] {
      Runtime& rt = b.runtime();
      started = true;
      const double deadline = rt.now() + kTimeout;
      while (received < kMessages && rt.now() < deadline) {
        CompletionQueue* const sources[] = {pair->b.recv_cq};
        rt.wait_for_completion(sources, deadline);
        for (const auto& wc : poll_now(*pair->b.recv_cq)) {
          EXPECT_EQ(wc.status, WcStatus::Success) << describe(wc);
          EXPECT_EQ(wc.wr_id, static_cast<uint64_t>(received));
          ++received;
        }
      }
    });
    ASSERT_TRUE(sleep_until(a.runtime(), started));
    int sent = 0;
    for (int i = 0; i < kMessages; ++i) {
      const Sge s = src.sge(0, 64);
      ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 100u + i, .flags = SendFlags::Signaled, .sg_list = std::span(&s, 1)}));
      const auto wc = poll_n(a, *pair->a.send_cq, 1);
      ASSERT_EQ(wc.size(), 1u);
      EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
      ++sent;
    }
    agent->join();
    EXPECT_EQ(sent, kMessages);
    EXPECT_EQ(received, kMessages);
  });
}

TEST_P(Agents, AnEventWaitReturnsAtOnceForACompletionAlreadyThereAndTimesOutWithout) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    Runtime& rt = b.runtime();
    CompletionQueue* const sources[] = {pair->b.recv_cq};
    // Nothing comes: Timeout, not before the deadline.
    const double deadline = rt.now() + kQuietWindow;
    EXPECT_EQ(rt.wait_for_event(sources, deadline), Status::Timeout);
    EXPECT_GE(rt.now(), deadline);
    // A completion already in the CQ: Ok without blocking; it stays for poll().
    RegisteredBuffer src(a, 8);
    RegisteredBuffer dst(b, 8);
    const Sge r = dst.sge(0, 8);
    const Sge s = src.sge(0, 8);
    ASSERT_TRUE(posted(pair->b, RecvWr{5, std::span(&r, 1)}));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 6, .flags = SendFlags::Signaled, .sg_list = std::span(&s, 1)}));
    ASSERT_EQ(poll_n(a, *pair->a.send_cq, 1).size(), 1u);
    ASSERT_EQ(rt.wait_for_event(sources, rt.now() + kTimeout), Status::Ok);
    const double before = rt.now();
    EXPECT_EQ(rt.wait_for_event(sources, before + kTimeout), Status::Ok);
    if (a.capabilities().link == fabric::LinkKind::Simulated) {
      EXPECT_EQ(rt.now(), before);
    }
    const auto wc = poll_now(*pair->b.recv_cq);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].wr_id, 5u);
  });
}

TEST_P(Agents, AnAgentMutexKeepsTheRankAndItsAgentApart) {
  run_on_backend([&](Device& a, Device&) {
    Runtime& rt = a.runtime();
    fabric::AgentMutex mutex(rt);
    constexpr int kRounds = 200;
    int counter = 0;        // guarded by mutex; read, yielded over, then written
    int inside = 0;         // holders at once, guarded by mutex too
    std::atomic<int> overlaps{0};
    std::atomic<bool> refused_while_held{false};
    auto round = [&] {
      std::lock_guard<fabric::AgentMutex> hold(mutex);
      if (++inside != 1) ++overlaps;
      const int seen = counter;
      rt.yield();  // the other side runs now (simulator) or may run (hardware)
      counter = seen + 1;
      --inside;
    };
    auto agent = rt.spawn("mutex-agent", [&] {
      for (int i = 0; i < kRounds; ++i) round();
    });
    for (int i = 0; i < kRounds; ++i) round();
    {
      std::lock_guard<fabric::AgentMutex> hold(mutex);
      std::atomic<bool> tried{false};
      auto prober = rt.spawn("mutex-prober", [&] {
        refused_while_held = !mutex.try_lock();
        tried = true;
      });
      // The prober must run while this side holds the mutex: wait (yielding only).
      while (!tried.load()) rt.yield();
      prober->join();
    }
    agent->join();
    EXPECT_EQ(counter, 2 * kRounds) << "updates were lost: both sides were inside at once";
    EXPECT_EQ(overlaps.load(), 0);
    EXPECT_TRUE(refused_while_held.load()) << "try_lock() took a mutex another side held";
    EXPECT_TRUE(mutex.try_lock()) << "the mutex stayed held after every holder let go";
    mutex.unlock();
  });
}

TEST_P(Agents, BadInputIsRefusedWithAClearError) {
  run_on_backend([&](Device& a, Device&) {
    Runtime& rt = a.runtime();
    auto expect_error = [](Status status, const std::function<void()>& f, const char* what) {
      try {
        f();
        ADD_FAILURE() << what << ": no error";
      } catch (const fabric::Error& e) {
        EXPECT_EQ(e.status(), status) << what << ": " << e.what();
        EXPECT_GT(std::strlen(e.what()), 20u) << what << ": the message should say what to do";
      }
    };
    expect_error(Status::InvalidArgument, [&] { rt.spawn("empty", {}); }, "spawn with an empty body");
    expect_error(Status::InvalidArgument, [&] { rt.wait_for_event({}, rt.now() + 1e-3); },
                 "wait_for_event without a source");
    CompletionQueue* const null_source[] = {nullptr};
    expect_error(Status::InvalidArgument, [&] { rt.wait_for_event(null_source, rt.now() + 1e-3); },
                 "wait_for_event on a null CQ");
    auto cq = a.create_cq(4);
    CompletionQueue* const sources[] = {cq.get()};
    expect_error(Status::InvalidArgument, [&] { rt.wait_for_event(sources, std::nan("")); },
                 "wait_for_event until NaN");
    // An agent that joins itself would wait forever: refused.
    std::atomic<Agent*> self{nullptr};
    std::atomic<bool> refused{false};
    auto agent = rt.spawn("self-joiner", [&] {
      const double deadline = rt.now() + kTimeout;
      while (self.load() == nullptr && rt.now() < deadline) rt.sleep_for(1e-5);
      if (self.load() == nullptr) return;
      try {
        self.load()->join();
      } catch (const fabric::Error& e) {
        refused = e.status() == Status::InvalidState;
      }
    });
    self = agent.get();
    agent->join();
    EXPECT_TRUE(refused.load()) << "an agent's join() of itself was not refused with InvalidState";
  });
}

TWINFAB_INSTANTIATE_CONFORMANCE(Agents);

}  // namespace
}  // namespace twinfab::testing
