// twinfab hooks: a seeded per-packet delay with jitter, on every backend.
//
// DelayHook wraps any device. Each work request posted to a send queue (send, RDMA
// write/read, atomic; every transport) is held by the hook and handed to the inner
// device `d` seconds later, d drawn uniformly from [mean - jitter, mean + jitter] by a
// std::mt19937_64 seeded by the caller (53 random bits per WR, as DropHook draws, so
// the sequence is the same on every standard library). What the application sees is a
// fabric whose every message leaves d later: its completion, the data at the target
// and the reply all come d later. Receives are never held.
//
// Order: a QP's work requests are handed on in the order they were posted, whatever
// their draws: each leaves at max(its own time, the time the previous WR of the same QP
// left), so a long draw delays the WRs posted after it on that QP (head-of-line, as a
// slow link does) and no transport sees its send queue reordered. RC, UC and UD keep
// their order per QP; an RDMA-write fast path (data polled in memory) stays behind
// the sends posted before it. WRs of different QPs are independent: a later WR of
// another QP may leave first.
//
// When held WRs leave: a WR due at time t is posted to the inner device by the first
// call into this hook at or after t (a poll of any of its CQs, a post, or its
// runtime's wait/sleep). The hook's runtime() wraps the inner one so that a rank that
// waits (wait, wait_for_completion, wait_for_event) or computes (sleep_for) through
// it wakes at t, posts, and goes on (a spurious wake-up, allowed by Runtime::wait):
// MPI and every agent wait only through device.runtime(), so in the simulator a WR
// leaves exactly at t in simulated time and runs are bit-for-bit reproducible for a
// seed. On hardware, a process computing outside any call into the device posts it
// at its next call (as any progress engine without a progress thread).
//
// Back-pressure: the hook counts the WRs it holds for a QP against the QP's
// max_send_wr: beyond it, post_send returns NoResource (as a full send queue). If the
// inner device still refuses a WR with NoResource when it is due (its send queue is
// full of WRs already handed on), the WR stays first in line and is tried again at the
// next poll or post; waits are not shortened for it (a completion of that QP, which
// frees the queue, wakes the waiter). A WR the inner device refuses otherwise when it
// is due (a QP reset meanwhile; on iWARP a QP in ERR, where posting is refused) is
// lost without a completion, counted in release_failures, its reason in the QP's
// last_error() and the log. A QP in ERR on other devices takes the WR and flushes it
// (WrFlushError), in order. Resetting a QP or destroying it discards its held WRs
// (counted in discarded), as RESET discards outstanding WRs.
//
// Copies: a held WR's SGE list is copied (the caller's span may die after
// post_send, as verbs allows); so is the payload of an Inline WR (the caller may reuse
// its buffer at once). Other buffers must stay valid until completion, as always.
//
// Zero mean and zero jitter change nothing: every WR is forwarded at once and the
// runtime is the inner one's behaviour.
//
// Thread-safe: state under a mutex never held while calling the inner device; only one
// caller hands WRs on at a time (the others go on), so a QP's order holds on hardware
// too.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

#include "fabric/hook/device_decorator.hpp"

namespace twinfab::fabric::hook {

class DelayHook : public DeviceDecorator {
 public:
  struct Counters {
    uint64_t delayed = 0;           ///< WRs held (every WR posted while the delay is on)
    uint64_t released = 0;          ///< of those, handed to the inner device
    uint64_t release_failures = 0;  ///< refused by the inner device when due (lost)
    uint64_t discarded = 0;         ///< dropped with their QP (reset or destroyed)
    double total_delay = 0;         ///< seconds: the sum of (left - posted) over released WRs
  };

  /// mean and jitter in seconds. Throws Error(InvalidArgument) unless both are finite,
  /// 0 <= jitter <= mean (a delay is never negative) and mean <= 3600.
  DelayHook(std::unique_ptr<Device> inner, double mean, double jitter, uint64_t seed);
  DelayHook(Device& inner, double mean, double jitter, uint64_t seed);
  ~DelayHook() override;

  /// The inner runtime, except that waits and sleeps end when a held WR is due, and
  /// post it (see above).
  Runtime& runtime() noexcept override;
  std::unique_ptr<QueuePair> create_qp(const QpConfig& config) override;

  double mean() const noexcept { return mean_; }
  double jitter() const noexcept { return jitter_; }
  Counters counters() const;
  /// WRs held now.
  size_t held() const;
  /// Hands on every held WR that is due (in due order, each QP in post order); returns
  /// how many were handed on. Every poll, post and wait through the hook does this.
  size_t release_due();
  /// The earliest time (inner runtime's clock) a held WR is due, +infinity if none
  /// (WRs waiting for room in a full inner send queue do not count).
  double next_due() const;

  /// The checks of the constructor, for callers that take the values from a user.
  static void check_parameters(double mean, double jitter);

 protected:
  Status on_post_send(QueuePairDecorator& qp, const SendWr& wr) override;
  void on_poll(CompletionQueueDecorator& cq) override;
  void on_qp_destroyed(QueuePairDecorator& qp) override;
  void on_transition(QueuePairDecorator& qp, QpState requested, Status result) override;

 private:
  class DelayRuntime;
  struct Held {
    double posted = 0;
    double due = 0;
    uint64_t order = 0;  ///< posting order over the whole hook: ties of `due` go by it
    SendWr wr;
    std::vector<Sge> sges;
    std::vector<std::byte> inline_data;
  };
  struct QpLine {
    std::deque<Held> held;
    uint32_t capacity = 0;    ///< the QP's max_send_wr
    double last_due = 0;      ///< when the newest WR of the line leaves
    bool blocked = false;     ///< the inner send queue was full: wait for a poll or post
    uint32_t in_release = 0;  ///< popped, being posted to the inner QP right now
  };

  /// 53 random bits -> [0, 1), as DropHook: the same on every standard library.
  double draw();
  void discard(uint32_t qp_num);

  const double mean_;
  const double jitter_;
  std::unique_ptr<DelayRuntime> runtime_;
  mutable std::mutex state_mutex_;
  std::mt19937_64 rng_;
  Counters counters_;
  uint64_t next_order_ = 0;
  size_t held_count_ = 0;
  size_t blocked_count_ = 0;  ///< lines with blocked set
  bool releasing_ = false;
  std::unordered_map<uint32_t, QpLine> lines_;  // by the decorated QP's qp_num
};

}  // namespace twinfab::fabric::hook
