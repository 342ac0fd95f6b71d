// Internal: the payload of this backend's address blobs (fabric::Address carries the
// header: backend tag "verbs" and the transport).
//
// IB and RoCE QPs publish a route (LID, GID, QP number, starting PSN, MTU, ...) that
// the peer feeds to ibv_modify_qp or ibv_create_ah. iWARP QPs publish their device's
// connection rank, where their rdma_cm listener is (IPv4 address and port) and their
// QP number. Integers are big-endian and the rank comes first, so that blobs compare
// byte-wise like (rank, address, port, QP) (see is_active_side).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "fabric/address.hpp"
#include "fabric/capabilities.hpp"
#include "fabric/status.hpp"
#include "fabric/types.hpp"

namespace twinfab::verbs {

/// An IB or RoCE QP as its peer needs to see it.
struct RoutedEndpoint {
  fabric::LinkKind link = fabric::LinkKind::InfiniBand;  ///< InfiniBand or RoCE
  uint32_t qp_num = 0;
  uint32_t psn = 0;                 ///< first PSN this QP sends (24 bits)
  uint16_t lid = 0;                 ///< 0 on RoCE
  ibv_gid gid{};                    ///< the QP's source GID
  uint8_t gid_index = 0;            ///< informational: index of `gid` in its port's table
  uint8_t port = 1;
  ibv_mtu mtu = IBV_MTU_1024;       ///< the port's active MTU
  uint8_t responder_resources = 0;  ///< RDMA reads/atomics it accepts in flight
  uint32_t qkey = 0;                ///< UD only
};

/// An iWARP QP: the connection rank of its device, its rdma_cm listener and QP number.
struct IwarpEndpoint {
  uint32_t rank = 0;  ///< OpenOptions::connection_rank of the device (decides the roles)
  uint32_t ipv4 = 0;  ///< network byte order (as in sockaddr_in::sin_addr)
  uint16_t port = 0;  ///< host byte order
  uint32_t qp_num = 0;
  bool operator==(const IwarpEndpoint&) const = default;
};

fabric::Address encode_address(fabric::Transport transport, const RoutedEndpoint& endpoint);
fabric::Address encode_address(fabric::Transport transport, const IwarpEndpoint& endpoint);

/// InvalidArgument with `why` for a blob of another backend, transport or link kind,
/// or a truncated one.
fabric::Status decode_address(const fabric::Address& blob, fabric::Transport transport, fabric::LinkKind local_link,
                              RoutedEndpoint& out, std::string& why);
fabric::Status decode_address(const fabric::Address& blob, fabric::Transport transport, IwarpEndpoint& out,
                              std::string& why);

/// "10.77.0.1:40123 (rank 1, QP 17)".
std::string to_string(const IwarpEndpoint& endpoint);

}  // namespace twinfab::verbs
