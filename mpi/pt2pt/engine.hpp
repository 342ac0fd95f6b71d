// twinfab MPI pt2pt: the point-to-point engine of one rank (protocols and matching).
//
// Sits between the Context (argument checking, request table, waiting) and the
// rank's channel (mpi/channels/channel.hpp: packets, RDMA where offered), whichever
// implementation it is; the protocols follow the channel's capabilities (protocol.hpp).
// It owns the posted and unexpected queues:
//
//  - Eager (tiny/short): the first packet carries the envelope and the packed size;
//    continuation packets follow to the same peer (a channel delivers a peer's
//    packets in order, so they cannot interleave with another message's). An unexpected eager message is copied out of the packet buffers at
//    once, so credits return whether or not a receive is ever posted.
//  - Rendezvous: the RTS waits in the unexpected queue until matched; then, by the
//    variant the sender chose: write-imm (CTS; the sender's last RDMA write carries
//    the receiver's token as immediate), write-fin (CTS; writes; then a FIN packet),
//    read (the receiver reads and sends FIN to the sender). Buffers are registered
//    per transfer through MemoryRegistration; non-contiguous types go through a
//    packed staging buffer.
//  - Messages to this rank itself skip the channel: delivered as one eager message.
//  - Matched probes (MPI_Mprobe) take a message out of the unexpected queue and keep
//    it, by MessageId, outside all matching until a matched receive gives it a
//    buffer; that receive then proceeds as a receive that found the message in the
//    unexpected queue (for a rendezvous: the handshake starts only then).
//
// Non-overtaking order holds because a channel delivers a peer's packets in order, matching happens
// when the first packet of a message arrives, and the matching queues keep order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "mpi/channels/channel.hpp"
#include "mpi/core/config.hpp"
#include "mpi/core/host_work.hpp"
#include "mpi/core/matching.hpp"
#include "mpi/core/request.hpp"
#include "mpi/pt2pt/protocol.hpp"
#include "mpi/pt2pt/registration.hpp"

namespace twinfab::mpi {

/// Which protocols ran, for tests and experiments.
struct Pt2ptCounters {
  std::uint64_t tiny = 0;
  std::uint64_t short_eager = 0;
  std::uint64_t rendezvous_write_imm = 0;
  std::uint64_t rendezvous_read = 0;
  std::uint64_t rendezvous_write_fin = 0;
  std::uint64_t self = 0;
  std::uint64_t unexpected = 0;   ///< messages that arrived before their receive
  std::uint64_t registrations = 0;
};

/// A message (or an RTS) that arrived before its receive was posted.
struct IncomingMessage {
  int source_world = 0;
  bool rendezvous = false;
  std::uint64_t total = 0;           ///< packed bytes the sender sends
  std::uint64_t sender_request = 0;
  bool sync = false;
  // eager
  std::vector<std::byte> data;
  std::uint64_t received = 0;
  Request* attached = nullptr;       ///< matched while continuation packets still come
  // rendezvous
  std::uint8_t variant = 0;
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
};

/// Completions of RDMA operations another layer (one-sided, mpi/rma) posted on the
/// channel: cookies with kForeignCookieBit set are handed here, not to a request.
class RdmaCompletionHandler {
 public:
  virtual ~RdmaCompletionHandler() = default;
  virtual void on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) = 0;
};
/// The cookie bit that marks an RDMA operation as RdmaCompletionHandler's; the
/// engine's own cookies stay below it.
inline constexpr std::uint32_t kForeignCookieBit = 1u << 31;

class Pt2ptEngine final : public PacketSink {
 public:
  /// `work`: where the engine's own CPU work is charged (host_work.hpp).
  Pt2ptEngine(int world_rank, int world_size, const Config& config, RequestTable& requests,
              MemoryRegistration& registration, HostWork work);
  /// The channel is created after the engine (it needs the engine as its sink). Its
  /// capabilities are read here, once: they are fixed for its life, and every send
  /// consults them.
  void attach_channel(Channel* channel) noexcept {
    channel_ = channel;
    channel_caps_ = channel->capabilities();
  }
  /// Where completions of cookies with kForeignCookieBit go (null: nowhere).
  void set_rdma_completion_handler(RdmaCompletionHandler* handler) noexcept { foreign_rdma_ = handler; }

  /// Starts a send of `request` (buffer, count, type, bytes, context id, peer_world
  /// and tag filled in) from communicator rank `source`.
  void start_send(Request& request, int source, SendMode mode);
  /// A standard-mode send of `bytes` from a contiguous (count, type) buffer that needs
  /// no request: when the message goes as one tiny packet to another rank, hands it to
  /// the channel (sent now, or copied into the connection's FIFO) and returns true;
  /// otherwise does nothing and returns false (the caller takes the request path).
  bool send_tiny(const void* buffer, std::uint64_t bytes, const Datatype& type, int peer_world,
                 ContextId context_id, int source, int tag);
  /// Matches `request` against the unexpected queue or posts it.
  void start_recv(Request& request, const Envelope& wanted);
  /// The envelope and size of the first unexpected message `wanted` accepts.
  bool probe(const Envelope& wanted, MessageStatus* status) const;
  /// MPI_Mprobe/MPI_Improbe: takes the first unexpected message `wanted` accepts
  /// (the one probe() reports) out of the matching, so that no receive or probe can
  /// match it any more, fills `status` as probe() does, and keeps it under a new id
  /// (> kMessageNoProc) for start_matched_recv(). Nothing when no message matches.
  std::optional<MessageId> take_matched(const Envelope& wanted, MessageStatus* status);
  /// Whether `id` names a message take_matched() returned that no receive took yet.
  bool is_matched(MessageId id) const { return matched_.count(id) != 0; }
  /// MPI_Mrecv/MPI_Imrecv: starts `request` (buffer, count, type and bytes filled in)
  /// on message `id` (is_matched(id)) as start_recv() does on an unexpected message:
  /// eager data is placed now (or as it arrives), a rendezvous handshake starts now.
  void start_matched_recv(Request& request, MessageId id);
  /// Removes a still-posted receive; false when it already matched.
  bool cancel(Request& request);

  const Pt2ptCounters& counters() const noexcept { return counters_; }
  /// Where the rank's MPI work is charged (one-sided operations use it too).
  const HostWork& host_work() const noexcept { return work_; }
  /// The lengths of the posted and unexpected queues (both keep a count).
  std::size_t posted_receives() const noexcept { return posted_.size(); }
  std::size_t unexpected_messages() const noexcept { return unexpected_.size(); }

  // PacketSink
  void on_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) override;
  void on_write_immediate(int peer, std::uint32_t imm) override;
  void on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) override;

 private:
  struct Inbound {  // the eager message whose continuation packets are arriving
    Request* request = nullptr;
    std::shared_ptr<IncomingMessage> message;
  };

  void send_eager(Request& request, int source, bool sync, Protocol protocol);
  /// The first packet's header of an eager message (also used for messages to self).
  static PacketHeader eager_header(const Request& request, int source, bool sync);
  void send_rts(Request& request, int source, RendezvousVariant variant);
  void send_control(int peer, const PacketHeader& header);
  void deliver_eager(int peer, const PacketHeader& header, std::span<const std::byte> payload);
  void continue_eager(int peer, std::span<const std::byte> payload);
  void on_rts(int peer, const PacketHeader& header);
  void on_cts(int peer, const PacketHeader& header);
  void on_fin(const PacketHeader& header);
  void on_sync_ack(const PacketHeader& header);
  void match_unexpected(Request& request, const std::shared_ptr<IncomingMessage>& message, const Envelope& envelope);
  void place(Request& request, std::uint64_t offset, std::span<const std::byte> chunk);
  void complete_recv(Request& request);
  void start_rendezvous_recv(Request& request, const IncomingMessage& rts);
  void finish_rendezvous_recv(Request& request);
  void post_rdma_chunks(Request& request, int peer, RdmaOp::Kind kind, std::uint64_t remote_addr,
                        std::uint32_t rkey, std::uint32_t imm);
  void finish_send(Request& request);
  std::uint32_t new_token();
  std::uint32_t new_cookie(Request& request);

  const int rank_;
  const Config& config_;
  RequestTable& requests_;
  MemoryRegistration& registration_;
  const HostWork work_;
  Channel* channel_ = nullptr;
  ChannelCapabilities channel_caps_;  ///< channel_->capabilities(), copied at attach
  RdmaCompletionHandler* foreign_rdma_ = nullptr;
  PostedQueue<Request*> posted_;
  UnexpectedQueue<std::shared_ptr<IncomingMessage>> unexpected_;
  /// By world rank, only while a multi-packet eager message from that peer is
  /// arriving (sparse: a rank of a 4096-rank job talks to a few peers).
  std::unordered_map<int, Inbound> inbound_;
  std::unordered_map<std::uint32_t, Request*> tokens_;   // receiver side, write variants
  std::unordered_map<std::uint32_t, Request*> cookies_;  // RDMA this rank posted
  /// Matched by a matched probe, waiting for their receive (empty, and allocating
  /// nothing, in a program that does not use matched probes).
  std::unordered_map<MessageId, UnexpectedQueue<std::shared_ptr<IncomingMessage>>::Message> matched_;
  MessageId next_message_ = kMessageNoProc + 1;
  std::uint32_t next_token_ = 1;
  std::uint32_t next_cookie_ = 1;
  Pt2ptCounters counters_;
};

}  // namespace twinfab::mpi
