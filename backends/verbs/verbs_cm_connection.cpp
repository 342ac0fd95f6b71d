#include "backends/verbs/verbs_cm_connection.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "backends/verbs/verbs_errno.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::verbs {

using fabric::Error;
using fabric::Status;

namespace {

constexpr int kResolveTimeoutMs = 2000;
// A connect attempt can fail transiently (the passive side had not been driven for
// a while and the MPA exchange timed out); beyond a few retries it is a real error.
constexpr int kMaxAttempts = 6;
constexpr uint32_t kPrivateMagic = 0x7466636d;  // "tfcm"
constexpr size_t kPrivateBytes = 4 + 4 + 4 + 2 + 4;
constexpr const char* kRdmaCmHint =
    "rdma_cm needs /dev/infiniband/rdma_cm: load the rdma_ucm kernel module (`modprobe rdma_ucm`)";

sockaddr_in make_sockaddr(uint32_t ipv4, uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = ipv4;
  sa.sin_port = htons(port);
  return sa;
}

std::string ipv4_string(uint32_t ipv4) {
  char text[INET_ADDRSTRLEN] = "?";
  in_addr a{};
  a.s_addr = ipv4;
  inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}

/// The device rdma_cm binds `ipv4` to, or "" (with `error` saying why) when none.
std::string device_bound_to(uint32_t ipv4, std::string& error) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(nullptr, &id, nullptr, RDMA_PS_TCP) != 0) {
    error = errno_message("rdma_create_id", errno);
    return {};
  }
  sockaddr_in sa = make_sockaddr(ipv4, 0);
  std::string name;
  if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&sa)) != 0) {
    error = errno_message("rdma_bind_addr", errno);
  } else if (id->verbs == nullptr) {
    error = "bound to no RDMA device";
  } else {
    name = ibv_get_device_name(id->verbs->device);
  }
  rdma_destroy_id(id);
  return name;
}

void write_be(std::vector<uint8_t>& out, uint32_t v, int bytes) {
  for (int s = (bytes - 1) * 8; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(v >> s));
}

uint32_t read_be(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}

}  // namespace

uint32_t find_iwarp_ipv4(const std::string& device_name, const std::string& requested) {
  std::string want = requested;
  if (want.empty()) {
    if (const char* env = std::getenv("TWINFAB_IWARP_ADDR")) want = env;
  }
  if (!want.empty()) {
    in_addr a{};
    if (inet_pton(AF_INET, want.c_str(), &a) != 1) {
      throw Error(Status::InvalidArgument, fmt::format("iWARP address '{}' is not an IPv4 address", want));
    }
    std::string error;
    std::string bound = device_bound_to(a.s_addr, error);
    if (bound != device_name) {
      throw Error(Status::InvalidArgument,
                  fmt::format("iWARP address {} does not belong to {} (rdma_cm: {}): use an address of the network "
                              "interface {} is attached to (`rdma link show`); {}",
                              want, device_name, bound.empty() ? error : "it belongs to " + bound, device_name,
                              kRdmaCmHint));
    }
    return a.s_addr;
  }

  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) throw_errno("getifaddrs", errno);
  std::vector<uint32_t> candidates;
  for (int pass = 0; pass < 2; ++pass) {
    // Real interfaces first: siw can attach to lo too, but a veth/eth address is the
    // one peers on other hosts can reach.
    for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
      if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
      const bool loopback = (it->ifa_flags & IFF_LOOPBACK) != 0;
      if (loopback != (pass == 1)) continue;
      candidates.push_back(reinterpret_cast<sockaddr_in*>(it->ifa_addr)->sin_addr.s_addr);
    }
  }
  freeifaddrs(list);

  std::string tried;
  for (uint32_t ip : candidates) {
    std::string error;
    std::string bound = device_bound_to(ip, error);
    if (bound == device_name) return ip;
    tried += fmt::format(" {} ({})", ipv4_string(ip), bound.empty() ? error : bound);
  }
  throw Error(Status::NotFound,
              fmt::format("iWARP device {} has no IPv4 address that rdma_cm maps to it (tried:{}): give the "
                          "network interface it is attached to an address (`ip addr add 10.0.0.1/24 dev <if>`), "
                          "or set TWINFAB_IWARP_ADDR; {}",
                          device_name, tried.empty() ? " none" : tried, kRdmaCmHint));
}

bool is_active_role(const IwarpEndpoint& self, const IwarpEndpoint& peer) noexcept {
  return std::make_tuple(self.rank, ntohl(self.ipv4), self.port, self.qp_num) >
         std::make_tuple(peer.rank, ntohl(peer.ipv4), peer.port, peer.qp_num);
}

CmConnection::CmConnection(uint32_t ipv4, const Limits& limits) : ipv4_(ipv4), limits_(limits) {
  channel_ = rdma_create_event_channel();
  if (channel_ == nullptr) throw_errno("rdma_create_event_channel", errno, kRdmaCmHint);
  try {
    const int flags = fcntl(channel_->fd, F_GETFL);
    if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno("fcntl(O_NONBLOCK)", errno);
    // rdma_cm picks the port from its own port space, but an iWARP device (siw, Chelsio)
    // listens on that port in the host's TCP stack, where another socket may hold it
    // (an ephemeral port of a TCP connection, e.g. siw's own QPs): rdma_listen then fails
    // with EADDRINUSE. Another port is tried, as iwpmd's port mapping would avoid this.
    constexpr int kListenAttempts = 32;
    for (int attempt = 1;; ++attempt) {
      if (rdma_create_id(channel_, &listen_id_, nullptr, RDMA_PS_TCP) != 0) throw_errno("rdma_create_id", errno);
      sockaddr_in sa = make_sockaddr(ipv4_, 0);
      if (rdma_bind_addr(listen_id_, reinterpret_cast<sockaddr*>(&sa)) != 0) {
        throw_errno(fmt::format("rdma_bind_addr({})", ipv4_string(ipv4_)), errno);
      }
      if (rdma_listen(listen_id_, 16) == 0) break;
      const int err = errno;
      if (err != EADDRINUSE) throw_errno("rdma_listen", err);
      if (attempt == kListenAttempts)
        throw_errno(fmt::format("rdma_listen on {} ({} ports tried, each held by another socket)",
                                ipv4_string(ipv4_), kListenAttempts),
                    err, "iWARP listens in the host's TCP port space: run iwpmd, or free ephemeral ports");
      rdma_destroy_id(listen_id_);
      listen_id_ = nullptr;
    }
    listen_port_ = ntohs(rdma_get_src_port(listen_id_));
  } catch (...) {
    if (listen_id_ != nullptr) rdma_destroy_id(listen_id_);
    rdma_destroy_event_channel(channel_);
    throw;
  }
}

CmConnection::~CmConnection() {
  reset();
  rdma_destroy_id(listen_id_);
  rdma_destroy_event_channel(channel_);
}

std::vector<uint8_t> CmConnection::private_data() const {
  std::vector<uint8_t> out;
  write_be(out, kPrivateMagic, 4);
  write_be(out, self_.rank, 4);
  const auto* ip = reinterpret_cast<const uint8_t*>(&self_.ipv4);
  out.insert(out.end(), ip, ip + 4);
  write_be(out, self_.port, 2);
  write_be(out, self_.qp_num, 4);
  return out;
}

fabric::Status CmConnection::advance(const IwarpEndpoint& self, const IwarpEndpoint& peer, std::string& why) {
  if (!peer_known_) {
    if (self.ipv4 == peer.ipv4 && self.port == peer.port) {
      why = "connect(): the address blob is this QP's own; pass the peer's";
      return Status::InvalidArgument;
    }
    self_ = self;
    peer_ = peer;
    peer_known_ = true;
    active_ = is_active_role(self, peer);
  } else if (!(peer == peer_)) {
    why = fmt::format("connect(): this QP is already connecting to {}, not {}; reset it first", to_string(peer_),
                      to_string(peer));
    return Status::InvalidState;
  }
  drain_events();
  if (phase_ == Phase::Idle) {
    if (active_) {
      start_active();
    } else {
      accept_pending();
    }
  }
  switch (phase_) {
    case Phase::Established:
      return Status::Ok;
    case Phase::Failed:
    case Phase::Lost:
      why = why_;
      return Status::IoError;
    default:
      return Status::InProgress;
  }
}

bool CmConnection::alive() {
  drain_events();
  return phase_ == Phase::Established;
}

void CmConnection::drain_events() {
  for (;;) {
    rdma_cm_event* ev = nullptr;
    if (rdma_get_cm_event(channel_, &ev) != 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) fail(errno_message("rdma_get_cm_event", errno));
      return;
    }
    Event e{ev->event, ev->id, ev->status, {}};
    if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
      e.request.id = ev->id;
      e.request.initiator_depth = ev->param.conn.initiator_depth;
      e.request.responder_resources = ev->param.conn.responder_resources;
      const auto* p = static_cast<const uint8_t*>(ev->param.conn.private_data);
      if (p != nullptr && ev->param.conn.private_data_len >= kPrivateBytes && read_be(p, 4) == kPrivateMagic) {
        e.request.from.rank = read_be(p + 4, 4);
        std::memcpy(&e.request.from.ipv4, p + 8, 4);
        e.request.from.port = static_cast<uint16_t>(read_be(p + 12, 2));
        e.request.from.qp_num = read_be(p + 14, 4);
        e.request.from_valid = true;
      }
    }
    // Acknowledge before acting: rdma_destroy_id waits for the events of its id.
    rdma_ack_cm_event(ev);
    handle(e);
  }
}

void CmConnection::handle(const Event& e) {
  if (e.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
    if (phase_ == Phase::Idle || phase_ == Phase::Accepting) {
      pending_.push_back(e.request);
    } else {
      rdma_reject(e.request.id, nullptr, 0);
      rdma_destroy_id(e.request.id);
    }
    return;
  }
  if (e.id != nullptr && e.id == conn_id_) {
    const std::string what = fmt::format("{} (status {})", rdma_event_str(e.type), e.status);
    switch (e.type) {
      case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(conn_id_, kResolveTimeoutMs) != 0) {
          attempt_failed(errno_message("rdma_resolve_route", errno));
        } else {
          phase_ = Phase::ResolvingRoute;
        }
        return;
      case RDMA_CM_EVENT_ROUTE_RESOLVED: {
        std::vector<uint8_t> data = private_data();
        rdma_conn_param param{};
        param.private_data = data.data();
        param.private_data_len = static_cast<uint8_t>(data.size());
        param.responder_resources = limits_.responder_resources;
        param.initiator_depth = limits_.initiator_depth;
        param.retry_count = limits_.retry_count;
        param.rnr_retry_count = limits_.rnr_retry_count;
        param.qp_num = self_.qp_num;
        if (rdma_connect(conn_id_, &param) != 0) {
          attempt_failed(errno_message("rdma_connect", errno));
        } else {
          phase_ = Phase::Connecting;
        }
        return;
      }
      case RDMA_CM_EVENT_ESTABLISHED:
        phase_ = Phase::Established;
        return;
      case RDMA_CM_EVENT_DISCONNECTED:
        if (phase_ == Phase::Established) {
          phase_ = Phase::Lost;
          why_ = fmt::format("the connection to {} was closed by the peer ({})", to_string(peer_), what);
          return;
        }
        [[fallthrough]];
      case RDMA_CM_EVENT_ADDR_ERROR:
      case RDMA_CM_EVENT_ROUTE_ERROR:
      case RDMA_CM_EVENT_UNREACHABLE:
      case RDMA_CM_EVENT_REJECTED:
      case RDMA_CM_EVENT_CONNECT_ERROR:
        if (active_) {
          attempt_failed(what);
        } else {
          // The active side gave up on this attempt; it will come back with a new one.
          drop_connection();
          phase_ = Phase::Idle;
        }
        return;
      case RDMA_CM_EVENT_DEVICE_REMOVAL:
        fail("the RDMA device was removed");
        return;
      default:
        return;  // TIMEWAIT_EXIT, ADDR_CHANGE: nothing to do
    }
  }
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->id == e.id) {
      // A request we had not accepted yet was withdrawn.
      rdma_destroy_id(it->id);
      pending_.erase(it);
      return;
    }
  }
  if (e.type == RDMA_CM_EVENT_DEVICE_REMOVAL) fail("the RDMA device was removed");
}

void CmConnection::start_active() {
  ++attempts_;
  if (rdma_create_id(channel_, &conn_id_, nullptr, RDMA_PS_TCP) != 0) {
    conn_id_ = nullptr;
    fail(errno_message("rdma_create_id", errno));
    return;
  }
  sockaddr_in src = make_sockaddr(ipv4_, 0);
  sockaddr_in dst = make_sockaddr(peer_.ipv4, peer_.port);
  if (rdma_resolve_addr(conn_id_, reinterpret_cast<sockaddr*>(&src), reinterpret_cast<sockaddr*>(&dst),
                        kResolveTimeoutMs) != 0) {
    attempt_failed(errno_message(fmt::format("rdma_resolve_addr({})", to_string(peer_)), errno));
    return;
  }
  phase_ = Phase::ResolvingAddress;
}

void CmConnection::accept_pending() {
  while (phase_ == Phase::Idle && !pending_.empty()) {
    Request req = pending_.front();
    pending_.erase(pending_.begin());
    if (!req.from_valid || !(req.from == peer_)) {
      // Someone else's request (or a stale one): this QP belongs to peer_ only.
      fabric::log().debug("verbs: {} rejects a connection request from {}", to_string(self_),
                          req.from_valid ? to_string(req.from) : std::string("a non-twinfab peer"));
      rdma_reject(req.id, nullptr, 0);
      rdma_destroy_id(req.id);
      continue;
    }
    rdma_conn_param param{};
    param.qp_num = self_.qp_num;
    param.responder_resources = std::min(req.initiator_depth, limits_.responder_resources);
    param.initiator_depth = std::min(req.responder_resources, limits_.initiator_depth);
    param.retry_count = limits_.retry_count;
    param.rnr_retry_count = limits_.rnr_retry_count;
    if (rdma_accept(req.id, &param) != 0) {
      const int err = errno;
      rdma_destroy_id(req.id);
      fail(errno_message(fmt::format("rdma_accept({})", to_string(peer_)), err));
      return;
    }
    conn_id_ = req.id;
    phase_ = Phase::Accepting;
  }
}

void CmConnection::attempt_failed(const std::string& what) {
  drop_connection();
  if (attempts_ >= kMaxAttempts) {
    fail(fmt::format("rdma_cm could not connect {} to {} after {} attempts; last: {}", to_string(self_),
                     to_string(peer_), attempts_, what));
    return;
  }
  fabric::log().debug("verbs: connect attempt {} from {} to {} failed ({}); retrying", attempts_, to_string(self_),
                      to_string(peer_), what);
  phase_ = Phase::Idle;
}

void CmConnection::fail(std::string why) {
  drop_connection();
  why_ = std::move(why);
  phase_ = Phase::Failed;
}

void CmConnection::drop_connection() {
  if (conn_id_ == nullptr) return;
  if (phase_ == Phase::Established || phase_ == Phase::Accepting || phase_ == Phase::Connecting) {
    rdma_disconnect(conn_id_);  // best effort: a graceful close for the peer
  }
  rdma_destroy_id(conn_id_);
  conn_id_ = nullptr;
}

void CmConnection::reset() {
  drop_connection();
  for (Request& req : pending_) {
    rdma_reject(req.id, nullptr, 0);
    rdma_destroy_id(req.id);
  }
  pending_.clear();
  phase_ = Phase::Idle;
  peer_known_ = false;
  active_ = false;
  attempts_ = 0;
  why_.clear();
}

}  // namespace twinfab::verbs
