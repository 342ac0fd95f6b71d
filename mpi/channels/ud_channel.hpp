// twinfab MPI channels: the UD channel, one unreliable-datagram queue pair per rank
// and reliability in the MPI library (seed 004). It implements the Channel interface
// (channel.hpp) with packets only: UD has no RDMA, so the engine's protocols send
// every message eagerly, segmented at max_payload (mpi/pt2pt/protocol.hpp), and
// one-sided communication takes its send/receive design.
//
// Why UD: an RC connection costs a QP context in the HCA and ~68 KB of buffers per
// peer; one UD QP serves every peer, so a process's memory stays flat however many
// peers it talks to (seed 004 §2-3). The price is reliability, which lives here:
//
//  - Every datagram is one MTU at most: a 16-byte UdHeader (ud_wire.hpp), the
//    PacketHeader, payload. max_payload = MTU - 72.
//  - Per peer, a sliding window with sequence numbers, cumulative ACKs piggy-backed
//    on every datagram, coalesced explicit ACKs, NACKs on a gap, timeouts with
//    time stamps, duplicate suppression and in-order delivery (ud_reliability.hpp, a
//    pure part unit-tested alone). Where the reliability lives, and why inside the
//    channel rather than as a reliable-datagram layer under it: docs/channels.md.
//  - Who runs the reliability is seed 004's choice of three (TWINFAB_UD_RELIABILITY):
//    progress (default): timers are checked whenever the rank polls, and a rank
//    waiting in MPI wakes at the channel's next deadline (wait_set()). A rank that
//    computes outside MPI neither ACKs nor re-sends until it comes back: the seed's
//    unnecessary retransmissions.
//    thread: a watchdog agent (fabric/runtime.hpp) also wakes every
//    TWINFAB_UD_THREAD_WAKE, takes in what arrived, ACKs it and re-sends what timed out.
//    hybrid: the progress engine, and each rank has a second, interrupt-driven UD QP
//    with an agent sleeping on its completion events; a packet that times out goes to
//    the peer's interrupt QP, whose agent wakes, takes in everything waiting and ACKs
//    it at once (so a computing receiver costs one re-send, not a series).
//    With an agent, the channel's state is guarded by an AgentMutex (the rank's hold is
//    reentrant: a delivery may send); packets the agent takes in are copied and handed
//    to the protocols by the rank's next progress(), in order, and a Wake datagram to
//    the rank's own QP ends a wait whose completion the agent consumed.
//  - Buffers: up to `ud_recv_buffers` receive buffers of GRH + MTU bytes, shared by
//    every peer (one receive queue: no per-peer memory); `ud_recv_initial` are posted
//    at start and their number doubles when a look at the receive CQ finds half of
//    them taken (as MVAPICH's SRQ limit, see grow_receives); a look that found them
//    all taken asks the peers it heard from to send again (report_overrun), as RC's
//    receiver-not-ready NAK would; `ud_send_buffers` send buffers of
//    an MTU, a packet's buffer held until its ACK (re-sends go from it); small
//    control buffers for ACKs and NACKs. Memory comes from BufferStorage, so only the
//    buffers used cost pages. Per peer: an address handle (on first send) and the two
//    windows, only for the peers this rank talked to.
//  - Back-pressure: a packet that finds its peer's window full or no send buffer is
//    copied into the peer's pending FIFO and leaves from progress(), in order.
//  - Shutdown (collective): every rank first waits until all it sent is acknowledged.
//    It cannot then simply meet the others in an out-of-band fence: a peer whose last
//    ACK from this rank was lost re-sends, and the ACK must come even though this rank
//    is in the fence. So an agent (fabric/runtime.hpp) keeps progressing the channel
//    while the rank is in the fence, and a Stop datagram to itself ends it afterwards.
//
// One per rank, used by the rank (and by its own agents, as above). The shutdown
// agent touches the channel only while the rank is inside the fence, after the
// reliability agent has stopped.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fabric/agent_mutex.hpp"
#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"
#include "mpi/channels/buffer_storage.hpp"
#include "mpi/channels/channel.hpp"
#include "mpi/channels/ud_reliability.hpp"
#include "mpi/channels/ud_wire.hpp"
#include "mpi/core/config.hpp"
#include "mpi/core/host_work.hpp"
#include "mpi/core/lazy_fifo.hpp"

namespace twinfab::mpi {

class UdChannel final : public Channel {
 public:
  /// Creates the UD QP, posts the receive buffers and publishes the QP's address
  /// (OOB put + fence: collective). Throws mpi::Error(MPI_ERR_UNSUPPORTED_OPERATION)
  /// when the device has no UD (iWARP) and MPI_ERR_ARG when the MTU leaves no room
  /// for payload.
  UdChannel(fabric::Device& device, fabric::OobExchange& oob, const Config& config, PacketSink& sink);
  /// Waits until everything sent is acknowledged, then meets every rank (see above).
  ~UdChannel() override;
  UdChannel(const UdChannel&) = delete;
  UdChannel& operator=(const UdChannel&) = delete;

  /// Packets of an MTU, no RDMA.
  const ChannelCapabilities& capabilities() const noexcept override { return capabilities_; }
  void send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) override;
  using Channel::send_packet;
  /// UD has no RDMA: always an error naming the operation.
  void post_rdma(int peer, const RdmaOp& op) override;
  std::size_t progress() override;
  WaitSet wait_set() const override;
  const ChannelCounters& counters() const noexcept override { return counters_; }

  /// The reliability parameters in use (from Config).
  const UdReliabilityParameters& parameters() const noexcept { return params_; }

  /// Whether everything this rank sent is acknowledged and nothing waits to leave
  /// (a composite channel's shutdown drains until it is).
  bool drained() const;

 private:
  struct Peer {
    UdSendWindow send;
    UdReceiveWindow receive;
    std::unique_ptr<fabric::AddressHandle> handle;  ///< made at the first datagram to the peer
    std::unique_ptr<fabric::AddressHandle> interrupt_handle;  ///< the peer's interrupt QP (hybrid)
    LazyFifo<DeferredOperation> pending;  ///< packets only (UD has no RDMA); nothing allocated while empty
    std::uint32_t look = 0;  ///< the last look at the receive CQ that found a datagram from it (looks_)
    bool timed = false;    ///< in timed_peers_
    bool flushing = false;  ///< in flush_list_
  };
  /// A send buffer: free once its packet is acknowledged and no send of it is posted.
  struct SendSlot {
    std::uint32_t length = 0;  ///< the datagram's bytes, headers included
    std::uint16_t posted = 0;  ///< sends of it not completed
    bool held = false;         ///< its packet is not acknowledged yet
  };

  /// A datagram the reliability agent took in, for the rank to hand to the protocols.
  struct Taken {
    int peer = 0;
    std::vector<std::byte> datagram;  ///< UdHeader, PacketHeader, payload
  };
  /// The rank's hold of mutex_ while an agent runs (nothing otherwise); reentrant.
  class RankHold {
   public:
    explicit RankHold(const UdChannel& channel);
    ~RankHold();
    RankHold(const RankHold&) = delete;
    RankHold& operator=(const RankHold&) = delete;

   private:
    const UdChannel& channel_;
    bool held_;
  };

  Peer& peer_state(int peer);
  const fabric::AddressHandle& handle_for(int peer, Peer& p);
  /// The address handle of the peer's interrupt-driven QP (hybrid), or of its QP when
  /// it published none.
  const fabric::AddressHandle& interrupt_handle_for(int peer, Peer& p);
  /// The peer's published QP addresses: its QP's, then its interrupt QP's (or empty).
  std::pair<fabric::Address, fabric::Address> addresses_of(int peer) const;
  bool slot_available() const noexcept { return !free_slots_.empty(); }
  /// Writes and posts a Data datagram now (window open, slot free).
  void send_now(int peer, Peer& p, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill);
  void post_slot(int peer, Peer& p, std::uint32_t slot, bool to_interrupt_qp = false);
  /// Posts an unacknowledged packet again, its ACK field brought up to date; to the
  /// peer's interrupt QP for a timeout under the hybrid method.
  void resend(int peer, Peer& p, std::uint32_t slot, bool to_interrupt_qp = false);
  /// Writes `header` into control buffer `index` and returns its send (without the
  /// address handle); `sge` receives the scatter entry the request points to.
  fabric::SendWr control_datagram(std::uint32_t index, const UdHeader& header, std::uint64_t wr_id, fabric::Sge& sge);
  /// Sends an ACK, NACK or Probe now; false (and controls_blocked_) when there is no room.
  bool send_control(int peer, Peer& p, UdKind kind, std::uint32_t seq, std::uint8_t flags = 0);
  void handle_datagram(std::span<const std::byte> bytes, double now);
  /// Hands a packet to the protocols, or (in an agent pass) keeps a copy in taken_.
  void deliver(int peer, Peer& p, const UdDatagram& d, std::span<const std::byte> bytes, double now);
  /// Hands the agent's packets to the protocols (the rank, holding the mutex).
  std::size_t deliver_taken();
  void take_ack(int peer, Peer& p, std::uint32_t ack);
  void release_slot(std::uint32_t slot);
  void post_receive(std::uint32_t slot);
  /// Doubles the receive buffers posted (up to recv_buffers_) when the last look at the
  /// receive CQ found at least half of them taken: a burst that could have found none
  /// posted. The new buffers come from below those posted (see post_receive's order).
  void grow_receives();
  /// After a look that found every posted receive taken: an Ack flagged kUdFlagOverrun
  /// to each peer whose datagrams it found (look_peers_), which sends again what it
  /// has in flight. A peer none of whose datagrams found a receive is not known; its
  /// tail-loss Probe or timeout recovers them.
  void report_overrun();
  /// Posts the receive buffers consumed since the last call (see reposts_).
  void repost_consumed();
  void reap_sends();
  std::size_t flush_pending();
  std::size_t run_timers(double now);
  void mark_timed(int peer, Peer& p);
  void wait_once();
  void shutdown();
  /// The reliability agent (thread and hybrid): its QP and receive buffers (made before
  /// the addresses are published; the agent is spawned after), and its loop.
  void start_agent_qp();
  void agent_body();
  /// One pass of the agent, holding the mutex; true when a Stop arrived.
  bool agent_pass();
  /// Takes in the datagrams on the channel's receive CQ (posting their buffers again).
  std::size_t poll_receives(double& now);
  /// Sends a header-only datagram of `kind` to this rank's own QP (or interrupt QP).
  void send_to_self(UdKind kind, bool to_interrupt_qp);
  /// Sends Stop datagrams to this rank's own QP (or interrupt QP) until `seen` is set.
  void stop_until_seen(const std::atomic<bool>& seen, bool to_interrupt_qp);
  /// Stops the agent: Stop datagrams to its QP until it has seen one, then join.
  void stop_agent();
  /// Send slot `slot`'s datagram (slots_[slot].length bytes): in its head slot when
  /// it fits one (packed together: a stream of small datagrams touches a page per ~30
  /// held, not a page each), in its buffer otherwise.
  std::byte* send_buffer(std::uint32_t slot) const noexcept {
    return slots_[slot].length <= kSendHeadBytes
               ? storage_.get() + send_base_ + std::size_t{slot} * kSendHeadBytes
               : storage_.get() + send_body_base_ + std::size_t{slot} * datagram_bytes_;
  }
  /// The datagram in receive slot `slot`, `byte_len` bytes with the GRH (the
  /// completion's), made contiguous (see post_receive).
  std::span<const std::byte> received_datagram(std::uint32_t slot, std::uint32_t byte_len);

  /// Receive head slot size, GRH included: a datagram of up to 136 bytes (headers and
  /// 64 bytes of payload, or an ACK) lands entirely in it, and 23 of them share a page.
  static constexpr std::uint32_t kHeadSlotBytes = 176;
  /// Send head slot size: the same datagrams, without the GRH.
  static constexpr std::uint32_t kSendHeadBytes = kHeadSlotBytes - fabric::kUdGrhBytes;

  fabric::Device& device_;
  const HostWork work_;  ///< the payload copies into and out of packet buffers (host_work.hpp)
  fabric::OobExchange& oob_;
  PacketSink& sink_;
  fabric::Runtime& runtime_;
  const int rank_;
  const int size_;
  UdReliabilityParameters params_;
  std::uint32_t datagram_bytes_ = 0;  ///< the MTU: the largest datagram, headers included
  ChannelCapabilities capabilities_;
  const std::uint32_t recv_buffers_;  ///< the most receive buffers posted (the storage's)
  std::uint32_t recv_depth_ = 0;      ///< receive buffers in use: slots [recv_buffers_ - depth, recv_buffers_)
  std::uint32_t recv_posted_after_look_ = 0;  ///< receives posted when the last look at the CQ ended
  const std::uint32_t send_buffers_;

  std::unique_ptr<fabric::CompletionQueue> recv_cq_;
  std::unique_ptr<fabric::CompletionQueue> send_cq_;
  std::unique_ptr<fabric::QueuePair> qp_;
  std::array<fabric::CompletionQueue*, 2> cqs_{};
  BufferStorage storage_;  ///< receive buffers, send buffers, control buffers
  std::unique_ptr<fabric::MemoryRegion> region_;
  std::size_t recv_body_base_ = 0;  ///< where the receive buffers start (after the head slots)
  std::uint32_t head_bytes_ = 0;    ///< receive head slot size; 0: one SGE per receive
  std::size_t send_base_ = 0;       ///< the send head slots
  std::size_t send_body_base_ = 0;  ///< the send buffers
  std::size_t control_base_ = 0;
  fabric::Sge base_sge_{};
  std::vector<SendSlot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> free_controls_;
  std::uint32_t send_wr_outstanding_ = 0;
  std::uint32_t send_wr_limit_ = 0;
  std::uint32_t max_inline_ = 0;  ///< the UD QP's: datagrams up to this size are posted inline

  std::unordered_map<int, Peer> peers_;
  int cached_peer_ = -1;
  Peer* cached_ = nullptr;
  std::vector<int> timed_peers_;  ///< peers with packets in flight or an ACK owed (each once)
  std::vector<int> flush_list_;   ///< peers whose pending FIFO may move (each once)
  std::vector<std::uint32_t> scratch_slots_;
  std::vector<std::uint32_t> reposts_;  ///< receive buffers handed up, not posted again yet
  std::uint32_t looks_ = 0;             ///< looks at the receive CQ (poll_receives calls)
  std::vector<int> look_peers_;         ///< the peers whose datagrams the current look found
  std::vector<int> scratch_peers_;
  std::uint64_t pending_total_ = 0;
  double next_timer_ = UdSendWindow::kNever;  ///< no timer of any peer is due before it
  bool controls_blocked_ = false;  ///< a control datagram found no buffer or queue room
  std::atomic<bool> stop_{false};  ///< shutdown: the Stop datagram arrived (set by the agent)

  // The reliability agent (thread and hybrid methods; absent under progress).
  const UdReliability reliability_;
  const double thread_wake_;  ///< seconds between the watchdog's wake-ups (thread)
  mutable fabric::AgentMutex mutex_;
  mutable int rank_depth_ = 0;  ///< the rank's nested holds of mutex_
  bool in_agent_pass_ = false;  ///< deliveries go to taken_
  std::deque<Taken> taken_;
  std::unique_ptr<fabric::CompletionQueue> interrupt_cq_;
  std::unique_ptr<fabric::QueuePair> interrupt_qp_;  ///< hybrid: where peers' timed-out packets come
  BufferStorage interrupt_storage_;
  std::unique_ptr<fabric::MemoryRegion> interrupt_region_;
  std::unique_ptr<fabric::AddressHandle> self_handle_;            ///< this rank's QP
  std::unique_ptr<fabric::AddressHandle> self_interrupt_handle_;  ///< this rank's interrupt QP
  std::unique_ptr<fabric::Agent> agent_;
  std::atomic<bool> agent_stopped_{false};  ///< the agent saw its Stop or failed (set by the agent)
  std::exception_ptr agent_error_;  ///< what ended the agent, for the rank's next progress()
  ChannelCounters counters_;
  std::array<fabric::WorkCompletion, 16> completions_{};
};

}  // namespace twinfab::mpi
