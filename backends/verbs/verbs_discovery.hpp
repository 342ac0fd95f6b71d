// Internal: finding RDMA devices and describing what they can do.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/verbs/verbs_backend.hpp"
#include "fabric/capabilities.hpp"

namespace twinfab::verbs {

/// Owns the array from ibv_get_device_list. On a kernel without RDMA the list is
/// empty and error() holds the errno (ENOSYS).
class DeviceList final {
 public:
  DeviceList();
  ~DeviceList();
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;

  std::span<ibv_device* const> devices() const noexcept { return {list_, static_cast<size_t>(count_)}; }
  ibv_device* find(std::string_view name) const noexcept;
  int error() const noexcept { return error_; }

 private:
  ibv_device** list_ = nullptr;
  int count_ = 0;
  int error_ = 0;
};

/// IB vs RoCE vs iWARP, from the device's transport and the port's link layer.
fabric::LinkKind link_kind(const ibv_context* context, const ibv_port_attr& port_attr) noexcept;

/// Bytes of an ibv_mtu value (IBV_MTU_1024 -> 1024).
uint32_t mtu_bytes(ibv_mtu mtu) noexcept;

/// True for a GID of the form ::ffff:a.b.c.d (RoCE v2 over IPv4).
bool is_ipv4_mapped(const ibv_gid& gid) noexcept;

/// The GID in IPv6 notation ("::ffff:10.77.0.1", "fe80::...").
std::string gid_to_string(const ibv_gid& gid);

/// The GID index open_device uses when none was asked for: on RoCE the RoCE v2 GID
/// with an IPv4-mapped address (else the first RoCE v2 GID, else 0), on IB and iWARP
/// 0. -1 when the port's GID table is empty.
int default_gid_index(ibv_context* context, uint8_t port, const ibv_port_attr& port_attr);

/// Largest max_inline_data the device accepts for an RC QP, found by creating QPs
/// with decreasing requests (there is no device attribute for it).
uint32_t probe_max_inline(ibv_context* context, ibv_pd* pd);

/// Capabilities of one port, honest about iWARP's limits (no UC/UD, no atomics, no
/// immediate data, connection manager required, active side sends first, no
/// in-order placement guarantee).
fabric::DeviceCapabilities make_capabilities(ibv_context* context, ibv_pd* pd, const ibv_device_attr& device_attr,
                                             const ibv_port_attr& port_attr);

/// Describes every port of every device in `list` (opens each device briefly).
std::vector<DeviceInfo> describe_devices(const DeviceList& list);

/// The NotFound message: what was looked for, what was found (or why nothing could
/// be), and how to get a device.
std::string no_device_message(std::string_view looked_for, const DeviceList& list,
                              const std::vector<DeviceInfo>& found);

}  // namespace twinfab::verbs
