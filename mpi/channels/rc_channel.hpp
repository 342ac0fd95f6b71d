// twinfab MPI channels: the RC channel, a reliable-connection QP to every peer with
// pre-registered packet buffers and static credit-based flow control. It implements
// the Channel interface (channel.hpp), with every RDMA operation the device has.
//
// Connections (seed 000 §III.B) are made in one of two ways (Config::connect):
//  - at start-up: every rank creates one RC QP per peer, publishes all their
//    addresses in one out-of-band blob (put, fence), reads each peer's blob (get),
//    calls connect() on every QP until all return Ok (a device that needs a
//    connection manager returns InProgress meanwhile), posts its receive buffers, and
//    meets the others in an OOB barrier, so that no packet can find its target without
//    receives. On devices where the active side must send first (iWARP), the lower
//    rank of each pair is active: it sends a credit-update packet as its hello, and
//    the higher rank sends nothing on that connection until a packet has arrived.
//  - on demand (the default above 64 ranks): only a UD connector QP per rank is
//    published; the first packet or RDMA for a peer creates the RC QP and asks the
//    peer through the connector (ud_connector.hpp); the packet waits in the
//    connection's pending FIFO until the Reply has connected the QP. The responder
//    sends nothing until the requester's first packet arrives (the requester sends a
//    hello when it has nothing queued), so no packet reaches a QP that is not ready.
//    Each connection then has its own receive buffers, registered when it is made.
//    A rank thus holds QPs and buffers only for the peers it talks to (2 in a ring).
//
// Buffers: `credits` receive buffers of `packet_size` bytes per connection, posted
// at start-up and re-posted as soon as a packet has been handed to the PacketSink
// (which copies out what it keeps); a pool of `send_buffers` send buffers shared by
// all connections (the seed's per-connection send buffers would cost memory
// proportional to peers for no gain: a send buffer is busy only until its send
// completes).
//
// Flow control (seed 000 §III.C, static credits): a sender starts with `credits`
// credits per connection and spends one per packet (and per RDMA write with
// immediate, which also consumes a receive buffer). Every packet carries, in its
// header, the receive buffers its sender re-posted since its last packet
// (piggy-backed credit return). When traffic is one-way, the receiver sends an
// explicit CreditUpdate packet once it owes `update_threshold()` credits for data
// packets, or owes credits - 1 in all (the peer is down to its reserve). One credit
// is reserved for CreditUpdates: data needs 2 credits in hand, an update needs 1. A
// CreditUpdate is itself never answered by a CreditUpdate (its buffer is returned
// piggy-backed or with the next data-triggered update), so updates cannot
// ping-pong; that needs credits >= 3.
//
// Back-pressure: when a packet cannot leave now (no credit, no send buffer, send
// queue full, NoResource from the QP), it is copied into the connection's pending
// FIFO, and progress() re-drives the FIFO. Packets and RDMA operations to one peer
// leave in the order they were submitted (so a Fin never overtakes its writes), only
// CreditUpdates may overtake.
//
// Shutdown: a simulated rank's HCA serves arrivals only while the rank is inside
// its runtime, so ranks cannot simply meet in an OOB barrier while a peer still
// waits for an acknowledgement or a credit update from them. Instead each rank
// drains its FIFOs, sends every peer a Bye (the last packet on that connection; it
// needs no credit because every connection has one receive buffer more than its
// credits), and keeps progressing until it has a Bye from every peer and all its
// sends completed. After its Bye a rank sends nothing more on that connection, not
// even credit updates, so once both Byes are through nobody touches the QPs.
//
// Not thread-safe; one per rank, driven by that rank's progress engine. Blocking
// (start-up, shutdown) happens only through the device's runtime.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"
#include "mpi/channels/buffer_storage.hpp"
#include "mpi/channels/channel.hpp"
#include "mpi/channels/packet.hpp"
#include "mpi/channels/ud_connector.hpp"
#include "mpi/core/config.hpp"
#include "mpi/core/host_work.hpp"

namespace twinfab::mpi {

class RcChannel final : public Channel {
 public:
  /// Connects to every other rank of `oob`, or sets up on-demand connections
  /// (collective). Throws fabric::Error or mpi::Error on a set-up failure, e.g.
  /// MPI_ERR_ARG when TWINFAB_CONNECT=on-demand is asked of a device without UD.
  RcChannel(fabric::Device& device, fabric::OobExchange& oob, const Config& config, PacketSink& sink);
  /// Drains pending packets, exchanges Byes with every peer (see the file comment),
  /// then destroys the QPs. Collective.
  ~RcChannel() override;
  RcChannel(const RcChannel&) = delete;
  RcChannel& operator=(const RcChannel&) = delete;

  /// Every RDMA operation: write, read and (where the device has them) write with
  /// immediate and atomics; packets of Config::packet_size bytes.
  const ChannelCapabilities& capabilities() const noexcept override { return capabilities_; }

  /// Sends now or, under back-pressure, from the connection's pending FIFO; on
  /// demand, the first packet to a peer requests the connection (see above).
  void send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) override;
  using Channel::send_packet;
  void post_rdma(int peer, const RdmaOp& op) override;

  /// Polls both CQs once, re-drives pending FIFOs, sends due credit updates. Returns
  /// the events handled (completions, packets that left a FIFO); 0 means idle.
  std::size_t progress() override;
  /// Every CQ of the channel.
  std::span<fabric::CompletionQueue* const> completion_queues() const noexcept { return cq_list_; }
  /// The receive CQs (and the connector's), and the send CQ only when a send
  /// completion can change what happens next (an RDMA operation of a protocol is in
  /// flight, a packet waits for a send buffer or queue slot, or a due credit update
  /// does). Otherwise a packet's completion only returns its buffer, which the next
  /// progress() finds; not waking up for it saves the simulator an ACK message per
  /// packet (sim_device.cpp: an ACK travels as a message only when the requester
  /// sleeps on that CQ). The deadline is wake_deadline().
  WaitSet wait_set() const noexcept override {
    return {pending_total_ == 0 && rdma_outstanding_ == 0 && !update_blocked_
                ? std::span<fabric::CompletionQueue* const>(receive_cqs_)
                : std::span<fabric::CompletionQueue* const>(cq_list_),
            wake_deadline()};
  }
  /// When a connection Request must be re-sent, or kForever.
  double wake_deadline() const noexcept;
  /// Whether connections are made on demand (resolved from Config::connect).
  bool on_demand() const noexcept { return connector_ != nullptr; }
  /// Nothing pending and no send outstanding.
  bool quiescent() const noexcept;

  const ChannelCounters& counters() const noexcept override { return counters_; }
  /// Whether no packet or RDMA operation waits in a connection's FIFO (a composite
  /// channel's shutdown drains until it is so).
  bool nothing_pending() const noexcept { return pending_total_ == 0; }

 private:
  enum class State : std::uint8_t {
    Requested,  ///< on demand: QP created, Request sent, no Reply yet
    Connected,  ///< QP connected and receives posted
  };
  struct Connection {
    State state = State::Requested;
    std::unique_ptr<fabric::QueuePair> qp;
    // Where this connection's receive buffers are: a slice of the shared start-up
    // region, or (on demand) storage of its own.
    std::byte* recv_base = nullptr;
    /// The device address and lkey of recv_base (read once: a receive is re-posted
    /// per packet, and each is a virtual call).
    fabric::Sge recv_sge_base{};
    BufferStorage own_recv_storage;
    std::unique_ptr<fabric::MemoryRegion> own_recv_region;
    std::uint32_t credits = 0;          // packets we may still send to the peer
    std::uint32_t owed = 0;             // buffers re-posted, not yet reported to the peer
    std::uint32_t owed_by_updates = 0;  // of those, consumed by the peer's CreditUpdates
    std::uint32_t outstanding = 0;      // send-queue WRs not completed
    std::uint32_t reads_outstanding = 0;
    bool may_send = true;               // false on an iWARP passive side before the hello
    bool queued_for_flush = false;
    bool queued_for_update = false;  ///< in update_candidates_
    bool bye_sent = false;
    bool bye_received = false;
    std::list<DeferredOperation> pending;  ///< a list: nothing allocated while empty (the usual case)
  };

  /// The connection to `peer`, which must exist. Most calls in a row are for one or
  /// two peers (a message's packets and completions; a ring's or a ping-pong's
  /// neighbours): the last two are remembered, which spares the hash table's cache
  /// misses when thousands of ranks take turns.
  Connection& connection(int peer) {
    Connection* c = cached_connection(peer);
    return c != nullptr ? *c : find_connection(peer);
  }
  Connection* cached_connection(int peer) const noexcept {
    return peer == cached_peer_[0] ? cached_[0] : peer == cached_peer_[1] ? cached_[1] : nullptr;
  }
  Connection& find_connection(int peer);
  /// Adds `peer` to update_candidates_ once.
  void queue_for_update(int peer, Connection& c) {
    if (c.queued_for_update) return;
    c.queued_for_update = true;
    update_candidates_.push_back(peer);
  }
  /// The connection to send on: on demand, created (and requested) at first use.
  /// Inline for a recent peer (every packet asks).
  Connection& connection_for_send(int peer) {
    Connection* c = cached_connection(peer);
    return c != nullptr ? *c : find_or_request_connection(peer);
  }
  Connection& find_or_request_connection(int peer);
  Connection& create_connection(int peer);
  /// Receive buffers, credits, hello rule: the QP is connected, start using it.
  void activate(int peer, Connection& c, bool may_send);
  void connect_all();
  void handle_connect_message(const ConnectMessage& message);
  std::size_t progress_connections();
  void post_receive(int peer, std::uint32_t slot);
  /// Re-posts the receive buffers consumed since the last call and owes their
  /// credits to their peers (see reposts_).
  void repost_consumed();
  enum class Try { Sent, Blocked };
  Try try_send(int peer, Connection& c, const PacketHeader& header, std::size_t payload_bytes,
               const Fill& fill);
  /// A CreditUpdate or Bye as a zero-byte write with immediate (packet.hpp).
  Try try_send_control(int peer, Connection& c, PacketType type);
  /// Credits and counts after a packet (or control message) was posted.
  void packet_posted(Connection& c, bool bye, bool update);
  Try try_rdma(int peer, Connection& c, const RdmaOp& op);
  std::size_t flush(int peer);
  void maybe_send_credit_update(int peer);
  void handle_receive(const fabric::WorkCompletion& wc);
  /// Fails on a receive that completed with `status`, naming the send that broke the
  /// connection when there is one (a flushed receive is only the consequence).
  [[noreturn]] void fail_receive(int peer, fabric::WcStatus status);
  /// The header of the packet in receive `slot` of `c` (a compact one expanded) and,
  /// in `payload`, what follows it; fails on a packet too short for its header.
  PacketHeader read_packet(int peer, Connection& c, std::uint32_t slot, std::uint32_t byte_len,
                           std::span<const std::byte>& payload);
  void handle_send_completion(const fabric::WorkCompletion& wc);
  void defer(int peer, DeferredOperation item);
  void wait_once();
  void shutdown();
  std::uint32_t receive_slots() const noexcept { return credits_ + 1; }
  /// A connection's receive memory: receive_slots() head slots, then as many packet
  /// buffers (whose first head_bytes_ are headroom when heads are used).
  std::size_t connection_receive_bytes() const noexcept {
    return std::size_t{receive_slots()} * (head_bytes_ + packet_size_);
  }
  /// Where slot `slot`'s packet buffer starts in its connection's receive memory.
  std::size_t body_offset(std::uint32_t slot) const noexcept {
    return std::size_t{receive_slots()} * head_bytes_ + std::size_t{slot} * packet_size_;
  }
  /// Head slot size: a small packet (header and up to 64 bytes) lands entirely in
  /// it. 120 rather than 128: the 33 head slots of a connection with the default 32
  /// credits, after the allocator's 16-byte header, then fit one 4 KiB page.
  static constexpr std::uint32_t kHeadSlotBytes = 120;
  /// The largest packet sent inline (a full header and 8 bytes of payload, or a
  /// compact one and 48): built on the stack in try_send, its send buffer untouched.
  static constexpr std::uint32_t kMaxInlinePacket = 64;
  /// Send buffers come in two sizes at one slot index: a packet of at most
  /// kHeadSlotBytes is written to the slot's small buffer (packed together at the
  /// start of the send memory), a longer one to its packet buffer. A stream of small
  /// packets then touches one page of send memory, not a page per 8 KB buffer.
  std::size_t send_offset(std::uint32_t slot, std::size_t length) const noexcept {
    return length <= kHeadSlotBytes
               ? std::size_t{slot} * kHeadSlotBytes
               : std::size_t{send_buffers_} * kHeadSlotBytes + std::size_t{slot} * packet_size_;
  }

  fabric::Device& device_;
  const HostWork work_;  ///< the payload copies into and out of packet buffers (host_work.hpp)
  fabric::OobExchange& oob_;
  PacketSink& sink_;
  const std::uint32_t packet_size_;
  ChannelCapabilities capabilities_;
  /// Receives are posted as two SGEs, a head slot of this size from an array of
  /// them and the rest of the packet buffer: a stream of small packets then touches
  /// the head array only (a page per 32 packets), not a page per 8 KB buffer
  /// (memory per rank with thousands of simulated ranks). 0: one SGE per buffer.
  std::uint32_t head_bytes_ = 0;
  /// Credit updates and Byes go as zero-byte writes with immediate (the device has
  /// them; packet.hpp), not as packets.
  bool control_by_immediate_ = false;
  const std::uint32_t credits_;
  const std::uint32_t send_buffers_;
  const std::uint32_t lazy_reap_;  ///< see progress(): min(kLazyReap, send_buffers_ / 2), at least 1
  const std::uint32_t update_threshold_;
  const int rank_;
  const int size_;
  std::uint32_t send_wr_limit_ = 0;
  std::uint32_t send_cq_limit_ = 0;
  std::uint32_t send_cq_outstanding_ = 0;

  std::unique_ptr<fabric::CompletionQueue> send_cq_;
  std::unique_ptr<fabric::CompletionQueue> recv_cq_;
  std::vector<fabric::CompletionQueue*> cq_list_;
  std::vector<fabric::CompletionQueue*> receive_cqs_;  ///< cq_list_ without the send CQ
  std::uint64_t rdma_outstanding_ = 0;
  fabric::QpConfig qp_config_;
  /// By peer rank; only peers with a connection (all of them at start-up, the ones
  /// this rank talked to on demand). Node-based: references stay valid.
  std::unordered_map<int, Connection> connections_;
  int cached_peer_[2] = {-1, -1};   ///< connection() remembers its last two answers, newest first
  Connection* cached_[2] = {nullptr, nullptr};
  /// Connected peers, in the order they connected (stable iteration for progress).
  std::vector<int> active_peers_;
  std::size_t max_connections_ = 0;
  std::unique_ptr<UdConnector> connector_;
  std::vector<ConnectMessage> inbox_;
  BufferStorage recv_storage_;
  std::unique_ptr<fabric::MemoryRegion> recv_region_;
  BufferStorage send_storage_;
  std::unique_ptr<fabric::MemoryRegion> send_region_;
  /// send_region_'s address and lkey, read once: every packet needs them, and each is
  /// a virtual call.
  fabric::Sge send_sge_base_{};
  /// Send slots returned by completions (reused last-in first-out, so a stream of
  /// packets keeps using the same few buffers), and the first slot never used yet.
  std::vector<std::uint32_t> free_send_slots_;
  std::uint32_t unused_send_slots_from_ = 0;
  bool send_slot_available() const noexcept {
    return !free_send_slots_.empty() || unused_send_slots_from_ < send_buffers_;
  }
  std::vector<int> flush_list_;        // peers whose FIFO may move now
  std::vector<int> scratch_;           // progress(): the list being worked through
  std::vector<int> update_candidates_;  // peers that may be owed a credit update, each once
  // A due credit update could not leave (no send buffer, send-queue or CQ room, or
  // credit): a send completion must wake the waiter, or a peer that waits for those
  // credits and the rank that owes them both sleep (found by a randomized traffic
  // test with 2 send buffers; tests/mpi/c/random_traffic.c). Cleared when send
  // completions are reaped, set again if the retried update is still blocked.
  bool update_blocked_ = false;
  /// Receive buffers consumed and not yet re-posted. Re-posting waits for the next
  /// progress() or the next packet sent: a receive completes and the application's
  /// reply goes out before the re-post, which is then off the latency path. Credits
  /// for them are only owed once they are posted again, so a peer never sends into a
  /// buffer that is not there; progress() re-posts before any wait.
  struct Consumed {
    int peer;
    std::uint32_t slot;
    bool by_update;  ///< the packet was a CreditUpdate (see Connection::owed_by_updates)
  };
  std::vector<Consumed> reposts_;
  std::uint64_t pending_total_ = 0;
  /// progress() reaps packet send completions once this many are outstanding (fewer
  /// with few send buffers, see lazy_reap_). Small:
  /// the simulated HCA's send queue and CQ grow to what is outstanding (memory per
  /// rank: 8 cost 0.4 KB more per rank of a 4096-rank ring than 4).
  static constexpr std::uint32_t kLazyReap = 4;
  bool draining_ = false;  ///< shutdown() has begun
  int byes_received_ = 0;
  ChannelCounters counters_;
  /// progress()'s poll buffer, a member so that it is not initialized on every call.
  std::array<fabric::WorkCompletion, 16> completions_{};
};

}  // namespace twinfab::mpi
