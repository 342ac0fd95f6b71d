#include "mpi/rma/lock_service.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "fabric/log.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi::rma {

namespace {

constexpr std::uint32_t kRecvSlots = 8;  ///< an origin has at most an unlock, a request and a close unread
constexpr std::uint32_t kSendSlots = 4;

/// What a work request is, in the top bits of its wr_id; the member in bits 8-47 and
/// the slot in bits 0-7.
enum WrKind : std::uint64_t {
  kServerRecv = 0,
  kServerWrite = 1,
  kClientSend = 2,
  kClientRecv = 3,
  kClientProbe = 4,
  kServerHello = 5,
};

std::uint64_t wr_id(WrKind kind, int peer, std::uint32_t slot = 0) {
  return (std::uint64_t{kind} << 56) | (static_cast<std::uint64_t>(peer) << 8) | slot;
}
WrKind kind_of(std::uint64_t id) { return static_cast<WrKind>(id >> 56); }
int peer_of(std::uint64_t id) { return static_cast<int>((id >> 8) & 0xFFFFFFFFFFull); }
std::uint32_t slot_of(std::uint64_t id) { return static_cast<std::uint32_t>(id & 0xFF); }

/// One member's registered words (the agent's and the rank's halves never share one).
struct Buffers {
  LockService::Message recv[kRecvSlots];
  std::uint64_t grant = 0;
  LockService::Message send[kSendSlots];
  LockService::Message hello;
  std::uint64_t probe = 0;
};

}  // namespace

struct LockService::Link {
  std::unique_ptr<fabric::QueuePair> server;  ///< the agent's, for requests from this member
  std::unique_ptr<fabric::QueuePair> client;  ///< the rank's, for its requests to this member
  // The rank's side (client QP).
  std::uint64_t sequence = 0;        ///< requests sent
  std::uint64_t sends_posted = 0;
  std::uint32_t sends_in_flight = 0;
  bool wait_hello = false;           ///< this member's server must say hello first
  bool hello_received = false;
  bool probe_in_flight = false;
  double last_probe = -1;
  fabric::WcStatus error = fabric::WcStatus::Success;
  // The agent's side (server QP).
  bool hello_to_send = false;
};

LockService::LockService(fabric::Device& device, RmaLockDesign design, int rank, std::vector<Peer> peers,
                         std::uint64_t* own_grant, std::uint64_t* messages)
    : device_(device),
      work_(device),
      mutex_(device.runtime()),
      design_(design),
      rank_(rank),
      peers_(std::move(peers)),
      own_grant_(own_grant),
      messages_(messages) {
  const std::size_t n = peers_.size();
  const fabric::DeviceCapabilities& caps = device_.capabilities();
  hello_needed_ = caps.active_side_sends_first;
  const auto cq_size = static_cast<std::uint32_t>(n * (kRecvSlots + kSendSlots + 4) + 16);
  agent_cq_ = device_.create_cq(cq_size);
  client_cq_ = device_.create_cq(cq_size);
  buffers_.resize(n * sizeof(Buffers));
  region_ = device_.register_memory(buffers_.data(), buffers_.size(), fabric::Access::LocalWrite);
  fabric::QpConfig config;
  config.transport = fabric::Transport::RC;
  config.max_send_wr = kSendSlots + 4;
  config.max_recv_wr = kRecvSlots + 1;
  config.max_send_sge = config.max_recv_sge = 1;
  config.max_inline = std::min<std::uint32_t>(config.max_inline, caps.max_inline);
  links_.resize(n);
  closed_.assign(n, false);
  closed_[static_cast<std::size_t>(rank_)] = true;
  for (std::size_t p = 0; p < n; ++p) {
    if (static_cast<int>(p) == rank_) continue;
    auto link = std::make_unique<Link>();
    config.send_cq = config.recv_cq = agent_cq_.get();
    link->server = device_.create_qp(config);
    config.send_cq = config.recv_cq = client_cq_.get();
    link->client = device_.create_qp(config);
    // Where the device needs it (iWARP), the lower process of a pair sends first, as
    // the RC channel does (mpi/channels/rc_channel.cpp).
    const bool lower = peers_[static_cast<std::size_t>(rank_)].world_rank < peers_[p].world_rank;
    link->hello_to_send = hello_needed_ && lower;
    link->wait_hello = hello_needed_ && !lower;
    links_[p] = std::move(link);
  }
}

LockService::~LockService() {
  if (agent_) {
    stop_.store(true, std::memory_order_release);
    try {
      agent_->join();
    } catch (const std::exception& e) {
      fabric::log().error("MPI one-sided: the lock agent failed: {}", e.what());
    }
    agent_.reset();
  }
}

void LockService::count_message() noexcept {
  std::atomic_ref<std::uint64_t>(*messages_).fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::byte> LockService::local_addresses() const {
  std::vector<std::byte> blob;
  auto append = [&blob](const fabric::Address& address) {
    const auto length = static_cast<std::uint32_t>(address.bytes().size());
    const auto* l = reinterpret_cast<const std::byte*>(&length);
    blob.insert(blob.end(), l, l + sizeof length);
    blob.insert(blob.end(), address.bytes().begin(), address.bytes().end());
  };
  for (const auto& link : links_) {
    append(link ? link->server->local_address() : fabric::Address{});
    append(link ? link->client->local_address() : fabric::Address{});
  }
  return blob;
}

void LockService::connect(const std::vector<std::vector<std::byte>>& addresses, const char* where) {
  // Member p's blob holds, for each member m: p's server address for m, p's client
  // address for m. This rank's client to p connects to p's server for this rank, and
  // its server for p to p's client for this rank.
  auto address = [&](std::size_t p, std::size_t entry) {
    const std::vector<std::byte>& blob = addresses[p];
    std::size_t at = 0;
    for (std::size_t i = 0;; ++i) {
      std::uint32_t length = 0;
      if (at + sizeof length > blob.size())
        throw Error(ErrorClass::MPI_ERR_INTERN, where, fmt::format("rank {}'s lock addresses are truncated", p));
      std::memcpy(&length, blob.data() + at, sizeof length);
      at += sizeof length;
      if (i == entry) return fabric::Address::from_bytes({blob.data() + at, length});
      at += length;
    }
  };
  const auto me = static_cast<std::size_t>(rank_);
  std::vector<fabric::Address> to_server(links_.size()), to_client(links_.size());
  for (std::size_t p = 0; p < links_.size(); ++p) {
    if (!links_[p]) continue;
    to_server[p] = address(p, 2 * me);
    to_client[p] = address(p, 2 * me + 1);
  }
  fabric::Runtime& runtime = device_.runtime();
  for (;;) {
    bool all = true;
    for (std::size_t p = 0; p < links_.size(); ++p) {
      if (!links_[p]) continue;
      for (auto [qp, remote] : {std::pair{links_[p]->server.get(), &to_client[p]},
                                std::pair{links_[p]->client.get(), &to_server[p]}}) {
        const fabric::Status s = qp->connect(remote);
        if (s == fabric::Status::InProgress) {
          all = false;
        } else if (s != fabric::Status::Ok) {
          throw Error(ErrorClass::MPI_ERR_OTHER, where,
                      fmt::format("connecting the lock service to rank {} failed: {} ({})", p, fabric::to_string(s),
                                  qp->last_error()));
        }
      }
    }
    if (all) break;
    runtime.wait({}, runtime.now() + fabric::kConnectPollSeconds);
  }
  for (std::size_t p = 0; p < links_.size(); ++p) {
    if (!links_[p]) continue;
    for (std::uint32_t slot = 0; slot < kRecvSlots; ++slot) post_server_recv(static_cast<int>(p), slot);
    if (links_[p]->wait_hello) {
      auto& b = reinterpret_cast<Buffers*>(buffers_.data())[p];
      const fabric::Sge sge = region_->sge(reinterpret_cast<std::byte*>(&b.hello) - buffers_.data(), sizeof b.hello);
      fabric::RecvWr wr;
      wr.wr_id = wr_id(kClientRecv, static_cast<int>(p));
      wr.sg_list = {&sge, 1};
      if (links_[p]->client->post_recv(wr) != fabric::Status::Ok)
        throw Error(ErrorClass::MPI_ERR_OTHER, where, links_[p]->client->last_error());
    }
  }
}

void LockService::post_server_recv(int peer, std::uint32_t slot) {
  auto& b = reinterpret_cast<Buffers*>(buffers_.data())[peer];
  const fabric::Sge sge =
      region_->sge(reinterpret_cast<std::byte*>(&b.recv[slot]) - buffers_.data(), sizeof(Message));
  fabric::RecvWr wr;
  wr.wr_id = wr_id(kServerRecv, peer, slot);
  wr.sg_list = {&sge, 1};
  const fabric::Status s = links_[static_cast<std::size_t>(peer)]->server->post_recv(wr);
  if (s != fabric::Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, "MPI one-sided (lock agent)",
                fmt::format("posting a receive for rank {}'s lock requests failed: {}", peer, fabric::to_string(s)));
}

void LockService::start(const char* where) {
  fabric::Runtime& runtime = device_.runtime();
  if (hello_needed_) {
    // The hellos' completions are the agent's to reap, as its grant writes are: it
    // starts below, and the agent CQ may already hold a request from a member that got
    // its hello (this rank must not take it: the request would be lost, and that
    // member's lock never granted).
    for (std::size_t p = 0; p < links_.size(); ++p) {
      if (!links_[p] || !links_[p]->hello_to_send) continue;
      auto& b = reinterpret_cast<Buffers*>(buffers_.data())[p];
      b.hello.kind = Message::Hello;
      const fabric::Sge sge = region_->sge(reinterpret_cast<std::byte*>(&b.hello) - buffers_.data(), sizeof(Message));
      fabric::SendWr wr;
      wr.wr_id = wr_id(kServerHello, static_cast<int>(p));
      wr.opcode = fabric::Opcode::Send;
      wr.sg_list = {&sge, 1};
      {
        std::lock_guard guard(mutex_);
        ++writes_in_flight_;
      }
      if (links_[p]->server->post_send(wr) != fabric::Status::Ok)
        throw Error(ErrorClass::MPI_ERR_OTHER, where, links_[p]->server->last_error());
    }
    fabric::CompletionQueue* client_sources[] = {client_cq_.get()};
    for (std::size_t p = 0; p < links_.size(); ++p) {
      while (links_[p] && links_[p]->wait_hello && !links_[p]->hello_received) {
        poll_client(where);
        if (links_[p]->error != fabric::WcStatus::Success)
          throw Error(ErrorClass::MPI_ERR_OTHER, where,
                      fmt::format("rank {}'s lock service did not say hello: {}", p, fabric::to_string(links_[p]->error)));
        if (!links_[p]->hello_received) runtime.wait_for_completion(client_sources, fabric::Runtime::kForever);
      }
    }
  }
  if (links_.size() > 1)
    agent_ = runtime.spawn(fmt::format("rma-lock-agent-{}", rank_), [this] { agent_body(); });
}

// ---------------------------------------------------------------- the agent

void LockService::agent_body() {
  fabric::Runtime& runtime = device_.runtime();
  fabric::CompletionQueue* sources[] = {agent_cq_.get()};
  fabric::WorkCompletion wcs[16];
  std::vector<LockTable::Grant> grants;
  for (;;) {
    const std::size_t n = agent_cq_->poll(wcs);
    grants.clear();
    for (std::size_t i = 0; i < n; ++i) serve(wcs[i], grants);
    for (const LockTable::Grant& g : grants) write_grant(g);
    if (n > 0) continue;  // poll again before sleeping
    {
      std::lock_guard guard(mutex_);
      if (writes_in_flight_ == 0 && std::all_of(closed_.begin(), closed_.end(), [](bool c) { return c; })) return;
    }
    if (stop_.load(std::memory_order_acquire)) return;
    const double deadline = runtime.now() + kStopCheck;
    if (design_ == RmaLockDesign::Event)
      runtime.wait_for_event(sources, deadline);
    else
      runtime.wait_for_completion(sources, deadline);
  }
}

void LockService::serve(const fabric::WorkCompletion& wc, std::vector<LockTable::Grant>& grants) {
  const int peer = peer_of(wc.wr_id);
  const bool own_write = kind_of(wc.wr_id) == kServerWrite || kind_of(wc.wr_id) == kServerHello;
  if (!own_write && wc.status == fabric::WcStatus::Success) {
    work_.packet_received();  // a message taken from the receive queue
    work_.packet_from_queue();
  }
  std::lock_guard guard(mutex_);
  if (own_write) {
    --writes_in_flight_;
  } else if (wc.status == fabric::WcStatus::Success) {
    const Message m = reinterpret_cast<Buffers*>(buffers_.data())[peer].recv[slot_of(wc.wr_id)];
    post_server_recv(peer, slot_of(wc.wr_id));
    try {
      switch (m.kind) {
        case Message::Request:
          table_.request(peer, static_cast<LockType>(m.type), m.sequence, grants);
          return;
        case Message::Unlock:
          table_.release(peer, grants);
          return;
        default:
          break;
      }
    } catch (const std::logic_error& e) {
      // The engine never sends these; a message that breaks the protocol must not end
      // the agent, which the other origins still need.
      fabric::log().error("MPI one-sided: rank {}'s lock agent ignored a message from rank {}: {}", rank_, peer,
                          e.what());
      return;
    }
    switch (m.kind) {
      case Message::Close:
        closed_[static_cast<std::size_t>(peer)] = true;
        return;
      default:
        fabric::log().warn("MPI one-sided: rank {}'s lock agent got an unknown message {} from rank {}", rank_,
                           static_cast<int>(m.kind), peer);
        return;
    }
  }
  if (wc.status != fabric::WcStatus::Success && !closed_[static_cast<std::size_t>(peer)]) {
    // The origin is gone (or its QP failed): what it held or waited for is freed, so
    // the other origins keep going; it gets no more grants.
    fabric::log().warn("MPI one-sided: rank {}'s lock agent lost rank {} ({}); its lock is dropped", rank_, peer,
                       fabric::to_string(wc.status));
    closed_[static_cast<std::size_t>(peer)] = true;
    table_.forget(peer, grants);
  }
}

void LockService::write_grant(const LockTable::Grant& grant) {
  if (grant.origin == rank_) {
    std::atomic_ref<std::uint64_t>(*own_grant_).store(grant.sequence, std::memory_order_release);
    return;
  }
  const auto p = static_cast<std::size_t>(grant.origin);
  {
    std::lock_guard guard(mutex_);
    if (closed_[p]) return;
    ++writes_in_flight_;
  }
  auto& b = reinterpret_cast<Buffers*>(buffers_.data())[p];
  b.grant = grant.sequence;
  const fabric::Sge sge = region_->sge(reinterpret_cast<std::byte*>(&b.grant) - buffers_.data(), sizeof b.grant);
  fabric::SendWr wr;
  wr.wr_id = wr_id(kServerWrite, grant.origin);
  wr.opcode = fabric::Opcode::RdmaWrite;
  wr.sg_list = {&sge, 1};
  wr.remote_addr = peers_[p].grant_addr;
  wr.rkey = peers_[p].rkey;
  // Counted before it is posted: the origin may see the grant, and read the counters
  // after a barrier, before this thread would get to count it afterwards.
  count_message();
  work_.packet_sent();
  const fabric::Status s = links_[p]->server->post_send(wr);
  if (s != fabric::Status::Ok) {
    std::atomic_ref<std::uint64_t>(*messages_).fetch_sub(1, std::memory_order_relaxed);
    fabric::log().warn("MPI one-sided: rank {}'s lock agent could not grant rank {}: {} ({})", rank_, grant.origin,
                       fabric::to_string(s), links_[p]->server->last_error());
    std::vector<LockTable::Grant> more;
    {
      std::lock_guard guard(mutex_);
      --writes_in_flight_;
      closed_[p] = true;
      table_.forget(grant.origin, more);
    }
    for (const LockTable::Grant& g : more) write_grant(g);
  }
}

// ---------------------------------------------------------------- the rank's side

void LockService::poll_client(const char* where) {
  (void)where;
  fabric::WorkCompletion wcs[16];
  for (;;) {
    const std::size_t n = client_cq_->poll(wcs);
    for (std::size_t i = 0; i < n; ++i) {
      Link& link = *links_[static_cast<std::size_t>(peer_of(wcs[i].wr_id))];
      switch (kind_of(wcs[i].wr_id)) {
        case kClientSend: --link.sends_in_flight; break;
        case kClientRecv: link.hello_received = true; break;
        case kClientProbe: link.probe_in_flight = false; break;
        default: break;
      }
      if (wcs[i].status != fabric::WcStatus::Success && link.error == fabric::WcStatus::Success)
        link.error = wcs[i].status;
    }
    if (n < std::size(wcs)) return;
  }
}

void LockService::send(int target, Message message, const char* where) {
  Link& link = *links_[static_cast<std::size_t>(target)];
  fabric::Runtime& runtime = device_.runtime();
  fabric::CompletionQueue* sources[] = {client_cq_.get()};
  for (;;) {
    poll_client(where);
    if (link.error != fabric::WcStatus::Success) check(target, runtime.now(), where);
    if (link.sends_in_flight < kSendSlots) break;
    runtime.wait_for_completion(sources, fabric::Runtime::kForever);
  }
  auto& b = reinterpret_cast<Buffers*>(buffers_.data())[target];
  Message& slot = b.send[link.sends_posted % kSendSlots];
  slot = message;
  const fabric::Sge sge = region_->sge(reinterpret_cast<std::byte*>(&slot) - buffers_.data(), sizeof slot);
  fabric::SendWr wr;
  wr.wr_id = wr_id(kClientSend, target);
  wr.opcode = fabric::Opcode::Send;
  wr.sg_list = {&sge, 1};
  work_.packet_sent();  // before the post, which starts after the work (Context::post_rdma)
  const fabric::Status s = link.client->post_send(wr);
  if (s != fabric::Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, fmt::format("{}(rank={})", where, target),
                fmt::format("sending to the target's lock agent failed: {} ({})", fabric::to_string(s),
                            link.client->last_error()));
  ++link.sends_posted;
  ++link.sends_in_flight;
  count_message();
}

std::uint64_t LockService::request(int target, LockType type, const char* where) {
  if (target == rank_) {
    const std::uint64_t sequence = ++own_sequence_;
    std::vector<LockTable::Grant> grants;
    {
      std::lock_guard guard(mutex_);
      table_.request(rank_, type, sequence, grants);
    }
    for (const LockTable::Grant& g : grants)
      std::atomic_ref<std::uint64_t>(*own_grant_).store(g.sequence, std::memory_order_release);
    return sequence;
  }
  Link& link = *links_[static_cast<std::size_t>(target)];
  Message m;
  m.kind = Message::Request;
  m.type = static_cast<std::uint8_t>(type);
  m.sequence = ++link.sequence;
  send(target, m, where);
  return m.sequence;
}

std::vector<LockTable::Grant> LockService::release(int target, const char* where) {
  std::vector<LockTable::Grant> grants;
  if (target == rank_) {
    std::lock_guard guard(mutex_);
    table_.release(rank_, grants);
    // Origins whose link failed get nothing.
    std::erase_if(grants, [this](const LockTable::Grant& g) {
      return g.origin != rank_ && closed_[static_cast<std::size_t>(g.origin)] &&
             links_[static_cast<std::size_t>(g.origin)]->error != fabric::WcStatus::Success;
    });
    return grants;
  }
  Message m;
  m.kind = Message::Unlock;
  send(target, m, where);
  return grants;
}

void LockService::check(int target, double waiting_since, const char* where) {
  if (target == rank_) return;
  poll_client(where);
  Link& link = *links_[static_cast<std::size_t>(target)];
  if (link.error != fabric::WcStatus::Success)
    throw Error(ErrorClass::MPI_ERR_OTHER, fmt::format("{}(rank={})", where, target),
                fmt::format("the target's lock agent is unreachable: a message to it completed with {} (did the "
                            "target process end?)",
                            fabric::to_string(link.error)));
  const double now = device_.runtime().now();
  if (link.probe_in_flight || now - std::max(waiting_since, link.last_probe) < kLivenessInterval) return;
  auto& b = reinterpret_cast<Buffers*>(buffers_.data())[target];
  const fabric::Sge sge = region_->sge(reinterpret_cast<std::byte*>(&b.probe) - buffers_.data(), sizeof b.probe);
  fabric::SendWr wr;
  wr.wr_id = wr_id(kClientProbe, target);
  wr.opcode = fabric::Opcode::RdmaRead;
  wr.sg_list = {&sge, 1};
  wr.remote_addr = peers_[static_cast<std::size_t>(target)].probe_addr;
  wr.rkey = peers_[static_cast<std::size_t>(target)].rkey;
  if (link.client->post_send(wr) == fabric::Status::Ok) link.probe_in_flight = true;
  link.last_probe = now;
}

void LockService::close(const char* where) {
  fabric::Runtime& runtime = device_.runtime();
  for (std::size_t p = 0; p < links_.size(); ++p) {
    if (!links_[p] || links_[p]->error != fabric::WcStatus::Success) continue;
    Message m;
    m.kind = Message::Close;
    send(static_cast<int>(p), m, where);
  }
  fabric::CompletionQueue* sources[] = {client_cq_.get()};
  for (std::size_t p = 0; p < links_.size(); ++p) {
    while (links_[p] && (links_[p]->sends_in_flight > 0 || links_[p]->probe_in_flight) &&
           links_[p]->error == fabric::WcStatus::Success) {
      poll_client(where);
      if (links_[p]->sends_in_flight > 0 || links_[p]->probe_in_flight)
        runtime.wait_for_completion(sources, fabric::Runtime::kForever);
    }
  }
  if (agent_) {
    std::unique_ptr<fabric::Agent> agent = std::move(agent_);
    agent->join();
  }
}

}  // namespace twinfab::mpi::rma
