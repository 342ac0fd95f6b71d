#include "mpi/pt2pt/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace twinfab::mpi {

namespace {

// One RDMA work request moves at most this much (the contract caps a message at
// 2 GiB); larger transfers are split, and only the last write carries the immediate.
constexpr std::uint64_t kRdmaChunk = 1ull << 30;

/// Where the bytes of a contiguous (count, type) buffer start.
std::byte* contiguous_start(void* buffer, const Datatype& type) {
  auto* base = static_cast<std::byte*>(buffer);
  return type.blocks().empty() ? base : base + type.blocks().front().offset;
}

}  // namespace

Pt2ptEngine::Pt2ptEngine(int world_rank, int /*world_size: no per-peer state*/, const Config& config, RequestTable& requests,
                         MemoryRegistration& registration, HostWork work)
    : rank_(world_rank),
      config_(config),
      requests_(requests),
      registration_(registration),
      work_(work) {}

std::uint32_t Pt2ptEngine::new_token() {
  // 31 bits (an immediate whose top bit the channel keeps for its control messages,
  // packet.hpp); skip 0 (means "no token") and tokens still in use.
  do {
    next_token_ = (next_token_ + 1) & ~kImmControl;
  } while (next_token_ == 0 || tokens_.count(next_token_) != 0);
  return next_token_;
}

std::uint32_t Pt2ptEngine::new_cookie(Request& request) {
  do {
    next_cookie_ = (next_cookie_ + 1) & ~kForeignCookieBit;
  } while (next_cookie_ == 0 || cookies_.count(next_cookie_) != 0);
  cookies_[next_cookie_] = &request;
  return next_cookie_;
}

// ---------------------------------------------------------------- sending

void Pt2ptEngine::start_send(Request& request, int source, SendMode mode) {
  const bool sync = mode == SendMode::Synchronous;
  if (request.peer_world == rank_) {
    ++counters_.self;
    std::vector<std::byte> packed(request.bytes);
    if (request.bytes > 0) pack(request.buffer, request.count, *request.type, 0, packed, "MPI_Send");
    // To itself: packed and placed, as a message through a channel would be (no
    // channel charges the copies here).
    work_.packet_sent();
    work_.packet_received();
    work_.copied(2 * request.bytes);
    const PacketHeader header = eager_header(request, source, sync);
    request.sync_pending = sync;
    request.done = !sync;
    deliver_eager(rank_, header, packed);
    return;
  }
  // A channel whose peers differ (hybrid: RDMA to the peers on RC) is asked per peer.
  const ChannelCapabilities& caps =
      channel_caps_.varies_by_peer ? channel_->capabilities(request.peer_world) : channel_caps_;
  const Protocol protocol = choose_protocol(request.bytes, config_, caps);
  if (protocol == Protocol::Rendezvous) {
    send_rts(request, source, resolve_variant(config_.rendezvous, caps));
  } else {
    send_eager(request, source, sync, protocol);
  }
}

bool Pt2ptEngine::send_tiny(const void* buffer, std::uint64_t bytes, const Datatype& type, int peer_world,
                            ContextId context_id, int source, int tag) {
  if (peer_world == rank_ || choose_protocol(bytes, config_, channel_caps_) != Protocol::Tiny) return false;
  ++counters_.tiny;
  PacketHeader header;
  header.type = PacketType::Eager;
  header.context_id = context_id;
  header.source = source;
  header.tag = tag;
  header.total_bytes = bytes;
  header.sender_request = 0;  // no request: only a synchronous send is answered
  const std::byte* data = bytes > 0 ? contiguous_start(const_cast<void*>(buffer), type) : nullptr;
  work_.packet_sent();
  channel_->send_packet(peer_world, header, {data, static_cast<std::size_t>(bytes)});
  return true;
}

PacketHeader Pt2ptEngine::eager_header(const Request& request, int source, bool sync) {
  PacketHeader header;
  header.type = PacketType::Eager;
  header.flags = sync ? kFlagSync : 0;
  header.context_id = request.context_id;
  header.source = source;
  header.tag = request.tag;
  header.total_bytes = request.bytes;
  header.sender_request = request.id;
  return header;
}

void Pt2ptEngine::send_eager(Request& request, int source, bool sync, Protocol protocol) {
  ++(protocol == Protocol::Tiny ? counters_.tiny : counters_.short_eager);
  PacketHeader header = eager_header(request, source, sync);
  const std::uint64_t chunk = channel_caps_.max_payload;
  std::uint64_t position = 0;
  do {
    const std::uint64_t n = std::min(chunk, request.bytes - position);
    work_.packet_sent();
    channel_->send_packet(request.peer_world, header, n, [&](std::span<std::byte> out) {
      if (!out.empty()) pack(request.buffer, request.count, *request.type, position, out, "MPI_Send");
    });
    position += n;
    header.type = PacketType::EagerData;
  } while (position < request.bytes);
  // The data is in packet buffers (or pending copies): the user buffer is free.
  request.sync_pending = sync;
  request.done = !sync;
}

void Pt2ptEngine::send_rts(Request& request, int source, RendezvousVariant variant) {
  switch (variant) {
    case RendezvousVariant::WriteImm: ++counters_.rendezvous_write_imm; break;
    case RendezvousVariant::Read: ++counters_.rendezvous_read; break;
    default: ++counters_.rendezvous_write_fin; break;
  }
  void* data;
  if (request.type->is_contiguous()) {
    data = contiguous_start(request.buffer, *request.type);
  } else {
    request.staging.resize(request.bytes);
    pack(request.buffer, request.count, *request.type, 0, request.staging, "MPI_Send");
    work_.copied(request.bytes);
    data = request.staging.data();
  }
  request.region = registration_.acquire(data, request.bytes);
  ++counters_.registrations;
  request.variant = static_cast<std::uint8_t>(variant);
  request.sync_pending = true;
  PacketHeader header;
  header.type = PacketType::Rts;
  header.variant = request.variant;
  header.context_id = request.context_id;
  header.source = source;
  header.tag = request.tag;
  header.total_bytes = request.bytes;
  header.sender_request = request.id;
  header.remote_addr = request.region->remote_addr();
  header.rkey = request.region->rkey();
  send_control(request.peer_world, header);
}

void Pt2ptEngine::send_control(int peer, const PacketHeader& header) {
  if (peer == rank_) {
    on_packet(peer, header, {});
    return;
  }
  work_.packet_sent();
  channel_->send_packet(peer, header, 0, [](std::span<std::byte>) {});
}

void Pt2ptEngine::post_rdma_chunks(Request& request, int peer, RdmaOp::Kind kind, std::uint64_t remote_addr,
                                   std::uint32_t rkey, std::uint32_t imm) {
  const std::uint32_t cookie = new_cookie(request);
  const std::uint64_t total = request.transfer_bytes;
  request.rdma_outstanding = static_cast<std::uint32_t>((total + kRdmaChunk - 1) / kRdmaChunk);
  for (std::uint64_t offset = 0; offset < total; offset += kRdmaChunk) {
    const std::uint64_t n = std::min(kRdmaChunk, total - offset);
    RdmaOp op;
    const bool last = offset + n == total;
    op.kind = kind == RdmaOp::Kind::WriteWithImm && !last ? RdmaOp::Kind::Write : kind;
    op.local = request.region->sge(offset, static_cast<std::uint32_t>(n));
    op.remote_addr = remote_addr + offset;
    op.rkey = rkey;
    op.imm = imm;
    op.cookie = cookie;
    channel_->post_rdma(peer, op);
  }
}

void Pt2ptEngine::on_cts(int peer, const PacketHeader& header) {
  Request* request = requests_.find(header.sender_request);
  if (request == nullptr) return;  // cannot happen with a correct peer
  request->transfer_bytes = std::min<std::uint64_t>(header.total_bytes, request->bytes);
  request->token = header.token;
  if (request->transfer_bytes == 0) {  // the receive takes nothing: no data moves
    finish_send(*request);
    return;
  }
  const auto variant = static_cast<RendezvousVariant>(request->variant);
  post_rdma_chunks(*request, peer,
                   variant == RendezvousVariant::WriteImm ? RdmaOp::Kind::WriteWithImm : RdmaOp::Kind::Write,
                   header.remote_addr, header.rkey, header.token);
}

void Pt2ptEngine::finish_send(Request& request) {
  request.region.reset();  // deregisters (or returns it to a cache)
  request.staging = {};
  request.sync_pending = false;
  request.done = true;
}

void Pt2ptEngine::on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) {
  if ((cookie & kForeignCookieBit) != 0) {
    if (foreign_rdma_ != nullptr) foreign_rdma_->on_rdma_done(cookie, status);
    return;
  }
  auto it = cookies_.find(cookie);
  if (it == cookies_.end()) return;
  Request& request = *it->second;
  if (status != fabric::WcStatus::Success) request.status.error = ErrorClass::MPI_ERR_OTHER;
  if (--request.rdma_outstanding > 0) return;
  cookies_.erase(it);
  if (request.kind == Request::Kind::Send) {
    // Write variants. write-fin tells the receiver now; the FIN leaves after the
    // write completed, so the data is in place when it arrives.
    if (static_cast<RendezvousVariant>(request.variant) == RendezvousVariant::WriteFin) {
      PacketHeader fin;
      fin.type = PacketType::Fin;
      fin.token = request.token;
      send_control(request.peer_world, fin);
    }
    finish_send(request);
  } else {
    // Read variant: the data is here; the sender may reuse its buffer.
    PacketHeader fin;
    fin.type = PacketType::Fin;
    fin.sender_request = request.remote_request;
    send_control(request.peer_world, fin);
    finish_rendezvous_recv(request);
  }
}

// ---------------------------------------------------------------- receiving

void Pt2ptEngine::start_recv(Request& request, const Envelope& wanted) {
  auto found = unexpected_.match(wanted);
  if (found) {
    match_unexpected(request, found->value, found->envelope);
    return;
  }
  request.posted = posted_.post(wanted, &request);
  request.is_posted = true;
}

namespace {

/// What a probe reports of an unexpected message: its envelope and full size.
void probed_status(const Envelope& envelope, const IncomingMessage& message, MessageStatus* status) {
  if (status == nullptr) return;
  status->source = envelope.source;
  status->tag = envelope.tag;
  status->error = ErrorClass::MPI_SUCCESS;
  status->count_bytes = static_cast<std::int64_t>(message.total);
  status->cancelled = false;
}

}  // namespace

bool Pt2ptEngine::probe(const Envelope& wanted, MessageStatus* status) const {
  const auto* message = unexpected_.probe(wanted);
  if (message == nullptr) return false;
  probed_status(message->envelope, *message->value, status);
  return true;
}

std::optional<MessageId> Pt2ptEngine::take_matched(const Envelope& wanted, MessageStatus* status) {
  auto found = unexpected_.match(wanted);
  if (!found) return std::nullopt;
  probed_status(found->envelope, *found->value, status);
  // An eager message may still be arriving: inbound_ keeps its own reference and
  // goes on filling it; the receive attaches to it later (match_unexpected).
  const MessageId id = next_message_++;
  matched_.emplace(id, std::move(*found));
  return id;
}

void Pt2ptEngine::start_matched_recv(Request& request, MessageId id) {
  auto it = matched_.find(id);
  if (it == matched_.end()) return;  // the caller checked is_matched()
  auto matched = std::move(it->second);
  matched_.erase(it);
  match_unexpected(request, matched.value, matched.envelope);
}

bool Pt2ptEngine::cancel(Request& request) {
  if (!request.is_posted) return false;
  if (!posted_.cancel(request.posted)) return false;
  request.is_posted = false;
  request.status.cancelled = true;
  request.status.count_bytes = 0;
  request.done = true;
  return true;
}

void Pt2ptEngine::on_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) {
  // Matching, the request's bookkeeping; the copy out of the packet buffer is the
  // channel's to charge (it knows whether there was one: host_work.hpp).
  if (peer != rank_) work_.packet_received();
  switch (header.type) {
    case PacketType::Eager: deliver_eager(peer, header, payload); break;
    case PacketType::EagerData: continue_eager(peer, payload); break;
    case PacketType::Rts: on_rts(peer, header); break;
    case PacketType::Cts: on_cts(peer, header); break;
    case PacketType::Fin: on_fin(header); break;
    case PacketType::SyncAck: on_sync_ack(header); break;
    case PacketType::CreditUpdate:
    case PacketType::Bye:
    case PacketType::EagerWhole:
    case PacketType::Switch:
    case PacketType::FastPathOffer:
    case PacketType::FastPathCredit: break;  // the channel consumed it (or expanded it to Eager)
  }
}

void Pt2ptEngine::place(Request& request, std::uint64_t offset, std::span<const std::byte> chunk) {
  request.received += chunk.size();
  if (offset >= request.bytes || chunk.empty()) return;  // truncated part: dropped
  const std::uint64_t room = request.bytes - offset;
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(room, chunk.size()));
  // A contiguous type is its packed form: copied straight to where unpack() would put
  // it (the receive's arguments were checked when it was posted, and [offset, +n)
  // lies within its packed size), without unpack()'s stream checks on every packet.
  if (request.type->is_contiguous()) {
    std::memcpy(contiguous_start(request.buffer, *request.type) + offset, chunk.data(), n);
    return;
  }
  unpack(chunk.first(n), request.buffer, request.count, *request.type, offset, "MPI_Recv");
}

void Pt2ptEngine::complete_recv(Request& request) {
  request.status.count_bytes = static_cast<std::int64_t>(std::min(request.expected, request.bytes));
  if (request.expected > request.bytes && request.status.error == ErrorClass::MPI_SUCCESS)
    request.status.error = ErrorClass::MPI_ERR_TRUNCATE;
  request.done = true;
}

void Pt2ptEngine::deliver_eager(int peer, const PacketHeader& header, std::span<const std::byte> payload) {
  const Envelope envelope{header.context_id, header.source, header.tag};
  const bool more = payload.size() < header.total_bytes;
  if (auto match = posted_.match(envelope)) {
    Request& request = **match;
    request.is_posted = false;
    request.status.source = header.source;
    request.status.tag = header.tag;
    request.peer_world = peer;
    request.expected = header.total_bytes;
    place(request, 0, payload);
    if (header.flags & kFlagSync) {
      PacketHeader ack;
      ack.type = PacketType::SyncAck;
      ack.sender_request = header.sender_request;
      send_control(peer, ack);
    }
    if (more) {
      inbound_[peer].request = &request;
    } else {
      complete_recv(request);
    }
    return;
  }
  ++counters_.unexpected;
  auto message = std::make_shared<IncomingMessage>();
  message->source_world = peer;
  message->total = header.total_bytes;
  message->sender_request = header.sender_request;
  message->sync = (header.flags & kFlagSync) != 0;
  // Copied out now, so the packet buffer (and its credit) goes back at once.
  message->data.resize(header.total_bytes);
  // (memcpy must not see the null data() of an empty span, even for zero bytes.)
  if (!payload.empty()) std::memcpy(message->data.data(), payload.data(), payload.size());
  message->received = payload.size();
  if (more) inbound_[peer].message = message;
  unexpected_.push(envelope, std::move(message));
}

void Pt2ptEngine::continue_eager(int peer, std::span<const std::byte> payload) {
  const auto it = inbound_.find(peer);
  if (it == inbound_.end()) return;  // cannot happen with a correct peer
  Inbound& in = it->second;
  if (in.request != nullptr) {
    Request& request = *in.request;
    place(request, request.received, payload);
    if (request.received >= request.expected) {
      inbound_.erase(it);
      complete_recv(request);
    }
    return;
  }
  if (!in.message) return;  // cannot happen with a correct peer
  IncomingMessage& message = *in.message;
  const std::size_t n = std::min<std::size_t>(payload.size(), message.total - message.received);
  if (n > 0) std::memcpy(message.data.data() + message.received, payload.data(), n);
  if (message.attached != nullptr) {
    place(*message.attached, message.received, payload.first(n));
    work_.copied(n);  // into the unexpected buffer (the channel's) and the receive buffer
  }
  message.received += n;
  if (message.received >= message.total) {
    Request* attached = message.attached;
    inbound_.erase(it);  // releases this reference to the message
    if (attached != nullptr) complete_recv(*attached);
  }
}

void Pt2ptEngine::match_unexpected(Request& request, const std::shared_ptr<IncomingMessage>& message,
                                   const Envelope& envelope) {
  request.status.source = envelope.source;
  request.status.tag = envelope.tag;
  request.peer_world = message->source_world;
  if (message->rendezvous) {
    start_rendezvous_recv(request, *message);
    return;
  }
  request.expected = message->total;
  place(request, 0, std::span(message->data).first(message->received));
  work_.copied(message->received);  // out of the unexpected buffer: a second copy
  if (message->sync) {
    PacketHeader ack;
    ack.type = PacketType::SyncAck;
    ack.sender_request = message->sender_request;
    send_control(message->source_world, ack);
  }
  if (message->received < message->total) {
    message->attached = &request;  // continue_eager finishes it
  } else {
    complete_recv(request);
  }
}

void Pt2ptEngine::on_sync_ack(const PacketHeader& header) {
  if (Request* request = requests_.find(header.sender_request)) {
    request->sync_pending = false;
    request->done = true;
  }
}

void Pt2ptEngine::on_rts(int peer, const PacketHeader& header) {
  const Envelope envelope{header.context_id, header.source, header.tag};
  IncomingMessage rts;
  rts.source_world = peer;
  rts.rendezvous = true;
  rts.total = header.total_bytes;
  rts.sender_request = header.sender_request;
  rts.variant = header.variant;
  rts.remote_addr = header.remote_addr;
  rts.rkey = header.rkey;
  if (auto match = posted_.match(envelope)) {
    Request& request = **match;
    request.is_posted = false;
    request.status.source = header.source;
    request.status.tag = header.tag;
    request.peer_world = peer;
    start_rendezvous_recv(request, rts);
    return;
  }
  ++counters_.unexpected;
  unexpected_.push(envelope, std::make_shared<IncomingMessage>(std::move(rts)));
}

void Pt2ptEngine::start_rendezvous_recv(Request& request, const IncomingMessage& rts) {
  request.expected = rts.total;
  request.remote_request = rts.sender_request;
  request.variant = rts.variant;
  request.transfer_bytes = std::min(rts.total, request.bytes);
  const auto variant = static_cast<RendezvousVariant>(rts.variant);
  if (request.transfer_bytes == 0) {
    // Nothing fits (a truncating empty receive): release the sender at once.
    PacketHeader reply;
    reply.type = variant == RendezvousVariant::Read ? PacketType::Fin : PacketType::Cts;
    reply.sender_request = rts.sender_request;
    reply.total_bytes = 0;
    send_control(request.peer_world, reply);
    complete_recv(request);
    return;
  }
  void* target;
  if (request.type->is_contiguous()) {
    target = contiguous_start(request.buffer, *request.type);
  } else {
    request.staging.resize(request.transfer_bytes);
    target = request.staging.data();
  }
  request.region = registration_.acquire(target, request.transfer_bytes);
  ++counters_.registrations;
  if (variant == RendezvousVariant::Read) {
    post_rdma_chunks(request, request.peer_world, RdmaOp::Kind::Read, rts.remote_addr, rts.rkey, 0);
    return;
  }
  request.token = new_token();
  tokens_[request.token] = &request;
  PacketHeader cts;
  cts.type = PacketType::Cts;
  cts.sender_request = rts.sender_request;
  cts.token = request.token;
  cts.total_bytes = request.transfer_bytes;
  cts.remote_addr = request.region->remote_addr();
  cts.rkey = request.region->rkey();
  send_control(request.peer_world, cts);
}

void Pt2ptEngine::on_write_immediate(int /*peer*/, std::uint32_t imm) {
  auto it = tokens_.find(imm);
  if (it == tokens_.end()) return;
  Request& request = *it->second;
  tokens_.erase(it);
  finish_rendezvous_recv(request);
}

void Pt2ptEngine::on_fin(const PacketHeader& header) {
  if (header.token != 0) {  // write-fin: to the receiver
    on_write_immediate(-1, header.token);
    return;
  }
  if (Request* request = requests_.find(header.sender_request)) finish_send(*request);  // read: to the sender
}

void Pt2ptEngine::finish_rendezvous_recv(Request& request) {
  if (!request.staging.empty()) {
    unpack(request.staging, request.buffer, request.count, *request.type, 0, "MPI_Recv");
    work_.copied(request.staging.size());
    request.staging = {};
  }
  request.region.reset();
  request.received = request.transfer_bytes;
  complete_recv(request);
}

}  // namespace twinfab::mpi
