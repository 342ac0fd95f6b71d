// Conformance: the hooks of fabric/hook over every backend. Drop-rate experiments run
// on every backend (rxe too), so the DropHook must drop exactly the same UD messages
// everywhere for a given seed, never lose a receive buffer, never touch RC; the
// DelayHook must hold every send for at least its seeded draw, hand it on in time
// (in simulated time on the simulator) and keep a QP's order; the TraceHook must see
// every work request and completion.
#include <algorithm>
#include <cstring>
#include <random>

#include "fabric/hook/delay_hook.hpp"
#include "fabric/hook/drop_hook.hpp"
#include "fabric/hook/trace_hook.hpp"
#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

using fabric::kUdGrhBytes;
using fabric::hook::DelayHook;
using fabric::hook::DropHook;
using fabric::hook::TraceEvent;
using fabric::hook::TraceHook;

class Hooks : public ConformanceTest {};

/// Polls `cq` (behind `hook`) until it returns a completion or the hook has dropped
/// one; returns the completions returned (empty: the message was dropped).
std::vector<WorkCompletion> next_arrival(Device& device, CompletionQueue& cq, const DropHook& hook) {
  const uint64_t seen_before = hook.seen();
  std::vector<WorkCompletion> out;
  const double deadline = device.runtime().now() + kTimeout;
  CompletionQueue* const sources[] = {&cq};
  while (out.empty() && hook.seen() == seen_before) {
    out = poll_now(cq);
    if (!out.empty() || hook.seen() != seen_before) break;
    if (device.runtime().now() >= deadline) {
      ADD_FAILURE() << "the message neither arrived nor was dropped within " << kTimeout << " s";
      break;
    }
    device.runtime().wait(sources, deadline);
  }
  return out;
}

TEST_P(Hooks, DropHookDropsTheSameUdMessagesOnEveryBackendAndKeepsTheBuffer) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().ud) GTEST_SKIP() << lacks("UD");
    constexpr int kMessages = 64;
    constexpr double kP = 0.3;
    constexpr uint64_t kSeed = 1234;
    DropHook hooked_b(b, kP, kSeed);  // before the endpoints: objects die before their device

    Endpoint sender = make_ud_endpoint(a);
    Endpoint receiver = make_ud_endpoint(hooked_b);
    ASSERT_TRUE(sender.qp && receiver.qp);
    auto ah = a.create_address_handle(receiver.qp->local_address());
    RegisteredBuffer src(a, 64);
    RegisteredBuffer dst(hooked_b, kUdGrhBytes + 64);
    const Sge r = dst.sge(0, kUdGrhBytes + 64);
    ASSERT_TRUE(posted(receiver, RecvWr{7, std::span(&r, 1)}));  // the only receive, ever

    // The hook draws one number per UD receive completion: replaying the generator
    // gives the drops every backend must show.
    std::mt19937_64 replay(kSeed);
    int expected_drops = 0;
    for (int i = 0; i < kMessages; ++i) {
      SCOPED_TRACE("message " + std::to_string(i));
      const bool drop = static_cast<double>(replay() >> 11) * 0x1.0p-53 < kP;
      expected_drops += drop;
      fill_pattern(src.bytes(), static_cast<uint32_t>(i));
      const Sge s = src.sge(0, 64);
      ASSERT_TRUE(posted(*sender.qp, SendWr{.wr_id = static_cast<uint64_t>(i), .sg_list = std::span(&s, 1), .ah = ah.get()}));
      auto sent = poll_n(a, *sender.send_cq, 1);
      ASSERT_EQ(sent.size(), 1u);
      ASSERT_EQ(sent[0].status, WcStatus::Success) << describe(sent[0]);

      auto got = next_arrival(hooked_b, *receiver.recv_cq, hooked_b);
      if (drop) {
        EXPECT_TRUE(got.empty()) << "delivered, but the seeded sequence drops it";
      } else {
        ASSERT_EQ(got.size(), 1u) << "dropped, but the seeded sequence keeps it";
        EXPECT_EQ(got[0].wr_id, 7u);
        EXPECT_EQ(got[0].byte_len, kUdGrhBytes + 64);
        EXPECT_EQ(std::memcmp(dst.data() + kUdGrhBytes, src.data(), 64), 0);
        ASSERT_TRUE(posted(receiver, RecvWr{7, std::span(&r, 1)}));
      }
    }
    const DropHook::Counters c = hooked_b.counters();
    EXPECT_EQ(c.seen, uint64_t{kMessages});
    EXPECT_EQ(c.dropped, static_cast<uint64_t>(expected_drops));
    EXPECT_EQ(c.repost_failures, 0u);
    EXPECT_GT(expected_drops, 0);

    // The one receive buffer survived every drop: one more message still lands in it.
    hooked_b.set_probability(0);
    fill_pattern(src.bytes(), 999);
    const Sge s = src.sge(0, 64);
    ASSERT_TRUE(posted(*sender.qp, SendWr{.wr_id = 999, .sg_list = std::span(&s, 1), .ah = ah.get()}));
    auto last = poll_n(hooked_b, *receiver.recv_cq, 1);
    ASSERT_EQ(last.size(), 1u) << "the re-posted receive was lost";
    EXPECT_EQ(last[0].wr_id, 7u);
    EXPECT_EQ(std::memcmp(dst.data() + kUdGrhBytes, src.data(), 64), 0);
  });
}

TEST_P(Hooks, DropHookNeverDropsOnRc) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    DropHook hooked_a(a, 1.0, 1);
    DropHook hooked_b(b, 1.0, 1);
    constexpr int kMessages = 16;
    auto pair = make_connected_pair(hooked_a, hooked_b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(hooked_a, 64), dst(hooked_b, kMessages * 64);
    src.fill_pattern(5);
    for (int i = 0; i < kMessages; ++i) {
      const Sge r = dst.sge(i * 64, 64);
      ASSERT_TRUE(posted(pair->b, RecvWr{static_cast<uint64_t>(i), std::span(&r, 1)}));
    }
    const Sge s = src.sge(0, 64);
    for (int i = 0; i < kMessages; ++i) {
      ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = static_cast<uint64_t>(i), .sg_list = std::span(&s, 1)}));
    }
    auto got = poll_n(hooked_b, *pair->b.recv_cq, kMessages);
    EXPECT_EQ(got.size(), size_t{kMessages}) << "RC loss belongs to the backend, never to the DropHook";
    EXPECT_EQ(hooked_b.dropped(), 0u);
    EXPECT_EQ(poll_n(hooked_a, *pair->a.send_cq, kMessages).size(), size_t{kMessages});
  });
}

TEST_P(Hooks, DelayHookHoldsEachSendForItsDrawAndKeepsRcOrder) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    constexpr int kMessages = 16;
    constexpr double kMean = 200e-6, kJitter = 150e-6;
    constexpr uint64_t kSeed = 99;
    DelayHook hooked_a(a, kMean, kJitter, kSeed);  // before the endpoints: objects die before their device
    auto pair = make_connected_pair(hooked_a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(hooked_a, kMessages * 64), dst(b, kMessages * 64);
    for (int i = 0; i < kMessages; ++i) {
      const Sge r = dst.sge(i * 64, 64);
      ASSERT_TRUE(posted(pair->b, RecvWr{static_cast<uint64_t>(i), std::span(&r, 1)}));
    }
    // What the hook draws (one number per WR, its documented formula), and when each
    // send may leave at the earliest: its draw after its post, and not before the
    // previous one (a QP's order).
    std::mt19937_64 replay(kSeed);
    // On a device whose active side sends first (iWARP), the connection's handshake
    // message went through the hook and took the first draws.
    const uint64_t before = hooked_a.counters().delayed;
    for (uint64_t k = 0; k < before; ++k) replay();
    std::vector<double> earliest;
    Runtime& runtime = hooked_a.runtime();
    for (int i = 0; i < kMessages; ++i) {
      for (int k = 0; k < 64; ++k) src.data()[i * 64 + k] = static_cast<uint8_t>(i * 7 + k);
      const double delay = kMean + kJitter * (2 * (static_cast<double>(replay() >> 11) * 0x1.0p-53) - 1);
      earliest.push_back(std::max(runtime.now() + delay, earliest.empty() ? 0.0 : earliest.back()));
      const Sge s = src.sge(i * 64, 64);
      ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = static_cast<uint64_t>(i), .sg_list = std::span(&s, 1)}));
    }
    EXPECT_GT(hooked_a.held(), 0u) << "sends left at once";
    // The sender's own polls and waits hand the sends on; each completes after its time.
    std::vector<double> completed(kMessages, -1);
    CompletionQueue* const sources[] = {pair->a.send_cq};
    const double deadline = runtime.now() + kTimeout;
    int got = 0;
    while (got < kMessages && runtime.now() < deadline) {
      for (const WorkCompletion& wc : poll_now(*pair->a.send_cq)) {
        ASSERT_EQ(wc.status, WcStatus::Success) << describe(wc);
        ASSERT_LT(wc.wr_id, uint64_t{kMessages});
        completed[wc.wr_id] = runtime.now();
        ++got;
      }
      if (got < kMessages) runtime.wait(sources, deadline);
    }
    ASSERT_EQ(got, kMessages) << "held sends never left";
    for (int i = 0; i < kMessages; ++i) {
      EXPECT_GE(completed[i], earliest[i]) << "send " << i << " completed before its drawn delay had passed";
      if (i > 0) EXPECT_GE(completed[i], completed[i - 1]) << "RC completions out of order";
    }
    // In the simulator the hook's waits end when a send is due: the last one completes
    // within a round trip of its time (under 1 ms on every preset; ~71 us on the
    // iWARP one), not at the wait's deadline (kTimeout, 5 s) as without the cut.
    if (a.capabilities().link == fabric::LinkKind::Simulated) {
      EXPECT_LT(completed.back(), earliest.back() + 1e-3);
    }
    // The receiver got them in posting order, each with its own data.
    auto arrived = poll_n(b, *pair->b.recv_cq, kMessages);
    ASSERT_EQ(arrived.size(), size_t{kMessages});
    for (int i = 0; i < kMessages; ++i) {
      EXPECT_EQ(arrived[i].wr_id, uint64_t(i)) << "RC delivered out of order behind the delay hook";
      EXPECT_EQ(std::memcmp(dst.data() + i * 64, src.data() + i * 64, 64), 0) << "message " << i;
    }
    const DelayHook::Counters c = hooked_a.counters();
    EXPECT_EQ(c.delayed, before + kMessages);
    EXPECT_EQ(c.released, before + kMessages);
    EXPECT_EQ(c.release_failures, 0u);
    EXPECT_EQ(hooked_a.held(), 0u);
  });
}

TEST_P(Hooks, TraceHookSeesEveryWorkRequestAndCompletion) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    std::vector<TraceEvent> trace_a, trace_b;
    TraceHook hooked_a(a, [&](const TraceEvent& e) { trace_a.push_back(e); });
    TraceHook hooked_b(b, [&](const TraceEvent& e) { trace_b.push_back(e); });
    auto pair = make_connected_pair(hooked_a, hooked_b, Transport::RC);
    ASSERT_TRUE(pair);
    trace_a.clear();  // the connection handshake (iWARP) is traced too; start afresh
    trace_b.clear();
    const double start = a.runtime().now();

    RegisteredBuffer src(hooked_a, 256), dst(hooked_b, 256);
    src.fill_pattern(6);
    constexpr int kMessages = 3;
    for (int i = 0; i < kMessages; ++i) {
      const Sge r = dst.sge(i * 64, 64);
      ASSERT_TRUE(posted(pair->b, RecvWr{100u + i, std::span(&r, 1)}));
    }
    for (int i = 0; i < kMessages; ++i) {
      const Sge s = src.sge(0, 10u + i);
      ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 200u + i, .sg_list = std::span(&s, 1)}));
    }
    const Sge w = src.sge(0, 32);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 300, .opcode = Opcode::RdmaWrite, .sg_list = std::span(&w, 1),
                                           .remote_addr = dst.remote_addr(200), .rkey = dst.rkey()}));
    ASSERT_EQ(poll_n(hooked_b, *pair->b.recv_cq, kMessages).size(), size_t{kMessages});
    ASSERT_EQ(poll_n(hooked_a, *pair->a.send_cq, kMessages + 1).size(), size_t{kMessages + 1});
    const double end = a.runtime().now();

    using Kind = TraceEvent::Kind;
    ASSERT_EQ(trace_b.size(), size_t{2 * kMessages});
    for (int i = 0; i < kMessages; ++i) {
      EXPECT_EQ(trace_b[i].kind, Kind::PostRecv);
      EXPECT_EQ(trace_b[i].wr_id, 100u + i);
      EXPECT_EQ(trace_b[i].bytes, 64u);
      EXPECT_EQ(trace_b[i].qp_num, pair->b.qp_num());
      const TraceEvent& c = trace_b[kMessages + i];
      EXPECT_EQ(c.kind, Kind::Completion);
      EXPECT_EQ(c.wr_id, 100u + i);
      EXPECT_EQ(c.wc_opcode, WcOpcode::Recv);
      EXPECT_EQ(c.bytes, 10u + i);
      EXPECT_EQ(c.wc_status, WcStatus::Success);
    }
    ASSERT_EQ(trace_a.size(), size_t{2 * (kMessages + 1)});
    for (int i = 0; i <= kMessages; ++i) {
      const TraceEvent& p = trace_a[i];
      const TraceEvent& c = trace_a[kMessages + 1 + i];
      EXPECT_EQ(p.kind, Kind::PostSend);
      EXPECT_EQ(p.post_status, Status::Ok);
      EXPECT_EQ(c.kind, Kind::Completion);
      EXPECT_EQ(c.wr_id, p.wr_id);
      EXPECT_EQ(c.qp_num, pair->a.qp_num());
    }
    EXPECT_EQ(trace_a[kMessages].opcode, Opcode::RdmaWrite);
    EXPECT_EQ(trace_a[kMessages].bytes, 32u);
    EXPECT_EQ(trace_a[2 * kMessages + 1].wc_opcode, WcOpcode::RdmaWrite);
    for (const auto* trace : {&trace_a, &trace_b}) {
      double last = start;
      for (const TraceEvent& e : *trace) {
        EXPECT_GE(e.time, last) << "trace times must not go backwards";
        EXPECT_LE(e.time, end);
        last = e.time;
      }
    }
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(Hooks);

}  // namespace twinfab::testing
