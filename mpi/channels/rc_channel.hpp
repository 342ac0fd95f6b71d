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
// Shared receive queue (Config::srq; seed 004 sec. 3.1.3, as MVAPICH): receives come
// from one pool per process instead: Config::srq_size buffers posted at start to one
// SRQ that every connection's QP uses, re-posted as above. A packet's connection is
// the completion's QP number. How senders are kept from overrunning the pool depends
// on the device (capabilities().receiver_not_ready_retry):
//  - with RNR retry (InfiniBand, RoCE): no credits at all, as MVAPICH; a sender that
//    finds the pool empty is held by its HCA (RNR NAK) and retries. When fewer than
//    Config::srq_limit buffers are posted once progress() has drained the receive CQ
//    (MVAPICH's SRQ limit event), the pool grows by srq_size buffers, up to
//    srq_max_size.
//  - without (iWARP, where a send without a receive breaks the connection): the
//    credits below stay, and the pool is grown as connections are made so that it
//    always holds credits + 1 buffers per connection. Nothing is then saved unless
//    TWINFAB_CREDITS is lowered; the design notes say why (docs/channels.md).
//
// RDMA fast path (Config::fastpath; seed 003 sec. 3, seed 004 sec. 6: MVAPICH's
// small-message RDMA; slot format in rc_fast_path.hpp). Off by default. Where it is on
// (only on devices whose RDMA writes land in order), a rank that has received
// Config::fastpath_threshold packets from a peer offers it a ring: fastpath_buffers
// slots of a packet each, registered for remote writes, its address sent in a
// FastPathOffer packet; at most fastpath_max_peers rings per rank (the polling set:
// progress() looks at each). From then on the peer sends every packet except credit
// updates, credit returns and its Bye as one RDMA write into the next slot, and the
// receiver finds it by polling: no receive WQE, no completion, no re-post. Slots are
// credits of their own: the sender starts with one per slot; the receiver frees a
// slot once the packet was handed on and returns the freed slots in the head of its
// own fast-path packets to that peer, or in a FastPathCredit packet once half the
// ring is owed (sent past the pending FIFO, as a credit update). A sender out of
// slots queues its packets in the pending FIFO rather than fall back to sends, which
// keeps one order. Ordering with the packets sent
// before the ring existed: every slot's head says how many receive-consuming messages
// its sender had posted before it, and the receiver takes the slot only after as many
// receive completions (it polls the CQ before the rings). The other way round, a Bye
// or credit message after fast-path packets, RC ordering suffices: a send's receive
// completion means the RDMA writes posted before it have landed. Memory: a ring costs
// fastpath_buffers x (packet_size + 20, rounded to 64) registered bytes per peer (the
// modelled registered memory counts it); the waits of a rank with rings must end when
// memory is written (wait_set().memory).
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
#include "mpi/channels/rc_fast_path.hpp"
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
            wake_deadline(), /*memory=*/!ring_peers_.empty()};
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
  /// A ring this rank set aside for one peer's packets, and where polling resumes.
  struct FastPathRing {
    BufferStorage storage;
    std::unique_ptr<fabric::MemoryRegion> region;
    std::uint32_t next = 0;      ///< the slot the next packet lands in
    std::uint32_t expected = 1;  ///< its sequence number
    std::uint32_t owed = 0;      ///< slots freed and not yet returned to the peer
  };
  /// The peer's ring for this rank's packets (slots == 0: none offered yet).
  struct FastPathTarget {
    std::uint64_t addr = 0;
    std::uint32_t rkey = 0;
    std::uint32_t slots = 0;
    std::uint32_t next = 0;
    std::uint32_t sequence = 1;
    std::uint32_t credits = 0;  ///< free slots
  };
  /// A connection's fast-path state.
  struct FastPathState {
    std::uint32_t regular_sent = 0;      ///< receive-consuming messages posted to the peer (wraps)
    std::uint32_t regular_received = 0;  ///< receive completions from the peer (wraps)
    std::uint32_t packets_from_peer = 0;  ///< packets received before a ring was offered
    std::unique_ptr<FastPathRing> ring;   ///< the ring this rank polls for the peer's packets
    FastPathTarget target;                ///< the peer's ring for this rank's packets
  };
  struct Connection {
    State state = State::Requested;
    std::unique_ptr<fabric::QueuePair> qp;
    // Where this connection's receive buffers are: a slice of the shared start-up
    // region, or (on demand) storage of its own.
    /// (None with a shared receive queue.)
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
    /// RDMA fast path (see the file comment): allocated when the connection is made
    /// with the fast path on (memory per connection stays as it was without).
    std::unique_ptr<FastPathState> fast;
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
  /// Shared receive queue: posts pool buffer `index`.
  void post_srq_receive(std::uint32_t index);
  /// Adds pool_->size buffers to the pool and posts them; false at its max_size.
  /// The constructor's parts for the SRQ and the fast path (out of line: see there).
  [[gnu::noinline]] void configure_srq(const Config& config);
  [[gnu::noinline]] void configure_fast_path(const Config& config);
  [[gnu::noinline]] bool grow_srq();
  /// Without RNR retry: grows the pool until it holds credits + 1 buffers for each of
  /// `connections` connections, or fails naming the variables to change.
  [[gnu::noinline]] void reserve_srq_for(std::size_t connections);
  /// The peer a shared-receive-queue completion is from: its QP number's (the wr_id of
  /// a pool buffer names none). Out of line: only the SRQ's receives pay the lookup.
  [[gnu::noinline]] int srq_peer(const fabric::WorkCompletion& wc) const;
  /// Re-posts the receive buffers consumed since the last call and owes their
  /// credits to their peers (see reposts_).
  void repost_consumed();
  enum class Try { Sent, Blocked };
  /// Whether the packet goes behind the compact header: a whole non-synchronous eager
  /// message (packet.hpp).
  static bool is_compact(const PacketHeader& header, std::size_t payload_bytes) noexcept {
    return header.type == PacketType::Eager && header.flags == 0 && header.total_bytes == payload_bytes;
  }
  /// The packet's length with the header write_packet() gives it.
  static std::uint32_t packet_length(const PacketHeader& header, std::size_t payload_bytes) noexcept {
    return static_cast<std::uint32_t>((is_compact(header, payload_bytes) ? kCompactHeaderBytes : kPacketHeaderBytes) +
                                      payload_bytes);
  }
  /// Where `bytes` to post from send slot `slot` are built: small ones go inline
  /// (copied into the WQE at post, as perftest and MPI libraries do: the HCA skips a
  /// DMA read of the send buffer) and are built in `on_stack` (kMaxInlinePacket bytes),
  /// so their send slot only counts the send until it completes and its memory is never
  /// touched (memory per rank with thousands of simulated ranks); the others in the
  /// slot's buffer. Sets `at` and `sge`; returns whether the post goes inline.
  bool place_send(std::uint32_t slot, std::uint32_t bytes, std::byte* on_stack, std::byte*& at,
                  fabric::Sge& sge) const noexcept {
    if (bytes <= qp_config_.max_inline) {
      at = on_stack;
      sge = fabric::Sge{reinterpret_cast<std::uint64_t>(on_stack), bytes, 0};
      return true;
    }
    const std::size_t offset = send_offset(slot, bytes);
    at = send_storage_.get() + offset;
    sge = fabric::Sge{send_sge_base_.addr + offset, bytes, send_sge_base_.lkey};
    return false;
  }
  /// Writes the packet (compact header where it can, credits piggy-backed) at `at` and
  /// returns its length.
  std::uint32_t write_packet(std::byte* at, const Connection& c, const PacketHeader& header,
                             std::size_t payload_bytes, const Fill& fill);
  /// The packet as one RDMA write into the peer's ring (the file comment).
  /// Out of line (as the functions below that only the fast path or the SRQ run): its
  /// frame stays off the stack of the default path (memory per simulated rank).
  [[gnu::noinline]] Try try_send_fast(int peer, Connection& c, const PacketHeader& header,
                                      std::size_t payload_bytes, const Fill& fill);
  /// Sets aside a ring for `peer`'s packets and offers it.
  [[gnu::noinline]] void offer_ring(int peer, Connection& c);
  /// Returns the freed slots of `peer`'s ring in a FastPathCredit packet, past the
  /// pending FIFO; if it cannot leave now they stay owed (retried by progress()).
  [[gnu::noinline]] void send_fast_path_credits(int peer, Connection& c);
  /// Takes in every packet that has landed in the rings; returns how many.
  [[gnu::noinline]] std::size_t poll_rings();
  /// A packet from `peer` read off a receive buffer or a ring: credits, the channel's
  /// own packet types, the rest to the sink.
  void deliver(int peer, Connection& c, const PacketHeader& header, std::span<const std::byte> payload);
  /// A FastPathOffer or FastPathCredit from `peer` (out of line: see deliver()).
  [[gnu::noinline]] void take_fast_path_control(int peer, Connection& c, const PacketHeader& header);
  /// Uses a send slot taken by a packet just posted.
  void take_send_slot() noexcept {
    if (free_send_slots_.empty())
      ++unused_send_slots_from_;
    else
      free_send_slots_.pop_back();
  }
  Try try_send(int peer, Connection& c, const PacketHeader& header, std::size_t payload_bytes,
               const Fill& fill);
  /// A CreditUpdate or Bye as a zero-byte write with immediate (packet.hpp).
  Try try_send_control(int peer, Connection& c, PacketType type);
  /// Credits and counts after a packet (or control message) was posted; `fast`: into
  /// the peer's ring, which consumes no receive buffer.
  void packet_posted(Connection& c, bool bye, bool update, bool fast = false);
  Try try_rdma(int peer, Connection& c, const RdmaOp& op);
  std::size_t flush(int peer);
  void maybe_send_credit_update(int peer);
  void handle_receive(const fabric::WorkCompletion& wc);
  /// Fails on a receive that completed with `status`, naming the send that broke the
  /// connection when there is one (a flushed receive is only the consequence).
  [[noreturn]] void fail_receive(int peer, fabric::WcStatus status);
  /// The header of the packet in receive `slot` of `c` (a compact one expanded) and,
  /// in `payload`, what follows it; fails on a packet too short for its header.
  PacketHeader read_packet(int peer, std::byte* base, std::uint32_t slots, std::uint32_t slot, std::uint32_t byte_len,
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
  /// Where slot `slot`'s packet buffer starts in a block of `slots` receive buffers
  /// (a connection's, or a chunk of the shared pool: the same layout).
  std::size_t body_offset(std::uint32_t slots, std::uint32_t slot) const noexcept {
    return std::size_t{slots} * head_bytes_ + std::size_t{slot} * packet_size_;
  }
  /// The receive buffers of `slots` packets posted as [head slot][body] SGEs
  /// (head_slots.hpp); returns how many SGEs.
  std::size_t fill_receive_sges(fabric::Sge (&sges)[2], const fabric::Sge& base, std::uint32_t slots,
                                std::uint32_t slot) const noexcept;
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
               : std::size_t{send_buffers_} * kHeadSlotBytes + std::size_t{slot} * send_stride_;
  }

  fabric::Device& device_;
  const HostWork work_;  ///< the payload copies into and out of packet buffers (host_work.hpp)
  fabric::OobExchange& oob_;
  PacketSink& sink_;
  /// With the SRQ on a device with RNR retry: senders spend no credits.
  bool credits_enforced_ = true;
  struct SrqChunk {
    BufferStorage storage;
    std::unique_ptr<fabric::MemoryRegion> region;
    fabric::Sge sge_base{};
  };
  /// The shared receive queue and its pool (see the file comment). Allocated only with
  /// TWINFAB_SRQ=1: without it a rank's channel stays as small as before (memory per
  /// simulated rank).
  struct SharedPool {
    std::unique_ptr<fabric::SharedReceiveQueue> srq;
    std::uint32_t size = 0;      ///< buffers per chunk of the pool (Config::srq_size)
    std::uint32_t limit = 0;     ///< the low watermark
    std::uint32_t max_size = 0;  ///< the most buffers in the pool
    std::uint32_t posted = 0;    ///< pool buffers posted now
    std::vector<SrqChunk> chunks;  ///< buffer i is slot i % size of chunk i / size
    /// QP number -> peer, for SRQ completions (which carry no peer in their wr_id).
    std::unordered_map<std::uint32_t, int> peer_of_qp;
  };
  std::unique_ptr<SharedPool> pool_;  ///< null: receives per connection
  const std::uint32_t packet_size_;
  /// A send buffer's size: a packet, and with the fast path its slot's head and tail.
  std::uint32_t send_stride_ = 0;
  ChannelCapabilities capabilities_;
  /// RDMA fast path (see the file comment): on, its parameters, and the peers whose
  /// rings this rank polls, in the order they were offered.
  bool fastpath_ = false;
  std::uint32_t fastpath_threshold_ = 0;
  std::uint32_t fastpath_slots_ = 0;
  std::uint32_t fastpath_max_peers_ = 0;
  std::uint32_t fastpath_slot_bytes_ = 0;
  std::vector<int> ring_peers_;
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
  /// 8 entries (256 bytes per rank; 16 before): a burst takes one more poll per 8
  /// completions, and the thousands of simulated ranks of a scale run keep their
  /// memory per rank under its 40 KB target (tests/mpi/c/memory_per_rank.py).
  std::array<fabric::WorkCompletion, 8> completions_{};
};

}  // namespace twinfab::mpi
