// twinfab fabric contract: what a device can do.
//
// Behaviour everywhere above fabric/ follows these flags, never device names. A flag
// must match what the backend implements: an operation whose flag is false returns
// Status::Unsupported (or throws fabric::Error(Unsupported) at set-up), never silently
// misbehaves.
#pragma once

#include <cstdint>
#include <string>

namespace twinfab::fabric {

/// How the wire protocol of the device works (ibv_transport_type + link layer).
enum class LinkKind : uint8_t { InfiniBand, RoCE, IWarp, Simulated };
std::string to_string(LinkKind k);

struct DeviceCapabilities {
  std::string backend;      ///< "sim" or "verbs"
  std::string device_name;  ///< e.g. "sim-hca0", "rxe0"
  LinkKind link = LinkKind::Simulated;

  bool rc = true;
  bool uc = true;
  bool ud = true;
  bool srq = true;
  bool atomics = true;            ///< 8-byte CAS and FAA on RC
  bool send_with_imm = true;
  bool write_with_imm = true;
  bool in_order_placement = true; ///< RDMA write data lands in order (RDMA fast path needs it)
  /// A send that finds no receive posted is retried by the requester (an RNR NAK, as
  /// InfiniBand and RoCE do, rnr_retry permitting) rather than breaking the connection
  /// (iWARP). What lets a shared receive queue be oversubscribed by its senders.
  bool receiver_not_ready_retry = true;
  /// Connections must be made through a connection manager (rdma_cm); iWARP.
  bool requires_connection_manager = false;
  /// The active side of a connection must send the first message (iWARP, seed 003).
  bool active_side_sends_first = false;

  uint32_t mtu = 2048;            ///< active path MTU in bytes (UD message limit)
  uint32_t max_inline = 256;      ///< bytes that can be posted with SendFlags::Inline
  uint32_t max_sge = 16;          ///< SGEs per work request
  uint32_t max_qp_wr = 16384;     ///< work requests per queue
  uint32_t max_cqe = 65536;       ///< entries per completion queue
  uint32_t max_rd_atomic = 16;    ///< outstanding RDMA reads/atomics per QP
  uint64_t max_mr_size = 1ull << 40;
};

/// Multi-line human-readable listing, used by `twinfab info`.
std::string describe(const DeviceCapabilities& caps);

}  // namespace twinfab::fabric
