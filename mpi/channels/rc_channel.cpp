#include "mpi/channels/rc_channel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "fabric/error.hpp"
#include "fabric/log.hpp"
#include "mpi/channels/head_slots.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

using fabric::Status;
using fabric::WcOpcode;
using fabric::WcStatus;

// wr_id layout: what the completion is for, the peer, and a buffer index or cookie.
// Control: a credit update or Bye sent as a zero-byte write with immediate (packet.hpp).
enum class WrKind : std::uint64_t { Control = 0, Receive = 1, Packet = 2, Rdma = 3 };
constexpr std::uint64_t make_wr_id(WrKind kind, int peer, std::uint32_t index) {
  return (static_cast<std::uint64_t>(kind) << 62) | (static_cast<std::uint64_t>(peer) << 32) | index;
}
constexpr WrKind wr_kind(std::uint64_t id) { return static_cast<WrKind>(id >> 62); }
constexpr int wr_peer(std::uint64_t id) { return static_cast<int>((id >> 32) & 0x3fffffffu); }
constexpr std::uint32_t wr_index(std::uint64_t id) { return static_cast<std::uint32_t>(id); }

// How long a rank whose peer disconnected waits before it ends the job itself: the
// process manager (mpirun) needs a moment to see how the peer ended (its signal or exit
// status) and report it; a survivor that ended first had its own error reported
// instead (siw: the peer's crash showed as this rank's flushed receives).
constexpr double kPeerGoneGrace = 1.0;

}  // namespace

RcChannel::RcChannel(fabric::Device& device, fabric::OobExchange& oob, const Config& config, PacketSink& sink)
    : device_(device),
      work_(device),
      oob_(oob),
      sink_(sink),
      packet_size_(config.packet_size),
      credits_(config.credits),
      send_buffers_(config.send_buffers),
      lazy_reap_(std::clamp<std::uint32_t>(config.send_buffers / 2, 1, kLazyReap)),
      update_threshold_(config.update_threshold()),
      rank_(oob.rank()),
      size_(oob.size()) {
  const auto& caps = device_.capabilities();
  if (!caps.rc) throw fabric::Error(Status::Unsupported, "the RC channel needs a device with RC queue pairs");
  // Packets larger than a head slot are rare per connection next to small ones; see
  // head_bytes_. One SGE (the whole packet in its buffer) when the device has no two.
  head_bytes_ = caps.max_sge >= 2 && packet_size_ > 2 * kHeadSlotBytes ? kHeadSlotBytes : 0;
  control_by_immediate_ = caps.write_with_imm;
  const std::uint64_t peers = static_cast<std::uint64_t>(size_ > 1 ? size_ - 1 : 0);
  const std::uint32_t send_buffers = send_buffers_;

  if (config.srq != 0) configure_srq(config);
  configure_fast_path(config);

  // On demand needs UD for the connector and QPs that connect from their peer's
  // address alone (iWARP connects through rdma_cm: start-up only).
  const bool on_demand_possible = caps.ud && !caps.requires_connection_manager;
  bool on_demand = false;
  switch (config.connect) {
    case ConnectMode::Startup: break;
    case ConnectMode::OnDemand:
      if (!on_demand_possible)
        throw Error(ErrorClass::MPI_ERR_ARG, "TWINFAB_CONNECT",
                    fmt::format("on-demand connections need UD queue pairs and connections without a connection "
                                "manager; device {} has {}: use TWINFAB_CONNECT=startup or auto",
                                caps.device_name, caps.ud ? "a connection manager" : "no UD"));
      on_demand = true;
      break;
    case ConnectMode::Auto:
      on_demand = on_demand_possible && static_cast<std::uint64_t>(size_) > config.on_demand_threshold;
      break;
  }

  // One send CQ entry per send buffer plus as many RDMA operations again; the CQ
  // can never overflow because posting stops at send_cq_limit_.
  send_cq_limit_ = std::min<std::uint32_t>(caps.max_cqe, send_buffers * 2);
  std::uint64_t recv_entries = std::max<std::uint64_t>(1, peers * (credits_ + 1));
  if (config.srq != 0) {
    // One entry per pool buffer: a receive completion needs a posted buffer.
    recv_entries = std::min<std::uint64_t>(pool_->max_size, caps.max_cqe);
    pool_->max_size = static_cast<std::uint32_t>(recv_entries);
  } else if (on_demand) {
    // Sized for every peer when the device allows it; otherwise connections are
    // limited to what the CQ can hold (checked when one is made).
    recv_entries = std::min<std::uint64_t>(recv_entries, caps.max_cqe);
  } else if (recv_entries > caps.max_cqe) {
    throw fabric::Error(Status::NoResource,
                        fmt::format("{} peers x {} credits need {} receive CQ entries; the device has {}: "
                                    "lower TWINFAB_CREDITS or connect on demand (TWINFAB_CONNECT=on-demand)",
                                    peers, credits_, recv_entries, caps.max_cqe));
  }
  // With an SRQ and no credits, the pool is not per connection: any number.
  max_connections_ = config.srq != 0 && !credits_enforced_ ? std::numeric_limits<std::size_t>::max()
                                                           : recv_entries / (credits_ + 1);
  send_cq_ = device_.create_cq(send_cq_limit_);
  recv_cq_ = device_.create_cq(static_cast<std::uint32_t>(recv_entries));
  cq_list_ = {recv_cq_.get(), send_cq_.get()};
  receive_cqs_ = {recv_cq_.get()};
  if (pool_) pool_->srq = device_.create_srq(pool_->max_size, head_bytes_ > 0 ? 2 : 1);
  send_wr_limit_ = std::min<std::uint32_t>(caps.max_qp_wr, std::max<std::uint32_t>(credits_ + 16, 64));

  qp_config_.transport = fabric::Transport::RC;
  qp_config_.send_cq = send_cq_.get();
  qp_config_.recv_cq = recv_cq_.get();
  qp_config_.srq = pool_ ? pool_->srq.get() : nullptr;
  qp_config_.max_send_wr = send_wr_limit_;
  qp_config_.max_recv_wr = credits_ + 1;
  qp_config_.max_send_sge = 1;
  qp_config_.max_recv_sge = head_bytes_ > 0 ? 2 : 1;
  qp_config_.max_inline = std::min<std::uint32_t>(caps.max_inline, kMaxInlinePacket);
  // An RC QP offers RDMA write and read on every device; the rest as the device says.
  capabilities_.max_payload = packet_size_ - kPacketHeaderBytes;
  capabilities_.rdma_write = true;
  capabilities_.rdma_read = true;
  capabilities_.rdma_write_with_imm = caps.write_with_imm;
  capabilities_.rdma_atomics = caps.atomics;
  capabilities_.max_inline_write = qp_config_.max_inline;

  // Untouched pages of these buffers cost no memory (buffer_storage.hpp), which
  // keeps many simulated ranks in one process affordable.
  if (peers > 0) {
    if (pool_) {
      grow_srq();  // the first pool_->size buffers, posted before any QP exists
    } else if (!on_demand) {
      const std::size_t recv_bytes = static_cast<std::size_t>(size_) * connection_receive_bytes();
      recv_storage_ = BufferStorage(recv_bytes);
      recv_region_ = device_.register_memory(recv_storage_.get(), recv_bytes, fabric::Access::LocalWrite);
    }
    const std::size_t send_bytes = static_cast<std::size_t>(send_buffers) * (kHeadSlotBytes + send_stride_);
    send_storage_ = BufferStorage(send_bytes);
    send_region_ = device_.register_memory(send_storage_.get(), send_bytes, fabric::Access::LocalWrite);
    send_sge_base_ = send_region_->sge(0, 0);
  }
  if (on_demand) {
    connector_ = std::make_unique<UdConnector>(device_, oob_);  // put + fence
    cq_list_.push_back(&connector_->completion_queue());
    receive_cqs_.push_back(&connector_->completion_queue());
    oob_.barrier();  // every connector receive is posted before anyone requests
  } else {
    connect_all();
  }
}

// Out of the constructor: its frame is on every rank's stack at the deepest point of
// MPI_Init, and a few hundred bytes more took every simulated rank's stack into
// another page (memory per rank; tests/mpi/c/memory_per_rank.py).
void RcChannel::configure_srq(const Config& config) {
  const auto& caps = device_.capabilities();
  if (!caps.srq)
    throw Error(ErrorClass::MPI_ERR_ARG, "TWINFAB_SRQ",
                fmt::format("device {} has no shared receive queues: use TWINFAB_SRQ=0", caps.device_name));
  pool_ = std::make_unique<SharedPool>();
  pool_->size = config.srq_size;
  pool_->limit = config.srq_limit;
  // An SRQ holds at most what the device allows per queue.
  pool_->max_size = std::min(config.srq_max_size, caps.max_qp_wr);
  if (pool_->max_size < pool_->size)
    throw Error(ErrorClass::MPI_ERR_ARG, "TWINFAB_SRQ_SIZE",
                fmt::format("{} buffers exceed the {} receives a queue of device {} holds", pool_->size,
                            caps.max_qp_wr, caps.device_name));
  // Without RNR retry a send that finds the pool empty breaks its connection, so the
  // credits must still bound what senders have in flight (see the file comment).
  credits_enforced_ = !caps.receiver_not_ready_retry;
}

void RcChannel::configure_fast_path(const Config& config) {
  const auto& caps = device_.capabilities();
  send_stride_ = packet_size_;
  switch (config.fastpath) {
    case FastPathMode::Off: break;
    case FastPathMode::On:
      if (!caps.in_order_placement)
        throw Error(ErrorClass::MPI_ERR_ARG, "TWINFAB_FASTPATH",
                    fmt::format("the RDMA fast path needs RDMA writes that land in order; device {} ({}) places "
                                "them as their segments arrive: use TWINFAB_FASTPATH=off or auto",
                                caps.device_name, fabric::to_string(caps.link)));
      fastpath_ = true;
      break;
    case FastPathMode::Auto:
      fastpath_ = caps.in_order_placement;
      if (!fastpath_)
        fabric::log().debug("rank {}: RDMA fast path off: device {} ({}) does not place RDMA writes in order", rank_,
                            caps.device_name, fabric::to_string(caps.link));
      break;
  }
  if (fastpath_ && config.fastpath_max_peers > 0) {
    fastpath_threshold_ = config.fastpath_threshold;
    fastpath_slots_ = config.fastpath_buffers;
    fastpath_max_peers_ = config.fastpath_max_peers;
    fastpath_slot_bytes_ = fast_path_slot_bytes(packet_size_);
    // A send buffer holds a whole slot image (head, packet, tail).
    send_stride_ = fast_path_write_bytes(packet_size_);
  } else {
    fastpath_ = false;
  }
}

RcChannel::~RcChannel() {
  // Shutdown must not throw out of a destructor: a failure here means a peer
  // vanished, and there is nothing left to deliver to it.
  try {
    if (!abandoned()) shutdown();
  } catch (...) {
  }
  for (auto& [peer, c] : connections_) c.qp.reset();
}

void RcChannel::shutdown() {
  draining_ = true;  // every send completion is reaped from now on
  while (pending_total_ > 0) {
    if (progress() == 0) wait_once();
  }
  // A Bye to every connected peer. On demand a late Request can still connect a peer
  // meanwhile (its sender had something for us), so the set is re-read each round.
  for (;;) {
    bool all_sent = true;
    for (std::size_t i = 0; i < active_peers_.size(); ++i) {
      const int peer = active_peers_[i];
      Connection& c = connection(peer);
      if (c.bye_sent) continue;
      // The slots of the peer's ring this rank freed go back before the Bye, which
      // must not overtake them (nor anything else still queued), unless the peer said
      // Bye already: it sends nothing more, and a packet now could lack a credit.
      if (c.fast && c.fast->ring && c.fast->ring->owed > 0 && !c.bye_received) {
        send_fast_path_credits(peer, c);
        if (c.fast->ring->owed > 0) {  // could not leave yet
          all_sent = false;
          continue;
        }
      }
      if (!c.pending.empty()) {
        all_sent = false;
        continue;
      }
      PacketHeader bye;
      bye.type = PacketType::Bye;
      // The Bye rides on the spare receive buffer: it may ignore credits, not the
      // availability of a send buffer and send-queue slot (nor, on a responder or an
      // iWARP passive side, the peer's first packet).
      if (try_send(peer, c, bye, 0, [](std::span<std::byte>) {}) == Try::Sent) {
        c.bye_sent = true;
      } else {
        all_sent = false;
      }
    }
    const bool done = all_sent && byes_received_ == static_cast<int>(active_peers_.size()) &&
                      send_cq_outstanding_ == 0 && pending_total_ == 0;
    if (done) break;
    if (progress() == 0) wait_once();
  }
}

RcChannel::Connection& RcChannel::find_connection(int peer) {
  cached_peer_[1] = cached_peer_[0];
  cached_[1] = cached_[0];
  cached_[0] = &connections_.find(peer)->second;
  cached_peer_[0] = peer;
  return *cached_[0];
}

RcChannel::Connection& RcChannel::create_connection(int peer) {
  if (connections_.size() >= max_connections_)
    fail_other("connect",
               fmt::format("rank {} would need a connection to rank {} beyond the {} its receive CQ can serve "
                           "({} entries, {} per connection): lower TWINFAB_CREDITS",
                           rank_, peer, max_connections_, recv_cq_->capacity(), credits_ + 1));
  Connection& c = connections_[peer];
  c.qp = device_.create_qp(qp_config_);
  return c;
}

RcChannel::Connection& RcChannel::find_or_request_connection(int peer) {
  if (auto it = connections_.find(peer); it != connections_.end()) return it->second;
  // Only on demand can a connection be missing.
  Connection& c = create_connection(peer);
  c.state = State::Requested;
  connector_->request(peer, c.qp->local_address());
  return c;
}

void RcChannel::activate(int peer, Connection& c, bool may_send) {
  if (pool_) {
    pool_->peer_of_qp.emplace(c.qp->qp_num(), peer);
    if (credits_enforced_) reserve_srq_for(active_peers_.size() + 1);
  } else if (!recv_region_) {
    const std::size_t bytes = connection_receive_bytes();
    c.own_recv_storage = BufferStorage(bytes);
    c.own_recv_region = device_.register_memory(c.own_recv_storage.get(), bytes, fabric::Access::LocalWrite);
    c.recv_base = c.own_recv_storage.get();
    c.recv_sge_base = c.own_recv_region->sge(0, 0);
  } else {
    const std::size_t offset = static_cast<std::size_t>(peer) * connection_receive_bytes();
    c.recv_base = recv_storage_.get() + offset;
    c.recv_sge_base = recv_region_->sge(offset, 0);
  }
  c.state = State::Connected;
  c.credits = credits_;
  if (fastpath_) c.fast = std::make_unique<FastPathState>();
  c.may_send = may_send;
  if (!pool_)
    for (std::uint32_t i = 0; i < receive_slots(); ++i) post_receive(peer, i);
  active_peers_.push_back(peer);
  ++counters_.connections;
}

void RcChannel::connect_all() {
  if (size_ <= 1) {
    oob_.fence();  // keep the collective sequence identical on every rank
    oob_.barrier();
    return;
  }
  const auto& caps = device_.capabilities();
  max_connections_ = static_cast<std::size_t>(size_);

  // Blob: for each rank in order, u32 length + the address of our QP to that rank.
  std::vector<std::byte> blob;
  for (int peer = 0; peer < size_; ++peer) {
    std::span<const std::byte> bytes;
    fabric::Address address;
    if (peer != rank_) {
      address = create_connection(peer).qp->local_address();
      bytes = address.bytes();
    }
    const auto length = static_cast<std::uint32_t>(bytes.size());
    const auto* l = reinterpret_cast<const std::byte*>(&length);
    blob.insert(blob.end(), l, l + sizeof length);
    blob.insert(blob.end(), bytes.begin(), bytes.end());
  }
  oob_.put(blob);
  oob_.fence();

  std::vector<fabric::Address> remote(static_cast<std::size_t>(size_));
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    const std::vector<std::byte> theirs = oob_.get(peer);
    std::size_t at = 0;
    for (int i = 0;; ++i) {
      std::uint32_t length = 0;
      if (at + sizeof length > theirs.size())
        throw fabric::Error(Status::InvalidArgument, fmt::format("rank {}'s address blob is truncated", peer));
      std::memcpy(&length, theirs.data() + at, sizeof length);
      at += sizeof length;
      if (at + length > theirs.size())
        throw fabric::Error(Status::InvalidArgument, fmt::format("rank {}'s address blob is truncated", peer));
      if (i == rank_) {
        remote[static_cast<std::size_t>(peer)] = fabric::Address::from_bytes({theirs.data() + at, length});
        break;
      }
      at += length;
    }
  }

  std::vector<bool> done(static_cast<std::size_t>(size_), false);
  done[static_cast<std::size_t>(rank_)] = true;
  for (;;) {
    bool all = true;
    for (int peer = 0; peer < size_; ++peer) {
      if (done[static_cast<std::size_t>(peer)]) continue;
      auto& qp = *connection(peer).qp;
      const Status s = qp.connect(&remote[static_cast<std::size_t>(peer)]);
      if (s == Status::Ok) {
        done[static_cast<std::size_t>(peer)] = true;
      } else if (s == Status::InProgress) {
        all = false;
      } else {
        throw fabric::Error(s, fmt::format("rank {}: connecting to rank {} failed: {}", rank_, peer,
                                           qp.last_error()));
      }
    }
    if (all) break;
    // Lets a connection-manager handshake progress; simulated time advances.
    device_.runtime().wait({}, device_.runtime().now() + fabric::kConnectPollSeconds);
  }

  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    // iWARP (MPA): the active side, here the lower rank, must send first.
    activate(peer, connection(peer), !caps.active_side_sends_first || rank_ < peer);
  }
  oob_.barrier();  // every receive is posted before anyone sends

  if (caps.active_side_sends_first) {
    for (int peer = rank_ + 1; peer < size_; ++peer) {
      PacketHeader hello;
      hello.type = PacketType::CreditUpdate;
      send_packet(peer, hello, 0, [](std::span<std::byte>) {});
    }
  }
}

void RcChannel::handle_connect_message(const ConnectMessage& m) {
  const int peer = m.peer;
  if (peer == rank_) return;
  auto it = connections_.find(peer);
  if (m.kind == ConnectMessage::Kind::Request) {
    if (it != connections_.end() && it->second.state == State::Connected) {
      // A duplicate (our Reply was lost): answer it again, with the same QP.
      connector_->reply(peer, it->second.qp->local_address());
      return;
    }
    if (it != connections_.end() && rank_ < peer) return;  // both asked: ours (lower rank) wins
    // Answer with a QP of our own; a Request of ours to this peer (it asked too, and
    // the lower rank wins) is superseded by this connection.
    Connection& c = it != connections_.end() ? it->second : create_connection(peer);
    connector_->reply_received(peer);
    const Status s = c.qp->connect(&m.rc_address);
    if (s != Status::Ok)
      fail_other("connect", fmt::format("rank {}: connecting to rank {} on its request failed: {} ({})", rank_, peer,
                                        fabric::to_string(s), c.qp->last_error()));
    activate(peer, c, /*may_send=*/false);  // until the requester's first packet arrives
    connector_->reply(peer, c.qp->local_address());
    return;
  }
  // A Reply: only meaningful while our Request is open.
  if (it == connections_.end() || it->second.state != State::Requested) return;
  Connection& c = it->second;
  connector_->reply_received(peer);
  const Status s = c.qp->connect(&m.rc_address);
  if (s != Status::Ok)
    fail_other("connect", fmt::format("rank {}: connecting to rank {} on its reply failed: {} ({})", rank_, peer,
                                      fabric::to_string(s), c.qp->last_error()));
  activate(peer, c, /*may_send=*/true);
  // The responder waits for our first packet; when nothing is queued, say hello.
  if (c.pending.empty()) {
    PacketHeader hello;
    hello.type = PacketType::CreditUpdate;
    send_packet(peer, hello, 0, [](std::span<std::byte>) {});
  } else if (!c.queued_for_flush) {
    c.queued_for_flush = true;
    flush_list_.push_back(peer);
  }
}

std::size_t RcChannel::progress_connections() {
  if (!connector_) return 0;
  inbox_.clear();
  std::size_t events = connector_->progress(inbox_);
  for (const ConnectMessage& m : inbox_) handle_connect_message(m);
  counters_.connect_messages = connector_->messages_sent();
  return events;
}

double RcChannel::wake_deadline() const noexcept {
  return connector_ ? connector_->next_deadline() : fabric::Runtime::kForever;
}

std::size_t RcChannel::fill_receive_sges(fabric::Sge (&sges)[2], const fabric::Sge& base, std::uint32_t slots,
                                         std::uint32_t slot) const noexcept {
  return head_slot_sges(sges, base.addr + std::uint64_t{slot} * head_bytes_, base.addr + body_offset(slots, slot),
                        head_bytes_, packet_size_, base.lkey);
}

void RcChannel::post_receive(int peer, std::uint32_t slot) {
  Connection& c = connection(peer);
  fabric::Sge sges[2];
  const std::size_t n = fill_receive_sges(sges, c.recv_sge_base, receive_slots(), slot);
  const fabric::RecvWr wr{make_wr_id(WrKind::Receive, peer, slot), std::span(sges, n)};
  const Status s = c.qp->post_recv(wr);
  if (s != Status::Ok)
    fail_other("progress", fmt::format("re-posting a receive buffer for rank {} failed: {} ({})", peer,
                                       fabric::to_string(s), connection(peer).qp->last_error()));
}

void RcChannel::post_srq_receive(std::uint32_t index) {
  SharedPool& pool = *pool_;
  const SrqChunk& chunk = pool.chunks[index / pool.size];
  fabric::Sge sges[2];
  const std::size_t n = fill_receive_sges(sges, chunk.sge_base, pool.size, index % pool.size);
  const fabric::RecvWr wr{make_wr_id(WrKind::Receive, 0, index), std::span(sges, n)};
  const Status s = pool.srq->post_recv(wr);
  if (s != Status::Ok)
    fail_other("progress", fmt::format("posting a buffer to the shared receive queue failed: {} ({})",
                                       fabric::to_string(s), pool.srq->last_error()));
  ++pool.posted;
}

bool RcChannel::grow_srq() {
  SharedPool& pool = *pool_;
  const auto have = static_cast<std::uint32_t>(pool.chunks.size()) * pool.size;
  if (have + pool.size > pool.max_size) return false;
  const std::size_t bytes = std::size_t{pool.size} * (head_bytes_ + packet_size_);
  SrqChunk& chunk = pool.chunks.emplace_back();
  chunk.storage = BufferStorage(bytes);
  chunk.region = device_.register_memory(chunk.storage.get(), bytes, fabric::Access::LocalWrite);
  chunk.sge_base = chunk.region->sge(0, 0);
  for (std::uint32_t i = 0; i < pool.size; ++i) post_srq_receive(have + i);
  ++counters_.srq_growths;
  return true;
}

void RcChannel::reserve_srq_for(std::size_t connections) {
  const std::uint64_t needed = std::uint64_t{connections} * (credits_ + 1);
  while (std::uint64_t{pool_->chunks.size()} * pool_->size < needed) {
    if (!grow_srq())
      fail_other("connect",
                 fmt::format("rank {}: {} connections x (TWINFAB_CREDITS {} + 1) need {} shared receive buffers "
                             "on a device without RNR retry, above TWINFAB_SRQ_MAX_SIZE ({}, or the device's "
                             "limit): raise it or lower TWINFAB_CREDITS",
                             rank_, connections, credits_, needed, pool_->max_size));
  }
}

int RcChannel::srq_peer(const fabric::WorkCompletion& wc) const {
  const auto it = pool_->peer_of_qp.find(wc.qp_num);
  if (it == pool_->peer_of_qp.end())
    fail_other("progress", fmt::format("a shared-receive-queue completion names QP {}, no connection of rank {}",
                                       wc.qp_num, rank_));
  return it->second;
}

void RcChannel::send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) {
  if (payload_bytes > capabilities_.max_payload)
    throw Error(ErrorClass::MPI_ERR_INTERN, "send_packet",
                fmt::format("{} payload bytes exceed a packet's {}", payload_bytes, capabilities_.max_payload));
  Connection& c = connection_for_send(peer);
  const bool may_overtake = header.type == PacketType::CreditUpdate;
  if ((c.pending.empty() || may_overtake) && try_send(peer, c, header, payload_bytes, fill) == Try::Sent) return;
  defer(peer, DeferredOperation::packet(header, payload_bytes, fill));
}

void RcChannel::post_rdma(int peer, const RdmaOp& op) {
  Connection& c = connection_for_send(peer);
  if (c.pending.empty() && try_rdma(peer, c, op) == Try::Sent) return;
  defer(peer, DeferredOperation::operation(op));
}

void RcChannel::defer(int peer, DeferredOperation item) {
  Connection& c = connection(peer);
  c.pending.push_back(std::move(item));
  ++counters_.packets_deferred;
  ++pending_total_;
  counters_.pending_peak = std::max(counters_.pending_peak, pending_total_);
  if (!c.queued_for_flush) {
    c.queued_for_flush = true;
    flush_list_.push_back(peer);
  }
}

// Inlined: one stack frame less under every send (the stack pages a simulated rank
// touches are memory per rank).
[[gnu::always_inline]] inline std::uint32_t RcChannel::write_packet(std::byte* at, const Connection& c,
                                                                    const PacketHeader& header,
                                                                    std::size_t payload_bytes, const Fill& fill) {
  const bool compact = is_compact(header, payload_bytes);
  const std::uint32_t header_bytes = compact ? kCompactHeaderBytes : kPacketHeaderBytes;
  if (compact) {
    CompactHeader h;
    h.credits = static_cast<std::uint16_t>(c.owed);  // at most credits + 1 <= 4097 (config.cpp)
    h.context_id = header.context_id;
    h.source = header.source;
    h.tag = header.tag;
    std::memcpy(at, &h, sizeof h);
  } else {
    PacketHeader h = header;
    h.credits = c.owed;
    std::memcpy(at, &h, sizeof h);
  }
  fill({at + header_bytes, payload_bytes});
  work_.copied(payload_bytes);
  return static_cast<std::uint32_t>(header_bytes + payload_bytes);
}

RcChannel::Try RcChannel::try_send(int peer, Connection& c, const PacketHeader& header, std::size_t payload_bytes,
                                   const Fill& fill) {
  const bool update = header.type == PacketType::CreditUpdate;
  const bool bye = header.type == PacketType::Bye;
  if ((update || bye) && control_by_immediate_ && payload_bytes == 0) return try_send_control(peer, c, header.type);
  // Into the peer's ring once it offered one: everything but the messages that may
  // overtake (credits) and the Bye (the spare receive buffer; see the file comment).
  if (c.fast && c.fast->target.slots > 0 && !update && !bye && header.type != PacketType::FastPathCredit)
    return try_send_fast(peer, c, header, payload_bytes, fill);
  // One credit stays reserved for updates; a Bye uses the spare buffer instead.
  const std::uint32_t need = bye ? 0 : update ? 1 : 2;
  if (c.state != State::Connected || !c.may_send || c.credits < need || !send_slot_available() || c.outstanding >= send_wr_limit_ ||
      send_cq_outstanding_ >= send_cq_limit_)
    return Try::Blocked;
  const std::uint32_t slot = free_send_slots_.empty() ? unused_send_slots_from_ : free_send_slots_.back();
  const std::uint32_t length = packet_length(header, payload_bytes);
  alignas(PacketHeader) std::byte packet_on_stack[kMaxInlinePacket];
  std::byte* buffer;
  fabric::Sge sge;
  const bool inline_send = place_send(slot, length, packet_on_stack, buffer, sge);
  write_packet(buffer, c, header, payload_bytes, fill);
  fabric::SendWr wr;
  wr.wr_id = make_wr_id(WrKind::Packet, peer, slot);
  wr.opcode = fabric::Opcode::Send;
  wr.sg_list = std::span(&sge, 1);
  if (inline_send) wr.flags = fabric::SendFlags::Signaled | fabric::SendFlags::Inline;
  const Status s = c.qp->post_send(wr);
  if (s == Status::NoResource) return Try::Blocked;
  if (s != Status::Ok)
    fail_other("send", fmt::format("posting a {} packet to rank {} failed: {} ({})", to_string(header.type), peer,
                                   fabric::to_string(s), c.qp->last_error()));
  take_send_slot();
  packet_posted(c, bye, update);
  return Try::Sent;
}

RcChannel::Try RcChannel::try_send_fast(int peer, Connection& c, const PacketHeader& header,
                                        std::size_t payload_bytes, const Fill& fill) {
  FastPathState& fp = *c.fast;
  FastPathTarget& t = fp.target;
  if (c.state != State::Connected || !c.may_send || t.credits == 0 || !send_slot_available() ||
      c.outstanding >= send_wr_limit_ || send_cq_outstanding_ >= send_cq_limit_)
    return Try::Blocked;
  const std::uint32_t slot = free_send_slots_.empty() ? unused_send_slots_from_ : free_send_slots_.back();
  const std::uint32_t length = packet_length(header, payload_bytes);
  const std::uint32_t bytes = fast_path_write_bytes(length);
  // The slot's image (head, packet, tail), built where try_send builds a packet.
  alignas(PacketHeader) std::byte image_on_stack[kMaxInlinePacket];
  std::byte* image;
  fabric::Sge sge;
  const bool inline_send = place_send(slot, bytes, image_on_stack, image, sge);
  write_packet(image + kFastPathHeadBytes, c, header, payload_bytes, fill);
  FastPathHead head;
  head.length = length;
  head.sequence = t.sequence;
  head.credits_back = fp.ring ? fp.ring->owed : 0;
  head.regular_before = fp.regular_sent;
  seal_fast_path_slot(image, head);
  fabric::SendWr wr;
  wr.wr_id = make_wr_id(WrKind::Packet, peer, slot);
  wr.opcode = fabric::Opcode::RdmaWrite;
  wr.sg_list = std::span(&sge, 1);
  wr.remote_addr = t.addr + std::uint64_t{t.next} * fastpath_slot_bytes_;
  wr.rkey = t.rkey;
  if (inline_send) wr.flags = fabric::SendFlags::Signaled | fabric::SendFlags::Inline;
  const Status s = c.qp->post_send(wr);
  if (s == Status::NoResource) return Try::Blocked;
  if (s != Status::Ok)
    fail_other("send", fmt::format("writing a {} packet into rank {}'s fast-path ring failed: {} ({})",
                                   to_string(header.type), peer, fabric::to_string(s), c.qp->last_error()));
  if (fp.ring) fp.ring->owed = 0;
  --t.credits;
  t.next = t.next + 1 == t.slots ? 0 : t.next + 1;
  ++t.sequence;
  take_send_slot();
  packet_posted(c, false, false, /*fast=*/true);
  ++counters_.fastpath_packets_sent;
  return Try::Sent;
}

RcChannel::Try RcChannel::try_send_control(int peer, Connection& c, PacketType type) {
  const bool bye = type == PacketType::Bye;
  // The same credit rules as the packet it replaces; no send buffer.
  const std::uint32_t need = bye ? 0 : 1;
  if (c.state != State::Connected || !c.may_send || c.credits < need || c.outstanding >= send_wr_limit_ ||
      send_cq_outstanding_ >= send_cq_limit_)
    return Try::Blocked;
  fabric::SendWr wr;
  wr.wr_id = make_wr_id(WrKind::Control, peer, 0);
  wr.opcode = fabric::Opcode::RdmaWriteWithImm;
  wr.imm_data = encode_control_immediate(type, c.owed);
  // No SGE, remote address or rkey: a zero-byte RDMA write needs none (InfiniBand
  // C9-88); the responder only consumes a receive for the immediate.
  const Status s = c.qp->post_send(wr);
  if (s == Status::NoResource) return Try::Blocked;
  if (s != Status::Ok)
    fail_other("send", fmt::format("posting a {} to rank {} failed: {} ({})", to_string(type), peer,
                                   fabric::to_string(s), c.qp->last_error()));
  packet_posted(c, bye, !bye);
  ++counters_.controls_as_immediates;
  return Try::Sent;
}

void RcChannel::packet_posted(Connection& c, bool bye, bool update, bool fast) {
  if (!fast) {
    if (!bye && credits_enforced_) --c.credits;
    if (c.fast) ++c.fast->regular_sent;
  }
  c.owed = 0;
  c.owed_by_updates = 0;
  // The packet is on its way: now is the time for the re-posts the receive path left.
  if (!reposts_.empty()) repost_consumed();
  ++c.outstanding;
  ++send_cq_outstanding_;
  ++counters_.packets_sent;
  if (update) ++counters_.credit_updates_sent;
}

RcChannel::Try RcChannel::try_rdma(int peer, Connection& c, const RdmaOp& op) {
  const bool with_imm = op.kind == RdmaOp::Kind::WriteWithImm;
  const bool read = op.is_read_like();
  if (c.state != State::Connected || c.outstanding >= send_wr_limit_ || send_cq_outstanding_ >= send_cq_limit_)
    return Try::Blocked;
  // A write with immediate consumes a receive buffer at the peer: it costs a credit.
  if (with_imm && (!c.may_send || c.credits < 2)) return Try::Blocked;
  if (read && c.reads_outstanding >= std::max<std::uint32_t>(1, device_.capabilities().max_rd_atomic))
    return Try::Blocked;
  fabric::SendWr wr;
  wr.wr_id = make_wr_id(WrKind::Rdma, peer, op.cookie);
  switch (op.kind) {
    case RdmaOp::Kind::Write: wr.opcode = fabric::Opcode::RdmaWrite; break;
    case RdmaOp::Kind::WriteWithImm: wr.opcode = fabric::Opcode::RdmaWriteWithImm; break;
    case RdmaOp::Kind::Read: wr.opcode = fabric::Opcode::RdmaRead; break;
    case RdmaOp::Kind::CompareSwap: wr.opcode = fabric::Opcode::AtomicCompareSwap; break;
    case RdmaOp::Kind::FetchAdd: wr.opcode = fabric::Opcode::AtomicFetchAdd; break;
  }
  wr.sg_list = std::span(&op.local, 1);
  wr.remote_addr = op.remote_addr;
  wr.rkey = op.rkey;
  wr.imm_data = op.imm;
  wr.compare_add = op.compare_add;
  wr.swap = op.swap;
  if (op.inline_data && (op.kind == RdmaOp::Kind::Write || op.kind == RdmaOp::Kind::WriteWithImm) &&
      op.local.length <= qp_config_.max_inline)
    wr.flags = wr.flags | fabric::SendFlags::Inline;
  const Status s = c.qp->post_send(wr);
  if (s == Status::NoResource) return Try::Blocked;
  if (s != Status::Ok)
    fail_other("RDMA", fmt::format("posting an RDMA {} to rank {} failed: {} ({})", fabric::to_string(wr.opcode), peer,
                                   fabric::to_string(s), c.qp->last_error()));
  if (with_imm) {
    if (credits_enforced_) --c.credits;
    if (c.fast) ++c.fast->regular_sent;  // it consumes a receive at the peer
  }
  if (read) ++c.reads_outstanding;
  ++rdma_outstanding_;
  ++c.outstanding;
  ++send_cq_outstanding_;
  ++counters_.rdma_posted;
  return Try::Sent;
}

std::size_t RcChannel::flush(int peer) {
  Connection& c = connection(peer);
  std::size_t moved = 0;
  while (!c.pending.empty()) {
    const DeferredOperation& item = c.pending.front();
    const Try t = item.rdma ? try_rdma(peer, c, item.op)
                            : try_send(peer, c, item.header, item.payload.size(),
                                       [&item](std::span<std::byte> out) { item.fill(out); });
    if (t == Try::Blocked) break;
    c.pending.pop_front();
    --pending_total_;
    ++moved;
  }
  return moved;
}

void RcChannel::maybe_send_credit_update(int peer) {
  Connection& c = connection(peer);
  if (c.owed == 0 || c.bye_sent) return;
  const std::uint32_t for_data = c.owed - c.owed_by_updates;
  if (for_data < update_threshold_ && c.owed < credits_ - 1) return;
  PacketHeader update;
  update.type = PacketType::CreditUpdate;
  // If this cannot leave now (no credit or send buffer), the next completion or
  // packet from the peer brings this peer back here; the waiter must then wake for
  // send completions too (wait_set()).
  if (try_send(peer, c, update, 0, [](std::span<std::byte>) {}) == Try::Blocked) update_blocked_ = true;
}

PacketHeader RcChannel::read_packet(int peer, std::byte* base, std::uint32_t slots, std::uint32_t slot,
                                    std::uint32_t byte_len, std::span<const std::byte>& payload) {
  if (byte_len < kMinPacketBytes)
    fail_other("progress", fmt::format("a {}-byte packet from rank {} is shorter than a header", byte_len, peer));
  // In its head slot, or made whole in its body (head_slots.hpp).
  const std::byte* buffer = head_slot_received(base + std::size_t{slot} * head_bytes_, base + body_offset(slots, slot),
                                               head_bytes_, byte_len);
  const std::optional<ParsedPacket> packet = parse_packet({buffer, byte_len});
  if (!packet)
    fail_other("progress", fmt::format("a {}-byte packet from rank {} is shorter than a header", byte_len, peer));
  payload = packet->payload;
  return packet->header;
}

void RcChannel::handle_receive(const fabric::WorkCompletion& wc) {
  const int peer = pool_ ? srq_peer(wc) : wr_peer(wc.wr_id);
  const std::uint32_t slot = wr_index(wc.wr_id);
  if (pool_) --pool_->posted;
  if (wc.status != WcStatus::Success) fail_receive(peer, wc.status);
  Connection& c = connection(peer);
  c.may_send = true;  // the peer has spoken: on iWARP the connection is now fully up
  if (c.fast) ++c.fast->regular_received;
  ++counters_.packets_received;
  work_.packet_from_queue();
  bool update = false;
  if (wc.opcode == WcOpcode::RecvRdmaWithImm && !is_control_immediate(wc.imm_data)) {
    sink_.on_write_immediate(peer, wc.imm_data);  // a protocol's (rendezvous token)
  } else {
    // A packet, or a header-only control message carried in an immediate (packet.hpp).
    PacketHeader header;
    std::span<const std::byte> payload;
    if (wc.opcode == WcOpcode::RecvRdmaWithImm) {
      header.type = control_type(wc.imm_data);
      header.credits = control_credits(wc.imm_data);
      if (header.type != PacketType::CreditUpdate && header.type != PacketType::Bye)
        fail_other("progress",
                   fmt::format("rank {} sent an immediate {:#x} that is no control message", peer, wc.imm_data));
    } else {
      header = pool_ ? read_packet(peer, pool_->chunks[slot / pool_->size].storage.get(), pool_->size,
                                   slot % pool_->size, wc.byte_len, payload)
                     : read_packet(peer, c.recv_base, receive_slots(), slot, wc.byte_len, payload);
    }
    c.credits += header.credits;
    if (header.type == PacketType::Bye) {
      // The spare buffer: nothing follows on this connection, nothing to return.
      c.bye_received = true;
      ++byes_received_;
      if (pool_) reposts_.push_back(Consumed{peer, slot, false});  // the pool's buffer goes back, owing nothing
      return;
    }
    update = header.type == PacketType::CreditUpdate;
    if (!update) {
      deliver(peer, c, header, payload);
      // A busy peer is offered a ring (MVAPICH's adaptive fast path).
      if (c.fast && !c.fast->ring && ++c.fast->packets_from_peer >= fastpath_threshold_ &&
          ring_peers_.size() < fastpath_max_peers_ && !c.bye_sent && !draining_)
        offer_ring(peer, c);
    }
  }
  reposts_.push_back(Consumed{peer, slot, update});
  if (!c.pending.empty() && !c.queued_for_flush) {
    c.queued_for_flush = true;
    flush_list_.push_back(peer);
  }
}

// Inlined, and the channel's own packet types out of line: the stack a simulated rank
// touches is memory per rank, and the deepest path runs through here (a receive handed
// to the protocols); one more page per rank is what a few hundred bytes of frame cost
// (tests/mpi/c/memory_per_rank.py).
[[gnu::always_inline]] inline void RcChannel::deliver(int peer, Connection& c, const PacketHeader& header,
                                                      std::span<const std::byte> payload) {
  if (header.type == PacketType::FastPathOffer || header.type == PacketType::FastPathCredit) [[unlikely]] {
    take_fast_path_control(peer, c, header);
    return;
  }
  work_.copied(payload.size());  // the sink copies it out (receive or unexpected buffer)
  sink_.on_packet(peer, header, payload);
}

void RcChannel::take_fast_path_control(int peer, Connection& c, const PacketHeader& header) {
  if (!c.fast)
    fail_other("progress", fmt::format("rank {} sent a {} but this rank runs without the RDMA fast path: every rank "
                                       "must have the same TWINFAB_FASTPATH",
                                       peer, to_string(header.type)));
  FastPathTarget& target = c.fast->target;
  if (header.type == PacketType::FastPathOffer) {
    if (header.total_bytes == 0 || header.total_bytes > 65536 || target.slots > 0)
      fail_other("progress", fmt::format("rank {} offered a malformed or second fast-path ring ({} slots)", peer,
                                         header.total_bytes));
    target.addr = header.remote_addr;
    target.rkey = header.rkey;
    target.slots = static_cast<std::uint32_t>(header.total_bytes);
    target.credits = target.slots;
  } else {
    target.credits += header.token;
    if (target.credits > target.slots)
      fail_other("progress", fmt::format("rank {} returned more fast-path slots than its ring has ({} > {})", peer,
                                         target.credits, target.slots));
  }
  if (!c.pending.empty() && !c.queued_for_flush) {
    c.queued_for_flush = true;
    flush_list_.push_back(peer);
  }
}

void RcChannel::offer_ring(int peer, Connection& c) {
  const std::size_t bytes = std::size_t{fastpath_slots_} * fastpath_slot_bytes_;
  auto ring = std::make_unique<FastPathRing>();
  ring->storage = BufferStorage(bytes);
  // Sequence numbers start at 1: a zeroed ring holds none (rc_fast_path.hpp). Its
  // pages stay unbacked until packets land in them (memory per simulated rank).
  ring->storage.zero();
  ring->region = device_.register_memory(ring->storage.get(), bytes,
                                         fabric::Access::LocalWrite | fabric::Access::RemoteWrite);
  PacketHeader offer;
  offer.type = PacketType::FastPathOffer;
  offer.remote_addr = ring->region->remote_addr();
  offer.rkey = ring->region->rkey();
  offer.total_bytes = fastpath_slots_;
  c.fast->ring = std::move(ring);
  ring_peers_.push_back(peer);
  ++counters_.fastpath_rings;
  send_packet(peer, offer, 0, [](std::span<std::byte>) {});
}

void RcChannel::send_fast_path_credits(int peer, Connection& c) {
  PacketHeader credits;
  credits.type = PacketType::FastPathCredit;
  credits.token = c.fast->ring->owed;
  // Straight out, past the pending FIFO, as a credit update: the packets waiting there
  // may be waiting for the peer's slots, and the peer's for these (found by
  // random_traffic with 4 slots: both FIFOs held the other's credits). If it cannot
  // leave now, the slots stay owed and the next progress() tries again; a send
  // completion must then wake the waiter (wait_set()).
  if (try_send(peer, c, credits, 0, [](std::span<std::byte>) {}) == Try::Sent)
    c.fast->ring->owed = 0;
  else
    update_blocked_ = true;
}

std::size_t RcChannel::poll_rings() {
  std::size_t events = 0;
  // By index: delivering a packet may offer no ring (only receives do), but the sink
  // may send, and sending never changes ring_peers_ either; an index stays safe anyway.
  for (std::size_t i = 0; i < ring_peers_.size(); ++i) {
    const int peer = ring_peers_[i];
    Connection& c = connection(peer);
    FastPathState& fp = *c.fast;
    FastPathRing& r = *fp.ring;
    for (;;) {
      std::byte* slot = r.storage.get() + std::size_t{r.next} * fastpath_slot_bytes_;
      FastPathHead head;
      const SlotState state = inspect_fast_path_slot(slot, fastpath_slot_bytes_, r.expected, head);
      if (state == SlotState::Empty || state == SlotState::Landing) break;
      if (state == SlotState::Malformed)
        fail_other("progress", fmt::format("rank {}'s fast-path slot {} says {} bytes, more than a slot holds", peer,
                                           r.next, head.length));
      // Packets the peer sent before this one through receive buffers come first.
      if (static_cast<std::int32_t>(fp.regular_received - head.regular_before) < 0) break;
      const std::optional<ParsedPacket> packet = parse_packet({slot + kFastPathHeadBytes, head.length});
      if (!packet)
        fail_other("progress",
                   fmt::format("a {}-byte fast-path packet from rank {} is shorter than a header", head.length, peer));
      c.credits += packet->header.credits;
      fp.target.credits += head.credits_back;
      ++r.expected;
      r.next = r.next + 1 == fastpath_slots_ ? 0 : r.next + 1;
      ++counters_.packets_received;
      ++counters_.fastpath_packets_received;
      ++events;
      deliver(peer, c, packet->header, packet->payload);  // the sink has copied what it keeps: the slot is free
      ++r.owed;
      if (!c.pending.empty() && !c.queued_for_flush) {
        c.queued_for_flush = true;
        flush_list_.push_back(peer);
      }
    }
    // Half the ring freed and nothing went back to carry it: say so.
    if (r.owed >= std::max<std::uint32_t>(1, fastpath_slots_ / 2) && !c.bye_sent && !c.bye_received)
      send_fast_path_credits(peer, c);
  }
  return events;
}

void RcChannel::fail_receive(int peer, fabric::WcStatus status) {
  // Flushed receives mean the QP broke; what broke it (a send that ran out of retries,
  // a remote access error) is on the send CQ, which is polled lazily: report that
  // first, it is what the user can act on.
  if (status == WcStatus::WrFlushError && send_cq_) {
    fabric::WorkCompletion sends[16];
    for (std::size_t n; (n = send_cq_->poll(sends)) > 0;)
      for (std::size_t i = 0; i < n; ++i) handle_send_completion(sends[i]);
  }
  if (status == WcStatus::WrFlushError) {
    // Nothing of this rank's broke the connection, so the other end did: on iWARP its
    // TCP connection closed, as when the peer's process exits or crashes. Say so now
    // (the launcher may end this rank before the error below is raised), then leave the
    // launcher the moment it needs to report how the peer ended.
    const std::string why = fmt::format(
        "peer rank {} disconnected (connection closed; {}): its process ended without MPI_Finalize (a crash, an "
        "exit, a kill) or its node failed; the launcher reports how it ended",
        peer, fabric::to_string(status));
    fabric::log().error("rank {}: peer rank {} disconnected (connection closed); ending in {:g} s unless the launcher "
                        "ends the job first",
                        rank_, peer, kPeerGoneGrace);
    device_.runtime().idle_for(kPeerGoneGrace);  // waiting, not computing: no CPU
    fail_other("progress", why);
  }
  fail_other("progress", fmt::format("a receive from rank {} completed with {}", peer, fabric::to_string(status)));
}

void RcChannel::handle_send_completion(const fabric::WorkCompletion& wc) {
  const int peer = wr_peer(wc.wr_id);
  Connection& c = connection(peer);
  --c.outstanding;
  --send_cq_outstanding_;
  const WrKind kind = wr_kind(wc.wr_id);
  if (kind == WrKind::Packet || kind == WrKind::Control) {
    if (kind == WrKind::Packet) free_send_slots_.push_back(wr_index(wc.wr_id));
    if (wc.status != WcStatus::Success)
      fail_other("progress",
                 fmt::format("a packet to rank {} completed with {}{}", peer, fabric::to_string(wc.status),
                             wc.status == WcStatus::RetryExceededError
                                 ? fmt::format(" (rank {}'s device stopped acknowledging: its process or node "
                                               "is gone, or the fabric lost more packets in a row than the "
                                               "connection's retry count)",
                                               peer)
                                 : std::string()));
  } else {
    --rdma_outstanding_;
    if (wc.opcode == WcOpcode::RdmaRead || wc.opcode == WcOpcode::CompareSwap || wc.opcode == WcOpcode::FetchAdd)
      --c.reads_outstanding;
    sink_.on_rdma_done(wr_index(wc.wr_id), wc.status);
  }
}

void RcChannel::repost_consumed() {
  for (const Consumed& consumed : reposts_) {
    Connection& c = connection(consumed.peer);
    if (pool_) {
      post_srq_receive(consumed.slot);  // the pool serves every peer
      if (!credits_enforced_ || c.bye_received) continue;
    } else {
      if (c.bye_received) continue;  // the peer sends nothing more
      post_receive(consumed.peer, consumed.slot);
    }
    ++c.owed;
    if (consumed.by_update) ++c.owed_by_updates;
    queue_for_update(consumed.peer, c);
  }
  reposts_.clear();
}

std::size_t RcChannel::progress() {
  if (!reposts_.empty()) repost_consumed();
  std::size_t events = connector_ ? progress_connections() : 0;
  std::size_t n = recv_cq_ ? recv_cq_->poll(completions_) : 0;
  for (std::size_t i = 0; i < n; ++i) handle_receive(completions_[i]);
  events += n;
  if (pool_) {
    // The pool's level is known only once the CQ is drained (a burst may have taken
    // more buffers than one poll returns): take the rest of the burst first.
    while (n == completions_.size()) {
      n = recv_cq_->poll(completions_);
      for (std::size_t i = 0; i < n; ++i) handle_receive(completions_[i]);
      events += n;
    }
    // The SRQ's low watermark (MVAPICH's SRQ limit event): a burst found the pool
    // short, senders may be getting RNR NAKs; more buffers for the next one.
    if (!credits_enforced_ && pool_->posted < pool_->limit) grow_srq();
  }
  // The rings after the CQ: a packet sent before the ring existed completes there first.
  if (!ring_peers_.empty()) events += poll_rings();
  // A packet's send completion only returns its buffer: the send CQ is polled when
  // something waits for it (an RDMA operation of a protocol, a deferred packet), at
  // shutdown, or once lazy_reap_ sends are outstanding (at most half the send
  // buffers: a credit update is not deferred when it finds no buffer, it waits for a
  // completion to be reaped). Polling a CQ costs a lock and a queue read (much more
  // in a VM), and a ping-pong polled it twice per message for nothing.
  n = 0;
  if (send_cq_ && (rdma_outstanding_ > 0 || pending_total_ > 0 || draining_ || update_blocked_ ||
                   send_cq_outstanding_ >= lazy_reap_))
    n = send_cq_->poll(completions_);
  for (std::size_t i = 0; i < n; ++i) handle_send_completion(completions_[i]);
  events += n;
  if (n > 0) {
    update_blocked_ = false;  // the updates are retried below; a blocked one sets it again
    // A freed send buffer or send-queue slot may unblock any connection.
    for (int peer : active_peers_) {
      Connection& c = connection(peer);
      if (!c.pending.empty() && !c.queued_for_flush) {
        c.queued_for_flush = true;
        flush_list_.push_back(peer);
      }
      if (c.owed > 0) queue_for_update(peer, c);  // an update may have lacked a buffer
    }
  }
  // The lists are swapped into scratch_ (flushing and updates may append to them
  // again) and their capacity is kept: no allocation per packet.
  if (!flush_list_.empty()) {
    scratch_.swap(flush_list_);
    for (int peer : scratch_) {
      Connection& c = connection(peer);
      c.queued_for_flush = false;
      // Still blocked afterwards: a completion or a packet re-queues it.
      events += flush(peer);
    }
    scratch_.clear();
  }
  if (!update_candidates_.empty()) {
    scratch_.swap(update_candidates_);
    for (int peer : scratch_) {
      connection(peer).queued_for_update = false;
      maybe_send_credit_update(peer);
    }
    scratch_.clear();
  }
  return events;
}

bool RcChannel::quiescent() const noexcept {
  return pending_total_ == 0 && send_cq_outstanding_ == 0;
}

void RcChannel::wait_once() {
  device_.runtime().wait_for_completion(cq_list_, wake_deadline());
}

}  // namespace twinfab::mpi
