// twinfab MPI channels: the interface every channel implements (how bytes reach a
// peer), and what the pt2pt engine, the Context and one-sided communication use.
//
// A channel moves two things between the ranks of a job:
//  - packets: a PacketHeader and up to capabilities().max_payload bytes of payload,
//    delivered to the peer's PacketSink exactly once, intact, and in the order they
//    were sent to that peer (the matching's non-overtaking rule rests on it). Every
//    channel offers packets; how it makes them reliable (RC's hardware
//    acknowledgements, a datagram channel's sequence numbers and retransmissions, a
//    shared-memory queue) is its own business;
//  - RDMA operations (RdmaOp): offered only where capabilities() says so, or
//    capabilities(peer) for one peer. The engine's protocols follow the capabilities
//    (mpi/pt2pt/protocol.hpp): a channel with no RDMA to a peer gets eager, segmented
//    messages only, never a rendezvous.
//
// One channel per rank, addressed by world rank: there is no per-peer endpoint
// object (UCX's uct_ep): connections, where a channel has them, are its own
// business, made at start-up or at the first packet to a peer, and closed in the
// destructor. Why: the engine names peers by world rank anyway, and an object per
// peer would cost memory at 16K ranks for an indirection the engine does not need
// (docs/channels.md).
//
// Contract for every operation: non-blocking. Under back-pressure (no credit, no
// send buffer, a full send queue) the channel keeps the packet or operation itself,
// in per-peer order, and progress() re-drives it: the caller never retries. Failures
// of the fabric that the channel cannot recover from (a connection that broke) end
// the job with mpi::Error naming the peer; the data path returns nothing to check.
//
// Not thread-safe; one per rank, driven by that rank's progress engine. Waiting
// happens only in the caller, through the fabric Runtime, on what wait_set() says
// (ARCHITECTURE rule 1: a channel never blocks on its own, except in its collective
// constructor and destructor, through the device's runtime).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "fabric/completion_queue.hpp"
#include "fabric/runtime.hpp"
#include "fabric/types.hpp"
#include "mpi/channels/packet.hpp"

namespace twinfab::mpi {

/// What a channel hands packets and completions to (the pt2pt engine).
class PacketSink {
 public:
  virtual ~PacketSink() = default;
  /// A packet from `peer` (its credits already taken). `payload` is valid only during
  /// the call: keep a copy of what is needed later. May submit packets or RDMA.
  virtual void on_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) = 0;
  /// An RDMA write with immediate `imm` from `peer` has landed (only from a channel
  /// with ChannelCapabilities::rdma_write_with_imm).
  virtual void on_write_immediate(int peer, std::uint32_t imm) = 0;
  /// An RDMA operation this rank submitted with `cookie` completed.
  virtual void on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) = 0;
};

/// An RDMA operation for Channel::post_rdma. `local` must stay registered until
/// on_rdma_done. The atomics (8 bytes at an 8-byte aligned remote address; `local` is
/// 8 bytes and receives the old value) count against the device's max_rd_atomic like
/// reads.
struct RdmaOp {
  enum class Kind : std::uint8_t { Write, WriteWithImm, Read, CompareSwap, FetchAdd };
  Kind kind = Kind::Write;
  fabric::Sge local{};
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  std::uint32_t imm = 0;
  std::uint32_t cookie = 0;  ///< handed back to on_rdma_done
  std::uint64_t compare_add = 0;  ///< CompareSwap: the expected value; FetchAdd: the addend
  std::uint64_t swap = 0;         ///< CompareSwap: the value written when equal
  /// Write: the data is copied at post (SendFlags::Inline; `local.lkey` is ignored), so
  /// the source may change as soon as post_rdma returns. Only for writes of at most
  /// ChannelCapabilities::max_inline_write bytes.
  bool inline_data = false;
  /// Whether the operation needs one of the responder's outstanding read/atomic slots.
  bool is_read_like() const noexcept { return kind == Kind::Read || kind == Kind::CompareSwap || kind == Kind::FetchAdd; }
};

/// What a channel offers; fixed for the channel's life, so that callers may read it
/// once (the engine does, at attach_channel). Every flag of capabilities() promises
/// that the matching operation works on every peer; an operation whose flag is false
/// must not be submitted, unless capabilities(peer) offers it to that peer. A
/// rendezvous variant the sender chose from its capabilities(receiver) may also be run
/// by the receiver towards the sender (a rendezvous read), for that message.
struct ChannelCapabilities {
  /// Bytes of payload one packet carries after its PacketHeader: eager messages are
  /// segmented at it. At least 1 (a channel that cannot carry payload is no channel).
  std::size_t max_payload = 0;
  bool rdma_write = false;           ///< RdmaOp::Kind::Write
  bool rdma_write_with_imm = false;  ///< RdmaOp::Kind::WriteWithImm (and on_write_immediate)
  bool rdma_read = false;            ///< RdmaOp::Kind::Read
  bool rdma_atomics = false;         ///< RdmaOp::Kind::CompareSwap and FetchAdd
  /// The longest RDMA write that can be posted with inline data (0: none).
  std::uint32_t max_inline_write = 0;
  /// Some peers are offered more than these flags (Channel::capabilities(peer)): the
  /// engine asks per peer at each protocol choice. False for a channel that treats
  /// every peer alike, which spares its small messages a virtual call.
  bool varies_by_peer = false;

  /// Whether a rendezvous can move data by RDMA at all (some variant exists).
  bool offers_rendezvous() const noexcept { return rdma_write || rdma_read; }
};

/// What a channel did, for tests, experiments and the MPI_T performance variables
/// (mpi/capi/tools_tables.cpp). Every channel reports in these; a field that means
/// nothing for a channel (credit updates without credits) stays 0.
struct ChannelCounters {
  std::uint64_t packets_sent = 0;
  std::uint64_t packets_received = 0;
  std::uint64_t credit_updates_sent = 0;
  std::uint64_t controls_as_immediates = 0;  ///< credit updates and Byes sent as writes with immediate
  std::uint64_t packets_deferred = 0;  ///< went through a pending FIFO (back-pressure)
  std::uint64_t pending_peak = 0;      ///< most packets waiting at once
  std::uint64_t rdma_posted = 0;
  std::uint64_t connections = 0;         ///< connections made (both directions count once per rank)
  std::uint64_t connect_messages = 0;    ///< on-demand Requests and Replies sent, re-sends included
  // A channel that makes its packets reliable itself (UD):
  std::uint64_t retransmissions = 0;      ///< packets sent again after their timeout
  std::uint64_t nack_retransmissions = 0; ///< packets sent again for a NACK or a probe's answer
  std::uint64_t acks_sent = 0;            ///< explicit ACKs (the others ride on packets)
  std::uint64_t nacks_sent = 0;
  std::uint64_t probes_sent = 0;          ///< tail-loss probes (ud_reliability.hpp)
  std::uint64_t duplicates_received = 0;  ///< packets that had arrived already (dropped)
  std::uint64_t held_out_of_order = 0;    ///< packets kept until a gap before them was filled
  std::uint64_t datagrams_dropped = 0;    ///< malformed, foreign or beyond the window (dropped)
  std::uint64_t agent_wakeups = 0;        ///< the reliability agent's wake-ups (UD thread and hybrid)
  std::uint64_t agent_packets = 0;        ///< datagrams the reliability agent took in
  std::uint64_t ud_receive_growths = 0;   ///< times the UD receive buffers posted doubled
  std::uint64_t ud_receive_overruns = 0;  ///< looks that found every UD receive posted taken
  // The shared-memory channel (also counted in packets_sent/received and rdma_posted):
  std::uint64_t shm_packets_sent = 0;      ///< packets to ranks of this host through shared memory
  std::uint64_t shm_packets_received = 0;  ///< packets from them
  std::uint64_t shm_single_copies = 0;     ///< RDMA writes and reads done as one copy between processes
  // The RC channel's receive designs (rc_channel.hpp):
  std::uint64_t srq_growths = 0;           ///< chunks of buffers added to the shared receive queue's pool
  std::uint64_t fastpath_rings = 0;        ///< RDMA fast-path rings this rank offered its peers (as receiver)
  std::uint64_t fastpath_packets_sent = 0;      ///< packets RDMA-written into a peer's ring (also in packets_sent)
  std::uint64_t fastpath_packets_received = 0;  ///< packets found by polling a ring (also in packets_received)

  /// Adds `other`'s counts (pending_peak: the larger): a channel made of channels.
  ChannelCounters& operator+=(const ChannelCounters& other) noexcept;
};

class Channel {
 public:
  /// The destructor of an implementation is collective: it drains what is pending,
  /// tells every peer it is done and waits (through the runtime) until they are too;
  /// after abandon(), it only releases what is local.
  virtual ~Channel() = default;

  /// The rank is failing (its Context is destroyed by an exception, as a process
  /// dies of one): the destructor must not wait for peers, which may be waiting for
  /// this rank themselves (its connection, its message), nor send them anything.
  /// A channel made of channels passes it on to them.
  virtual void abandon() noexcept { abandoned_ = true; }

  /// Fills a packet's payload in place (in a send buffer, or a pending copy): a
  /// non-owning reference to any callable taking std::span<std::byte>, valid for the
  /// send_packet call it is passed to. Not std::function: building one per packet (a
  /// heap allocation for a lambda of a few references) was a measurable part of a
  /// small message's cost.
  class Fill {
   public:
    template <class F>
      requires(!std::is_same_v<std::remove_cvref_t<F>, Fill> && std::is_invocable_v<F&, std::span<std::byte>>)
    Fill(F&& f) noexcept  // NOLINT(google-explicit-constructor): used like a lambda parameter
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_([](void* object, std::span<std::byte> out) { (*static_cast<std::remove_reference_t<F>*>(object))(out); }) {}
    void operator()(std::span<std::byte> out) const { call_(object_, out); }

   private:
    void* object_;
    void (*call_)(void*, std::span<std::byte>);
  };

  /// What the channel offers every peer.
  virtual const ChannelCapabilities& capabilities() const noexcept = 0;
  /// What it offers `peer` now (asked only when capabilities().varies_by_peer): at
  /// least capabilities(), with the same max_payload. It may grow during the channel's
  /// life (a connection made) and never shrinks; an RDMA operation a message's
  /// protocol chose from it stays valid for that peer until the message is done.
  virtual const ChannelCapabilities& capabilities(int peer) const noexcept {
    (void)peer;
    return capabilities();
  }

  /// Sends `header` + `payload_bytes` (at most capabilities().max_payload) of payload
  /// written by `fill` to `peer` (a world rank, never this rank): now or, under
  /// back-pressure, later from the channel's own queue, in order with every packet and
  /// RDMA operation submitted to `peer` before it. `fill` is called exactly once,
  /// before this returns, so the caller's buffer is free on return. The header's
  /// `credits` field belongs to the channel. The one virtual call a small message
  /// costs on its way out.
  virtual void send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) = 0;
  /// The same with a payload that is already contiguous bytes.
  void send_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) {
    send_packet(peer, header, payload.size(), [payload](std::span<std::byte> out) {
      if (!payload.empty()) std::memcpy(out.data(), payload.data(), payload.size());
    });
  }
  /// Submits an RDMA operation to `peer`, in submission order with that peer's packets
  /// (a packet submitted after it leaves after it); its completion goes to
  /// PacketSink::on_rdma_done with op.cookie. Only for a kind capabilities() offers:
  /// one it does not ends the job with mpi::Error naming the operation and the peer,
  /// never a silent drop.
  virtual void post_rdma(int peer, const RdmaOp& op) = 0;

  /// Polls once: delivers what arrived to the sink, re-drives what back-pressure
  /// held, does the channel's own housekeeping (credit returns, acknowledgements,
  /// connection hand-shakes). Returns the events handled; 0 means idle, and only then
  /// may the caller wait.
  virtual std::size_t progress() = 0;
  /// What a waiter hands to fabric::Runtime::wait after progress() returned 0.
  struct WaitSet {
    /// The CQs whose completions may make progress() do something. Valid until the
    /// next call into the channel.
    std::span<fabric::CompletionQueue* const> sources;
    /// The absolute runtime time by which progress() must run again even without a
    /// completion (a timer of the channel's: a connection request or a packet to
    /// re-send), or fabric::Runtime::kForever.
    double deadline = fabric::Runtime::kForever;
    /// Data that lands in this rank's memory may make progress() do something (a
    /// shared-memory queue, whose peers notify it): wait with fabric::Runtime::wait(),
    /// which ends for it, rather than wait_for_completion(), which does not.
    bool memory = false;
  };
  /// One call, not two: it is on every wait of a blocking receive.
  virtual WaitSet wait_set() const = 0;

  virtual const ChannelCounters& counters() const noexcept = 0;

 protected:
  bool abandoned() const noexcept { return abandoned_; }

 private:
  bool abandoned_ = false;
};

/// A packet or an RDMA operation a channel keeps to send later, in order (back-
/// pressure FIFOs, operations held behind another). What the caller's buffer held is
/// copied, as the call returns before it goes: a packet's payload, an inline write's
/// data (then `op.local.addr` points into `payload`, whose buffer stays put when the
/// entry is moved).
struct DeferredOperation {
  bool rdma = false;
  PacketHeader header{};
  std::vector<std::byte> payload;
  RdmaOp op{};

  static DeferredOperation packet(const PacketHeader& header, std::size_t payload_bytes, const Channel::Fill& fill) {
    DeferredOperation d;
    d.header = header;
    d.payload.resize(payload_bytes);
    fill(std::span<std::byte>(d.payload));
    return d;
  }
  static DeferredOperation operation(const RdmaOp& op) {
    DeferredOperation d;
    d.rdma = true;
    d.op = op;
    if (op.inline_data) {
      const auto* source = reinterpret_cast<const std::byte*>(op.local.addr);
      d.payload.assign(source, source + op.local.length);
      d.op.local.addr = reinterpret_cast<std::uint64_t>(d.payload.data());
    }
    return d;
  }
  /// Writes the packet's payload (for a send_packet of payload.size() bytes).
  void fill(std::span<std::byte> out) const {
    if (!out.empty()) std::memcpy(out.data(), payload.data(), out.size());
  }
};

}  // namespace twinfab::mpi
