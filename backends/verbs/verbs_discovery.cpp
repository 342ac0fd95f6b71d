#include "backends/verbs/verbs_discovery.hpp"

#include <fmt/format.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "backends/verbs/verbs_errno.hpp"

namespace twinfab::verbs {
namespace {

constexpr const char* kSysfsDir = "/sys/class/infiniband";

bool path_exists(const char* path) {
  struct stat st;
  return ::stat(path, &st) == 0;
}

struct ContextCloser {
  void operator()(ibv_context* c) const noexcept { ibv_close_device(c); }
};
struct PdDeallocator {
  void operator()(ibv_pd* pd) const noexcept { ibv_dealloc_pd(pd); }
};
struct CqDestroyer {
  void operator()(ibv_cq* cq) const noexcept { ibv_destroy_cq(cq); }
};

}  // namespace

DeviceList::DeviceList() {
  errno = 0;
  list_ = ibv_get_device_list(&count_);
  if (list_ == nullptr) {
    error_ = errno != 0 ? errno : ENODEV;
    count_ = 0;
  }
}

DeviceList::~DeviceList() {
  if (list_ != nullptr) ibv_free_device_list(list_);
}

ibv_device* DeviceList::find(std::string_view name) const noexcept {
  for (ibv_device* dev : devices()) {
    if (name == ibv_get_device_name(dev)) return dev;
  }
  return nullptr;
}

fabric::LinkKind link_kind(const ibv_context* context, const ibv_port_attr& port_attr) noexcept {
  if (context->device->transport_type == IBV_TRANSPORT_IWARP) return fabric::LinkKind::IWarp;
  if (port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) return fabric::LinkKind::RoCE;
  return fabric::LinkKind::InfiniBand;
}

uint32_t mtu_bytes(ibv_mtu mtu) noexcept {
  switch (mtu) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
  }
  return 256;
}

bool is_ipv4_mapped(const ibv_gid& gid) noexcept {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(gid.raw, kPrefix, sizeof kPrefix) == 0;
}

std::string gid_to_string(const ibv_gid& gid) {
  char text[INET6_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET6, gid.raw, text, sizeof text);
  return text;
}

int default_gid_index(ibv_context* context, uint8_t port, const ibv_port_attr& port_attr) {
  if (port_attr.gid_tbl_len <= 0) return -1;
  if (link_kind(context, port_attr) != fabric::LinkKind::RoCE) return 0;

  // RoCE v2 over IPv4 is routable and is what rxe and every RoCE NIC set up for an
  // interface's IPv4 address; v1 and IPv6 link-local GIDs come first in the table.
  int first_v2 = -1;
  bool table_readable = false;
  for (int i = 0; i < port_attr.gid_tbl_len; ++i) {
    ibv_gid_entry entry{};
    if (ibv_query_gid_ex(context, port, static_cast<uint32_t>(i), &entry, 0) != 0) continue;
    table_readable = true;
    if (entry.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
    if (is_ipv4_mapped(entry.gid)) return i;
    if (first_v2 < 0) first_v2 = i;
  }
  if (first_v2 >= 0) return first_v2;
  if (!table_readable && port_attr.gid_tbl_len > 1) {
    // Kernels without the GID-type query: index 1 is the RoCE v2 twin of index 0.
    return 1;
  }
  return 0;
}

uint32_t probe_max_inline(ibv_context* context, ibv_pd* pd) {
  std::unique_ptr<ibv_cq, CqDestroyer> cq(ibv_create_cq(context, 2, nullptr, nullptr, 0));
  if (!cq) return 0;
  for (uint32_t request : {1024u, 512u, 256u, 128u, 64u, 32u, 16u}) {
    ibv_qp_init_attr attr{};
    attr.send_cq = cq.get();
    attr.recv_cq = cq.get();
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 1;
    attr.cap.max_recv_wr = 1;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    attr.cap.max_inline_data = request;
    if (ibv_qp* qp = ibv_create_qp(pd, &attr)) {
      ibv_destroy_qp(qp);
      // Providers report what they really reserved, which may exceed the request.
      return std::max(request, attr.cap.max_inline_data);
    }
  }
  return 0;
}

fabric::DeviceCapabilities make_capabilities(ibv_context* context, ibv_pd* pd, const ibv_device_attr& dev,
                                             const ibv_port_attr& port_attr) {
  fabric::DeviceCapabilities caps;
  caps.backend = kBackendName;
  caps.device_name = ibv_get_device_name(context->device);
  caps.link = link_kind(context, port_attr);
  const bool iwarp = caps.link == fabric::LinkKind::IWarp;

  caps.rc = true;
  // iWARP (RDMAP over DDP over MPA/TCP) has only reliable connected QPs.
  caps.uc = !iwarp;
  caps.ud = !iwarp;
  caps.srq = dev.max_srq > 0 && dev.max_srq_wr > 0;
  // iWARP has no atomics in RDMAP; some adapters still report a cap, so trust neither.
  caps.atomics = !iwarp && dev.atomic_cap != IBV_ATOMIC_NONE;
  // RDMAP has no immediate data; no iWARP provider in rdma-core implements either op.
  caps.send_with_imm = !iwarp;
  caps.write_with_imm = !iwarp;
  // IB/RoCE deliver an RC message's packets in PSN order, so the last byte of an
  // RDMA write lands last; iWARP's DDP places segments as they arrive.
  caps.in_order_placement = !iwarp;
  // iWARP (DDP) has no receiver-not-ready retry: a send without a receive is fatal.
  caps.receiver_not_ready_retry = !iwarp;
  caps.requires_connection_manager = iwarp;
  caps.active_side_sends_first = iwarp;

  caps.mtu = mtu_bytes(port_attr.active_mtu);
  caps.max_inline = probe_max_inline(context, pd);
  caps.max_sge = static_cast<uint32_t>(std::max(dev.max_sge, 0));
  caps.max_qp_wr = static_cast<uint32_t>(std::max(dev.max_qp_wr, 0));
  caps.max_cqe = static_cast<uint32_t>(std::max(dev.max_cqe, 0));
  caps.max_rd_atomic = static_cast<uint32_t>(std::max(std::min(dev.max_qp_rd_atom, dev.max_qp_init_rd_atom), 0));
  caps.max_mr_size = dev.max_mr_size;
  return caps;
}

std::vector<DeviceInfo> describe_devices(const DeviceList& list) {
  std::vector<DeviceInfo> out;
  for (ibv_device* device : list.devices()) {
    const std::string name = ibv_get_device_name(device);
    auto unusable = [&](std::string why) {
      DeviceInfo info;
      info.name = name;
      info.port = 1;
      info.port_state = std::move(why);
      info.capabilities.backend = kBackendName;
      info.capabilities.device_name = name;
      out.push_back(std::move(info));
    };
    std::unique_ptr<ibv_context, ContextCloser> context(ibv_open_device(device));
    if (!context) {
      unusable(errno_message("ibv_open_device", errno));
      continue;
    }
    ibv_device_attr dev{};
    if (int rc = ibv_query_device(context.get(), &dev); rc != 0) {
      unusable(errno_message("ibv_query_device", rc));
      continue;
    }
    std::unique_ptr<ibv_pd, PdDeallocator> pd(ibv_alloc_pd(context.get()));
    if (!pd) {
      unusable(errno_message("ibv_alloc_pd", errno));
      continue;
    }
    for (uint8_t port = 1; port <= dev.phys_port_cnt; ++port) {
      ibv_port_attr port_attr{};
      if (int rc = ibv_query_port(context.get(), port, &port_attr); rc != 0) {
        unusable(errno_message(fmt::format("ibv_query_port({})", port), rc));
        continue;
      }
      DeviceInfo info;
      info.name = name;
      info.port = port;
      info.port_state = ibv_port_state_str(port_attr.state);
      info.active = port_attr.state == IBV_PORT_ACTIVE;
      info.transport = device->transport_type == IBV_TRANSPORT_IWARP ? "iWARP" : "InfiniBand";
      info.link_layer = port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
      info.default_gid_index = default_gid_index(context.get(), port, port_attr);
      ibv_gid gid{};
      if (info.default_gid_index >= 0 && ibv_query_gid(context.get(), port, info.default_gid_index, &gid) == 0) {
        info.default_gid = gid_to_string(gid);
      }
      info.capabilities = make_capabilities(context.get(), pd.get(), dev, port_attr);
      out.push_back(std::move(info));
    }
  }
  return out;
}

std::string no_device_message(std::string_view looked_for, const DeviceList& list,
                              const std::vector<DeviceInfo>& found) {
  std::string what;
  if (!path_exists(kSysfsDir)) {
    what = fmt::format("this kernel has no RDMA support ({} does not exist", kSysfsDir);
    if (list.error() != 0) what += fmt::format("; {}", errno_message("ibv_get_device_list", list.error()));
    what += ")";
  } else if (list.devices().empty()) {
    what = fmt::format("no RDMA device is present ({} is empty", kSysfsDir);
    if (list.error() != 0) what += fmt::format("; {}", errno_message("ibv_get_device_list", list.error()));
    what += ")";
  } else {
    what = "found:";
    for (const DeviceInfo& d : found) {
      what += fmt::format(" {} port {} ({}{}{});", d.name, d.port, d.port_state, d.transport.empty() ? "" : ", ",
                          d.transport);
    }
    what.pop_back();
  }
  return fmt::format(
      "no usable RDMA device {}: {}. To get one: create a software device with "
      "`rdma link add rxe0 type rxe netdev <if>` (SoftRoCE) or `rdma link add siw0 type siw netdev <if>` "
      "(soft-iWARP), which needs a kernel with the rdma_rxe or siw module; or run inside the micro-VM: "
      "`ci/vm/run --device rxe -- <cmd>` (or --device siw); or use the simulated fabric: `--backend sim`",
      looked_for, what);
}

}  // namespace twinfab::verbs
