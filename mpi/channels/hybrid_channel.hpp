// twinfab MPI channels: the hybrid channel (TWINFAB_TRANSPORT=hybrid), UD to every
// peer and an RC connection, opened on demand, to the peers a rank sends the most to.
//
// Why (seed 004 §8 names the conditions where UD or RC wins as future work; MVAPICH2
// later combined them): UD keeps a process's memory
// and its HCA's QP-context cache flat however many peers it has, but pays for
// reliability in software; RC gives hardware reliability (and RDMA) at a QP context
// and buffers per peer. A job that talks to a few peers a lot and to many a little
// gets both: each rank sends over its UdChannel until it has sent
// TWINFAB_HYBRID_RC_THRESHOLD packets to a peer, then over an RcChannel connection to
// that peer (made on demand, through the RC channel's UD connector), at most
// TWINFAB_HYBRID_MAX_RC peers per rank.
//
// Order. MPI orders a peer's messages; two channels do not order each other. So the
// switch is made at a message boundary (never between an Eager packet and its
// EagerData continuations), and the last UD packet to the peer is a Switch packet:
// the receiver holds (copies) what arrives from that peer over RC until the Switch
// has come over UD, behind every earlier UD packet, then delivers the held packets
// and everything after in order. The two directions of a pair switch independently.
//
// Capabilities: UD's (packets of an MTU, no RDMA) for every peer, so one-sided
// communication and the protocols to UD peers behave as over UD; capabilities(peer)
// adds RC's RDMA for a peer this rank sends to over RC, so a long message to it is a
// zero-copy RDMA rendezvous (seed 004's follow-up: large messages by an RC connection
// opened on demand). Packets keep UD's size on both, so a message's segments fit
// either channel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"
#include "fabric/oob_keys.hpp"
#include "mpi/channels/channel.hpp"
#include "mpi/core/config.hpp"

namespace twinfab::mpi {

class UdChannel;
class RcChannel;

class HybridChannel final : public Channel {
 public:
  /// Creates the UD channel and the RC channel (on-demand connections): collective.
  /// Throws as UdChannel does on a device without UD.
  HybridChannel(fabric::Device& device, fabric::OobExchange& oob, const Config& config, PacketSink& sink);
  /// Collective. Both channels drain together first (a Switch queued over UD holds the
  /// RC packets behind it; RC packets need the peer's RC progress for credits), then
  /// every rank meets the others while an agent keeps both channels going, then the RC
  /// channel's shutdown and the UD channel's.
  ~HybridChannel() override;
  void abandon() noexcept override;
  HybridChannel(const HybridChannel&) = delete;
  HybridChannel& operator=(const HybridChannel&) = delete;

  const ChannelCapabilities& capabilities() const noexcept override;
  /// UD's, or RC's RDMA with UD's packet size once this rank sends to `peer` over RC, or
  /// will from its next message on (asked at a message's start, before its packets).
  const ChannelCapabilities& capabilities(int peer) const noexcept override;
  void send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) override;
  using Channel::send_packet;
  /// Over the RC connection to `peer`: one this rank sends over (capabilities(peer)
  /// offered it), or one the peer sends over to this rank (a rendezvous read for a
  /// message it sent over RC). Ordered with this rank's packets to `peer` only when
  /// those go over RC too; the engine's reads send their FIN after completion, which
  /// is all a read needs. Without an RC connection: an error naming the operation.
  void post_rdma(int peer, const RdmaOp& op) override;
  std::size_t progress() override;
  WaitSet wait_set() const override;
  /// Both channels' counters, summed (pending_peak: the larger).
  const ChannelCounters& counters() const noexcept override;

  /// Peers this rank sends to over RC (for tests and counters).
  std::size_t rc_peers() const noexcept { return rc_peers_; }

 private:
  /// Which channel a packet came from: the two sub-channels deliver through these.
  class Side final : public PacketSink {
   public:
    Side(HybridChannel& owner, bool rc) : owner_(owner), rc_(rc) {}
    void on_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) override;
    void on_write_immediate(int peer, std::uint32_t imm) override;
    void on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) override;

   private:
    HybridChannel& owner_;
    const bool rc_;
  };
  struct Held {
    PacketHeader header{};
    std::vector<std::byte> payload;
  };
  struct Peer {
    std::uint64_t packets_sent = 0;  ///< over UD, before the switch
    bool sends_over_rc = false;
    bool switch_received = false;  ///< the peer's Switch arrived: its RC packets are next in order
    std::deque<Held> held;         ///< from the peer over RC, before its Switch
  };

  Peer& peer_state(int peer) { return peers_[peer]; }
  /// Collective: drains both channels together, then meets every rank while an agent
  /// keeps both going (see the destructor).
  void shutdown();
  void on_ud_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload);
  void on_rc_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload);

  fabric::OobExchange& oob_;
  fabric::Runtime& runtime_;
  PacketSink& sink_;
  const std::uint64_t threshold_;
  const std::uint32_t max_rc_;
  ChannelCapabilities caps_;     ///< UD's (varies_by_peer when RC is allowed)
  ChannelCapabilities rc_caps_;  ///< RC's RDMA with UD's packet size: a peer on RC
  Side ud_side_;
  Side rc_side_;
  fabric::OobKeys oob_keys_;  ///< each channel publishes its addresses under a key of its own
  std::unique_ptr<UdChannel> ud_;
  std::unique_ptr<RcChannel> rc_;
  std::unordered_map<int, Peer> peers_;
  std::size_t rc_peers_ = 0;
  mutable std::vector<fabric::CompletionQueue*> sources_;
  mutable ChannelCounters counters_;
};

}  // namespace twinfab::mpi
