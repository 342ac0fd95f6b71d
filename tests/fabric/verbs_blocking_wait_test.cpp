// How the hardware runtime waits for completions once a wait has lasted, with blocking
// waits on (TWINFAB_BLOCKING_WAIT, host_runtime.cpp): it sleeps in the kernel on the
// CQs' completion channels instead of napping, wakes for the completion, returns
// Timeout at its deadline and not before, and leaves the CQs in a state that polls and
// destroys cleanly. A test without blocking waits shows what they replace. On whatever
// RDMA device the host has (rxe or siw in the micro-VM); skipped, with the reason, on a
// host without one.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/verbs/host_runtime.hpp"
#include "backends/verbs/verbs_backend.hpp"
#include "fabric/device.hpp"
#include "fabric/error.hpp"
#include "tests/fabric/verbs_test_support.hpp"  // open_or_skip_reason, connect_pair, kTimeout

namespace twinfab {
namespace {

using fabric::CompletionQueue;
using fabric::Device;
using fabric::QpConfig;
using fabric::QueuePair;
using fabric::RecvWr;
using fabric::SendWr;
using fabric::Sge;
using fabric::Status;
using fabric::Transport;
using fabric::WcStatus;
using fabric::WorkCompletion;

/// Times this thread gave up its CPU to wait (sleeps, blocking system calls), so far.
long voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw;
}

/// Two connected RC QPs of one device, each with a CQ of its own; the passive one has a
/// receive posted.
struct Pair {
  std::unique_ptr<Device> device;
  std::unique_ptr<CompletionQueue> active_cq, passive_cq;
  std::unique_ptr<QueuePair> active, passive;
  std::vector<char> active_mem = std::vector<char>(256), passive_mem = std::vector<char>(256);
  std::unique_ptr<fabric::MemoryRegion> active_mr, passive_mr;

  /// Posts one 8-byte send from the active side (the passive side's receive takes it).
  void send() {
    const Sge sge = active_mr->sge(0, 8);
    ASSERT_EQ(active->post_send(SendWr{.wr_id = 7, .sg_list = std::span(&sge, 1)}), Status::Ok) << active->last_error();
  }
};

/// Fills `pair` (device already open); fatal failures end the calling test.
void make_pair(Pair& pair) {
  Device& device = *pair.device;
  auto cq_x = device.create_cq(16);
  auto cq_y = device.create_cq(16);
  QpConfig config;
  config.transport = Transport::RC;
  config.send_cq = config.recv_cq = cq_x.get();
  auto x = device.create_qp(config);
  config.send_cq = config.recv_cq = cq_y.get();
  auto y = device.create_qp(config);
  // On iWARP only the active side may send first.
  const bool x_active = verbs::is_active_side(x->local_address(), y->local_address());
  pair.active_cq = std::move(x_active ? cq_x : cq_y);
  pair.passive_cq = std::move(x_active ? cq_y : cq_x);
  pair.active = std::move(x_active ? x : y);
  pair.passive = std::move(x_active ? y : x);
  pair.active_mr = device.register_memory(pair.active_mem.data(), pair.active_mem.size(), fabric::kAllAccess);
  pair.passive_mr = device.register_memory(pair.passive_mem.data(), pair.passive_mem.size(), fabric::kAllAccess);
  ASSERT_EQ(pair.passive->to_init(), Status::Ok) << pair.passive->last_error();
  const Sge sge = pair.passive_mr->sge(0, 64);
  ASSERT_EQ(pair.passive->post_recv(RecvWr{1, std::span(&sge, 1)}), Status::Ok) << pair.passive->last_error();
  verbs_test::connect_pair(device, *pair.active, *pair.passive);
}

#define MAKE_PAIR_OR_SKIP(pair, blocking)                        \
  Pair pair;                                                     \
  {                                                              \
    std::string why;                                             \
    verbs::OpenOptions options;                                  \
    options.blocking_wait = blocking;                            \
    pair.device = verbs_test::open_or_skip_reason(why, options); \
    if (!pair.device) GTEST_SKIP() << "no RDMA device: " << why; \
  }                                                              \
  make_pair(pair);                                               \
  if (HasFatalFailure()) return

/// Waits through `pair`'s runtime on the passive CQ and polls it into `got` until a
/// completion comes or verbs_test::kTimeout passes (spurious returns are allowed);
/// returns how many were polled, `last` the last wait's status.
size_t wait_and_poll(Pair& pair, std::span<WorkCompletion> got, Status& last) {
  fabric::Runtime& runtime = pair.device->runtime();
  CompletionQueue* const sources[] = {pair.passive_cq.get()};
  const double deadline = runtime.now() + verbs_test::kTimeout;
  size_t n = 0;
  while (n == 0 && runtime.now() < deadline) {
    last = runtime.wait_for_completion(sources, deadline);
    n = pair.passive_cq->poll(got);
  }
  return n;
}

/// Waits, through `pair`'s runtime, for a completion that the active side sends 300 ms
/// later; `switches` is how often the waiting thread gave up its CPU meanwhile.
void wait_for_late_send(Pair& pair, long& switches) {
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    pair.send();
  });
  fabric::Runtime& runtime = pair.device->runtime();
  const long switches_before = voluntary_switches();
  const double start = runtime.now();
  Status s = Status::Ok;
  std::array<WorkCompletion, 4> got{};
  const size_t n = wait_and_poll(pair, got, s);
  switches = voluntary_switches() - switches_before;
  const double waited = runtime.now() - start;
  sender.join();
  ASSERT_EQ(n, 1u) << "no completion after " << waited << " s (last wait: " << fabric::to_string(s) << ")";
  EXPECT_EQ(got[0].status, WcStatus::Success);
  EXPECT_GE(waited, 0.25);
  std::printf("waited %.3f s, %ld voluntary context switches\n", waited, switches);
}

// A wait for a completion that comes 300 ms later sleeps until it comes, and at most
// every kMaxBlockTime (0.1 s) besides.
TEST(VerbsBlockingWait, ALongWaitSleepsUntilTheCompletionComes) {
  MAKE_PAIR_OR_SKIP(pair, true);
  ASSERT_TRUE(static_cast<verbs::HostRuntime&>(pair.device->runtime()).blocks_when_idle());
  long switches = 0;
  wait_for_late_send(pair, switches);
  EXPECT_LE(switches, 20) << "the wait gave up its CPU " << switches << " times";
}

// What blocking replaces (the default): the same wait naps, at most 1 ms at a time,
// ~200 times.
TEST(VerbsBlockingWait, WithoutBlockingTheSameWaitNaps) {
  MAKE_PAIR_OR_SKIP(pair, false);
  long switches = 0;
  wait_for_late_send(pair, switches);
  EXPECT_GE(switches, 100) << "the wait gave up its CPU only " << switches << " times";
}

// With nothing to come, a blocked wait returns Timeout at its deadline, not before,
// and without napping on the way.
TEST(VerbsBlockingWait, ABlockedWaitReturnsTimeoutAtItsDeadline) {
  MAKE_PAIR_OR_SKIP(pair, true);
  fabric::Runtime& runtime = pair.device->runtime();
  CompletionQueue* const sources[] = {pair.passive_cq.get(), pair.active_cq.get()};
  const long switches_before = voluntary_switches();
  const double start = runtime.now();
  const double deadline = start + 0.35;
  Status s = Status::Ok;
  while (s == Status::Ok && runtime.now() < deadline + 1.0) s = runtime.wait_for_completion(sources, deadline);
  const double end = runtime.now();
  const long switches = voluntary_switches() - switches_before;
  EXPECT_EQ(s, Status::Timeout);
  EXPECT_GE(end, deadline);
  EXPECT_LT(end - deadline, 1.0);
  EXPECT_LE(switches, 20) << "the wait gave up its CPU " << switches << " times in " << end - start << " s";
  std::array<WorkCompletion, 4> got{};
  EXPECT_EQ(pair.passive_cq->poll(got), 0u);
}

// A wait that timed out leaves its CQs armed; a completion then raises an event that
// nobody reads. The next wait (a spinning one) must still see the completion, and the
// QPs and CQs must still be destroyed (ibv_destroy_cq waits for the events it handed
// out to be acknowledged: a hang here would be an unacknowledged one).
TEST(VerbsBlockingWait, AnArmedCqWithAnUnreadEventPollsAndDestroys) {
  MAKE_PAIR_OR_SKIP(pair, true);
  fabric::Runtime& runtime = pair.device->runtime();
  CompletionQueue* const sources[] = {pair.passive_cq.get()};
  EXPECT_EQ(runtime.wait_for_completion(sources, runtime.now() + 0.01), Status::Timeout);
  pair.send();
  const double start = runtime.now();
  std::array<WorkCompletion, 4> got{};
  Status last = Status::Ok;
  size_t n = wait_and_poll(pair, got, last);
  ASSERT_EQ(n, 1u);
  // A second blocked wait, on a CQ whose event is unread and whose completion is gone:
  // it consumes the event and times out.
  EXPECT_EQ(runtime.wait_for_completion(sources, runtime.now() + 0.01), Status::Timeout);
  // Armed again and another completion: its event stays unread through destruction.
  EXPECT_EQ(runtime.wait_for_completion(sources, runtime.now() + 0.01), Status::Timeout);
  const Sge sge = pair.passive_mr->sge(0, 64);
  ASSERT_EQ(pair.passive->post_recv(RecvWr{2, std::span(&sge, 1)}), Status::Ok) << pair.passive->last_error();
  pair.send();
  n = 0;
  while (n == 0 && runtime.now() < start + verbs_test::kTimeout) n = pair.passive_cq->poll(got);
  ASSERT_EQ(n, 1u);
  pair.active.reset();
  pair.passive.reset();
  pair.active_cq.reset();
  pair.passive_cq.reset();
}

}  // namespace
}  // namespace twinfab
