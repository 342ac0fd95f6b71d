// Internal: a simulated queue pair — the requester (send queue) side and the state the
// responder side keeps (receive queue, expected sequence number, held arrivals).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <string>
#include <vector>

#include "backends/sim/icm_cache.hpp"
#include "backends/sim/ring_queue.hpp"
#include "backends/sim/sim_objects.hpp"
#include "backends/sim/wire_message.hpp"
#include "fabric/queue_pair.hpp"

namespace twinfab::sim {

class SimDevice;

/// An outstanding send-queue work request. Completions leave the send queue in
/// posting order, as verbs requires.
struct SqEntry {
  uint64_t wr_id = 0;
  uint64_t seq = 0;
  uint32_t byte_len = 0;
  fabric::WcOpcode opcode = fabric::WcOpcode::Send;
  fabric::WcStatus status = fabric::WcStatus::Success;
  bool signaled = true;
  bool done = false;
  bool read_or_atomic = false;
};

class SimQueuePair final : public fabric::QueuePair {
 public:
  SimQueuePair(SimDevice& device, const fabric::QpConfig& config);
  ~SimQueuePair() override;

  uint32_t qp_num() const noexcept override { return qpn_; }
  /// How packets and timers name this QP (qp_ref.hpp).
  QpRef ref() noexcept { return {this, live_id_}; }
  /// This QP's place in its HCA's context cache.
  IcmCache::Entry& icm_entry() noexcept { return icm_entry_; }
  fabric::Transport transport() const noexcept override { return config_.transport; }
  fabric::QpState state() const noexcept override { return state_; }
  fabric::Address local_address() const override;

  fabric::Status to_init() override;
  fabric::Status to_rtr(const fabric::Address* remote) override;
  fabric::Status to_rts() override;
  fabric::Status to_error() override;
  fabric::Status to_reset() override;

  fabric::Status post_send(const fabric::SendWr& wr) override;
  fabric::Status post_recv(const fabric::RecvWr& wr) override;
  const std::string& last_error() const noexcept override { return last_error_; }

  // --- used by the device (responder side and completion delivery) ---
  SimDevice& device() noexcept { return device_; }
  /// The owning context's runtime (without a visit to the context).
  SimRuntime& runtime() noexcept { return runtime_; }
  /// The owning context's id, readable after the context closed (SimFabric::device_alive).
  uint32_t device_id() const noexcept { return device_id_; }
  const fabric::QpConfig& config() const noexcept { return config_; }
  /// The RC reliability settings it runs with: the config's, else the platform's [hca].
  const fabric::RcReliability& reliability() const noexcept { return reliability_; }
  /// The send CQ (null once it was destroyed under this QP: forget()).
  SimCompletionQueue* send_cq() const noexcept { return send_cq_; }
  /// Lets go of `cq` or `srq` (either may be null) if this QP holds it; true if it did.
  /// For a CQ or SRQ destroyed before its QPs (SimDevice::detach_from_qps).
  bool forget(const SimCompletionQueue* cq, const SimSharedReceiveQueue* srq) noexcept;
  uint32_t remote_host() const noexcept { return remote_host_; }
  uint32_t remote_qpn() const noexcept { return remote_qpn_; }
  /// Takes the next receive from the QP or its SRQ; false when none is posted.
  bool take_receive(RecvEntry& out);
  /// Marks send-queue entry `seq` finished and moves finished entries at the head of
  /// the queue to the send CQ. An error status moves the QP to ERR.
  void complete_send(uint64_t seq, fabric::WcStatus status, uint32_t byte_len);
  /// Whether send-queue entry `seq` is still outstanding: posted, not finished, not
  /// flushed and not reset away (sequence numbers are never reused). A response for an
  /// entry that is not may not touch its local memory any more.
  bool awaits(uint64_t seq) const noexcept;
  void push_recv_completion(const fabric::WorkCompletion& wc);
  /// Sequence number of the next message that goes on the wire (RC/UC). Only messages
  /// actually transmitted take one, so a lost UC message leaves no hole to wait for.
  uint64_t take_psn() noexcept { return next_psn_++; }
  /// RC/UC in-order processing at the responder.
  uint64_t expected_psn = 0;
  WireMessage* held = nullptr;  ///< arrivals ahead of expected_psn, sorted by psn
  /// UD: datagrams from one QP to another take one path through the fabric, whose
  /// links and switches are FIFO, so they arrive in the order sent (what InfiniBand
  /// hardware does on a fixed route; the specification promises UD no order, but the
  /// simulator's fluid network model would otherwise let a small datagram overtake a
  /// large one sent before it, which no physical path does). The sending QP numbers
  /// the datagrams it transmits per destination QP; the destination holds one that
  /// overtook its predecessors. Only QPs this one talks to have an entry.
  /// One entry per peer QP in both directions, made on first use: an RC QP pays a
  /// null pointer, a UD QP one node per peer (at thousands of simulated ranks each
  /// byte per QP counts: tests/mpi/c/memory_per_rank.py).
  struct UdPath {
    uint64_t next_sent = 0;  ///< the next datagram's number to this peer QP
    uint64_t expected = 0;   ///< the next number due from it
    WireMessage* held = nullptr;  ///< from it, ahead of `expected`, sorted by psn
  };
  uint64_t take_ud_path_seq(uint32_t dst_qp_id) { return ud_path(dst_qp_id).next_sent++; }
  UdPath& ud_path(uint32_t peer_qp_id) {
    if (!ud_paths_) ud_paths_ = std::make_unique<std::unordered_map<uint32_t, UdPath>>();
    return (*ud_paths_)[peer_qp_id];
  }
  /// Moves to ERR and flushes every outstanding WR.
  void enter_error();
  /// A read/atomic finished: work requests held behind it (a fence, or the
  /// max_rd_atomic limit) may go, in posting order.
  void release_fenced();
  /// Whether the held work request at the head may leave now.
  bool may_leave(const WireMessage& m, bool fence) const noexcept;

  /// The responder this QP sent to last (an RC QP's only one), so that sending finds
  /// it without the peer HCA's QP table; `qp` is checked alive on every use.
  struct Peer {
    uint32_t host = UINT32_MAX;
    uint32_t qpn = 0;
    QpRef qp;
    Destination destination;  ///< qp's context
  };
  Peer peer;

 private:
  fabric::Status fail(fabric::Status s, std::string why);
  fabric::Status validate_send(const fabric::SendWr& wr, uint64_t& length);
  WireMessage* build_message(const fabric::SendWr& wr, uint64_t length, uint64_t seq);
  void drain_send_queue();
  void flush_posted(uint64_t seq_from);

  SimDevice& device_;
  SimRuntime& runtime_;
  uint32_t device_id_;
  fabric::QpConfig config_;
  fabric::RcReliability reliability_;
  // The config's CQs and SRQ as the simulator's objects (create_qp checked them): no
  // virtual underlying() per completion, and forget() can null them.
  SimCompletionQueue* send_cq_;
  SimCompletionQueue* recv_cq_;
  SimSharedReceiveQueue* srq_;
  uint32_t qpn_;
  uint32_t live_id_;
  IcmCache::Entry icm_entry_;
  fabric::QpState state_ = fabric::QpState::Reset;
  uint32_t remote_host_ = 0;
  uint32_t remote_qpn_ = 0;
  uint64_t next_psn_ = 0;
  uint64_t next_seq_ = 0;
  std::unique_ptr<std::unordered_map<uint32_t, UdPath>> ud_paths_;  ///< UD: by peer QP id
  uint32_t reads_in_flight_ = 0;
  RingQueue<SqEntry> sq_;  ///< posted, not yet completed, oldest first
  RecvQueue rq_;
  /// Built, waiting in the send queue, in posting order: behind a fence until earlier
  /// reads/atomics finished, or a read/atomic while max_rd_atomic of them are on the
  /// wire (the HCA processes its send queue in order, so later WRs wait too).
  struct HeldSend {
    WireMessage* message;
    bool fence;
  };
  /// A vector, not a deque: an empty deque already allocates ~600 bytes, which every
  /// QP of thousands of simulated ranks would pay (mpi.c.memory_per_rank); the queue
  /// is short and rarely used, so taking from its front by erase is cheap enough.
  std::vector<HeldSend> fenced_;
  uint32_t held_reads_ = 0;  ///< reads/atomics among fenced_ (counted in reads_in_flight_, not on the wire)
  std::string last_error_;
};

}  // namespace twinfab::sim
