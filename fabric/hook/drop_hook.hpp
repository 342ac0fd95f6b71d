// twinfab hooks: seeded message loss on receive for unreliable transports (UD, UC).
//
// DropHook wraps any device. Each successful receive completion of a UD or UC QP
// (opcode Recv or RecvRdmaWithImm) is dropped with probability p, drawn from a
// std::mt19937_64 seeded by the caller, so the same seed and the same sequence of
// receive completions drop the same messages, on every backend and platform. A
// dropped message is, for the application, a message the network lost: its
// completion is never returned by poll(), and the receive buffer it consumed is
// posted again (same wr_id, same SGE list) to the same QP or SRQ, so no buffer is
// lost. The re-posted receive goes to the back of the receive queue.
//
// RC is never touched: RC loss is the backend's reliability model (retransmission,
// retry-exceeded). Only receive completions are dropped: on UC, an RDMA write without
// immediate lands regardless (there is no receive to drop), and a dropped
// write-with-immediate has placed its data but loses its notification, which is what
// a lost last packet does on real UC.
//
// To re-post, the hook records every receive posted to a UD/UC QP or to an SRQ (its
// wr_id and a copy of its SGE list) until its completion is polled. Receive
// completions of one receive queue are matched by wr_id, oldest first, so outstanding
// receives should carry distinct wr_ids per queue (as every receive-buffer pool
// does). Records of receives flushed with a completion whose opcode is not a receive
// opcode are released when the QP is reset or destroyed.
//
// Counters are cumulative over the hook's life. Thread-safe: state is under a mutex
// that is not held while calling the inner device.
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

class DropHook : public DeviceDecorator {
 public:
  struct Counters {
    uint64_t seen = 0;             ///< successful UD/UC receive completions considered
    uint64_t dropped = 0;          ///< of those, dropped (and their receive re-posted)
    uint64_t repost_failures = 0;  ///< re-posts the inner QP/SRQ refused (e.g. QP in error)
  };

  /// Throws Error(InvalidArgument) unless 0 <= probability <= 1.
  DropHook(std::unique_ptr<Device> inner, double probability, uint64_t seed);
  DropHook(Device& inner, double probability, uint64_t seed);

  /// Changes p from now on (the random stream continues). Throws like the constructor.
  void set_probability(double probability);
  double probability() const;

  Counters counters() const;
  uint64_t seen() const { return counters().seen; }
  uint64_t dropped() const { return counters().dropped; }

 protected:
  Status on_post_recv(QueuePairDecorator& qp, const RecvWr& wr) override;
  Status on_srq_post_recv(SharedReceiveQueueDecorator& srq, const RecvWr& wr) override;
  CompletionVerdict on_poll_completion(CompletionQueueDecorator& cq, const WorkCompletion& wc) override;
  void on_qp_destroyed(QueuePairDecorator& qp) override;
  void on_srq_destroyed(SharedReceiveQueueDecorator& srq) override;
  void on_transition(QueuePairDecorator& qp, QpState requested, Status result) override;

 private:
  using SgeList = std::vector<Sge>;
  /// Outstanding receives of one receive queue (a QP's or an SRQ), by wr_id.
  using Ledger = std::unordered_map<uint64_t, std::deque<SgeList>>;

  static bool droppable(Transport t) noexcept { return t == Transport::UD || t == Transport::UC; }
  static void check_probability(double p);
  void remember(const void* queue, const RecvWr& wr);
  /// Removes the newest record of `wr_id` (a post that failed).
  void forget_last(const void* queue, uint64_t wr_id);
  void forget_last_locked(const void* queue, uint64_t wr_id);

  mutable std::mutex state_mutex_;
  double probability_;
  std::mt19937_64 rng_;
  Counters counters_;
  std::unordered_map<const void*, Ledger> ledgers_;
};

}  // namespace twinfab::fabric::hook
