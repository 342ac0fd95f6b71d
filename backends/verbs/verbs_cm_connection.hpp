// Internal: the rdma_cm handshake of one iWARP QP, driven without blocking.
//
// iWARP QPs cannot be connected by exchanging addresses and modifying the QP: the
// kernel must set up a TCP connection and the MPA exchange on it. rdma_cm does that,
// client/server style. Each iWARP QP therefore owns an rdma_cm event channel (a
// non-blocking fd) and a listening cm_id bound to the device's IPv4 address on an
// ephemeral port; its address blob publishes that ip:port.
//
// When connect() is called with the peer's blob, the side with the lower (connection
// rank, ip, port) is passive (seed 003: the lower rank listens) and accepts the
// request whose private data names the expected peer; the other side is active: it
// resolves the address and the route and connects. The QP itself is an ordinary ibv_qp of the device's own
// context, handed to rdma_connect/rdma_accept by number (rdma_conn_param::qp_num):
// the iWARP connection manager looks QPs up by number on the device, and the provider
// moves the QP to RTS when the connection is established.
//
// Every call returns at once; both sides call advance() again (from one thread or
// two, in any order) until it returns Ok or an error.
#pragma once

#include <rdma/rdma_cma.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/verbs/verbs_address.hpp"
#include "fabric/status.hpp"

namespace twinfab::verbs {

/// The IPv4 address (network order) rdma_cm should use for iWARP device
/// `device_name`: `requested` (dotted quad) if not empty, else $TWINFAB_IWARP_ADDR,
/// else the first address of this host that rdma_cm binds to that device. Throws
/// fabric::Error(NotFound) with what to do when there is none.
uint32_t find_iwarp_ipv4(const std::string& device_name, const std::string& requested);

/// True when the QP at `self` takes the active (connecting, first-sending) role
/// toward `peer`. Agrees with is_active_side() on the two blobs.
bool is_active_role(const IwarpEndpoint& self, const IwarpEndpoint& peer) noexcept;

class CmConnection final {
 public:
  struct Limits {
    uint8_t responder_resources = 1;  ///< RDMA reads we serve in flight (IRD)
    uint8_t initiator_depth = 1;      ///< RDMA reads we issue in flight (ORD)
    uint8_t retry_count = 7;          ///< rdma_conn_param's (InfiniBand/RoCE; iWARP's TCP ignores it)
    uint8_t rnr_retry_count = 7;      ///< likewise
  };

  /// Creates the event channel and the listener on `ipv4` (network order), port
  /// chosen by the kernel. Throws fabric::Error.
  CmConnection(uint32_t ipv4, const Limits& limits);
  ~CmConnection();
  CmConnection(const CmConnection&) = delete;
  CmConnection& operator=(const CmConnection&) = delete;

  uint32_t ipv4() const noexcept { return ipv4_; }
  uint16_t listen_port() const noexcept { return listen_port_; }

  /// One non-blocking step of the handshake between the QP at `self` and `peer`:
  /// Ok once established, InProgress before, IoError/InvalidState with `why` when it
  /// failed for good (the QP is then unusable until reset()).
  fabric::Status advance(const IwarpEndpoint& self, const IwarpEndpoint& peer, std::string& why);
  /// After establishment: handles pending events; false once the connection is gone
  /// (the peer disconnected or the device failed).
  bool alive();
  /// Drops the connection and forgets the peer; the listener stays, so the QP can be
  /// connected again after it went through RESET.
  void reset();

 private:
  enum class Phase { Idle, ResolvingAddress, ResolvingRoute, Connecting, Accepting, Established, Lost, Failed };
  struct Request {  // a connection request not accepted yet
    rdma_cm_id* id = nullptr;
    IwarpEndpoint from;
    bool from_valid = false;
    uint8_t initiator_depth = 0;
    uint8_t responder_resources = 0;
  };
  struct Event {  // what we keep of an rdma_cm_event after acknowledging it
    rdma_cm_event_type type;
    rdma_cm_id* id;
    int status;
    Request request;
  };

  void drain_events();
  void handle(const Event& event);
  void start_active();
  void accept_pending();
  /// An active attempt failed: retry with a fresh cm_id, or give up after kMaxAttempts.
  void attempt_failed(const std::string& what);
  void fail(std::string why);
  void drop_connection();
  std::vector<uint8_t> private_data() const;

  rdma_event_channel* channel_ = nullptr;
  rdma_cm_id* listen_id_ = nullptr;
  rdma_cm_id* conn_id_ = nullptr;
  uint32_t ipv4_ = 0;
  uint16_t listen_port_ = 0;
  Limits limits_;

  Phase phase_ = Phase::Idle;
  bool peer_known_ = false;
  bool active_ = false;
  IwarpEndpoint self_;
  IwarpEndpoint peer_;
  int attempts_ = 0;
  std::string why_;
  std::vector<Request> pending_;
};

}  // namespace twinfab::verbs
