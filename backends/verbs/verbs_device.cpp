#include "backends/verbs/verbs_device.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "backends/verbs/verbs_address_handle.hpp"
#include "backends/verbs/verbs_cm_connection.hpp"
#include "backends/verbs/verbs_completion_queue.hpp"
#include "backends/verbs/verbs_discovery.hpp"
#include "backends/verbs/verbs_errno.hpp"
#include "backends/verbs/host_shared_memory.hpp"
#include "backends/verbs/verbs_memory_region.hpp"
#include "backends/verbs/verbs_queue_pair.hpp"
#include "backends/verbs/verbs_shared_receive_queue.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::verbs {

using fabric::Error;
using fabric::LinkKind;
using fabric::Status;

namespace {

// Loopback and same-subnet traffic needs one hop; 64 lets RoCE v2 cross routers.
constexpr uint8_t kHopLimit = 64;

bool gid_is_zero(const ibv_gid& gid) {
  static constexpr ibv_gid kZero{};
  return std::memcmp(gid.raw, kZero.raw, sizeof gid.raw) == 0;
}

}  // namespace

VerbsDevice::VerbsDevice(ibv_device* device, uint8_t port, int gid_index, const std::string& iwarp_ipv4,
                         uint32_t connection_rank, bool yield_when_idle, bool blocking_wait)
    : port_(port), connection_rank_(connection_rank), runtime_(yield_when_idle, blocking_wait) {
  const std::string name = ibv_get_device_name(device);
  context_ = ibv_open_device(device);
  if (context_ == nullptr) {
    throw_errno(fmt::format("ibv_open_device({})", name), errno,
                "check the permissions of /dev/infiniband/uverbs* (or run as root)");
  }
  // The constructor may throw from here on; the destructor does not run then.
  try {
    if (int rc = ibv_query_device(context_, &device_attr_); rc != 0) throw_errno("ibv_query_device", rc);
    if (int rc = ibv_query_port(context_, port_, &port_attr_); rc != 0) {
      throw_errno(fmt::format("ibv_query_port({}, {})", name, port_), rc);
    }
    if (port_attr_.state != IBV_PORT_ACTIVE) {
      throw Error(Status::NotFound,
                  fmt::format("{} port {} is {}, not ACTIVE: bring its network interface up (`ip link set <if> up`)",
                              name, port_, ibv_port_state_str(port_attr_.state)));
    }
    pd_ = ibv_alloc_pd(context_);
    if (pd_ == nullptr) throw_errno("ibv_alloc_pd", errno);
    events_ = std::make_unique<AsyncEvents>(context_, name);
    caps_ = make_capabilities(context_, pd_, device_attr_, port_attr_);

    if (caps_.link == LinkKind::IWarp) {
      gid_index_ = 0;
      iwarp_ipv4_ = find_iwarp_ipv4(name, iwarp_ipv4);
    } else {
      gid_index_ = gid_index >= 0 ? gid_index : default_gid_index(context_, port_, port_attr_);
      if (gid_index_ < 0 || gid_index_ >= port_attr_.gid_tbl_len || gid_index_ > 255) {
        throw Error(Status::InvalidArgument,
                    fmt::format("GID index {} is not valid on {} port {} (its table has {} entries); set "
                                "TWINFAB_GID_INDEX or OpenOptions::gid_index (see `ibv_devinfo -v`)",
                                gid_index_, name, port_, port_attr_.gid_tbl_len));
      }
      if (int rc = ibv_query_gid(context_, port_, gid_index_, &gid_); rc != 0) {
        throw_errno(fmt::format("ibv_query_gid({}, port {}, index {})", name, port_, gid_index_), errno);
      }
      if (caps_.link == LinkKind::RoCE && gid_is_zero(gid_)) {
        throw Error(Status::InvalidArgument,
                    fmt::format("GID index {} of {} port {} is empty: RoCE needs a GID, give the network interface "
                                "an IP address or choose another index (`ibv_devinfo -v`)",
                                gid_index_, name, port_));
      }
    }
  } catch (...) {
    if (pd_ != nullptr) ibv_dealloc_pd(pd_);
    ibv_close_device(context_);
    throw;
  }
  fabric::log().debug("verbs: opened {} port {} ({}, GID index {}, MTU {})", name, port_, fabric::to_string(caps_.link),
                      gid_index_, caps_.mtu);
}

VerbsDevice::~VerbsDevice() {
  ah_cache_.clear();
  if (int rc = ibv_dealloc_pd(pd_); rc != 0) {
    fabric::log().warn("verbs: {} (objects of this device still exist?)", errno_message("ibv_dealloc_pd", rc));
  }
  ibv_close_device(context_);
}

std::unique_ptr<fabric::MemoryRegion> VerbsDevice::register_memory(void* addr, size_t length, fabric::Access access) {
  return VerbsMemoryRegion::create(pd_, addr, length, access, caps_.max_mr_size);
}

std::unique_ptr<fabric::CompletionQueue> VerbsDevice::create_cq(uint32_t capacity) {
  // Every CQ gets a completion channel (one file descriptor): Runtime::wait_for_event
  // may sleep on any CQ, and so may wait_for_completion() with blocking waits.
  return std::make_unique<VerbsCompletionQueue>(context_, *events_, capacity, caps_.max_cqe, /*with_channel=*/true);
}

std::unique_ptr<fabric::SharedReceiveQueue> VerbsDevice::create_srq(uint32_t capacity, uint32_t max_sge) {
  if (!caps_.srq) {
    throw Error(Status::Unsupported,
                fmt::format("{} has no shared receive queues (capabilities().srq is false)", caps_.device_name));
  }
  return std::make_unique<VerbsSharedReceiveQueue>(pd_, capacity, max_sge, device_attr_);
}

std::unique_ptr<fabric::QueuePair> VerbsDevice::create_qp(const fabric::QpConfig& config) {
  fabric::check_qp_config(config);
  return std::make_unique<VerbsQueuePair>(*this, config);
}

ibv_ah_attr VerbsDevice::address_vector(const RoutedEndpoint& remote) const noexcept {
  ibv_ah_attr av{};
  av.dlid = remote.lid;
  av.sl = 0;
  av.src_path_bits = 0;
  av.port_num = port_;
  // RoCE has no LIDs: every packet carries a GRH. On IB a LID route within the
  // subnet is enough.
  if (caps_.link == LinkKind::RoCE) {
    av.is_global = 1;
    av.grh.dgid = remote.gid;
    av.grh.sgid_index = static_cast<uint8_t>(gid_index_);
    av.grh.hop_limit = kHopLimit;
  }
  return av;
}

std::shared_ptr<ibv_ah> VerbsDevice::cached_ah(const RoutedEndpoint& remote) {
  auto key = std::make_pair(remote.lid, std::string(reinterpret_cast<const char*>(remote.gid.raw), sizeof remote.gid.raw));
  std::lock_guard lock(ah_mutex_);
  if (auto it = ah_cache_.find(key); it != ah_cache_.end()) return it->second;
  ibv_ah_attr av = address_vector(remote);
  ibv_ah* ah = ibv_create_ah(pd_, &av);
  if (ah == nullptr) {
    throw_errno(fmt::format("ibv_create_ah(LID {}, GID index {})", remote.lid, gid_index_), errno,
                "the remote address is not reachable from this port");
  }
  std::shared_ptr<ibv_ah> shared(ah, [](ibv_ah* a) { ibv_destroy_ah(a); });
  ah_cache_.emplace(std::move(key), shared);
  return shared;
}

fabric::SharedMemory* VerbsDevice::shared_memory() {
  if (!shared_memory_) shared_memory_ = std::make_unique<HostSharedMemory>();
  return shared_memory_.get();
}

std::unique_ptr<fabric::AddressHandle> VerbsDevice::create_address_handle(const fabric::Address& remote_ud_qp) {
  if (!caps_.ud) {
    throw Error(Status::Unsupported,
                fmt::format("{} has no UD transport (capabilities().ud is false; {} devices are connected-only)",
                            caps_.device_name, fabric::to_string(caps_.link)));
  }
  RoutedEndpoint remote;
  std::string why;
  if (decode_address(remote_ud_qp, fabric::Transport::UD, caps_.link, remote, why) != Status::Ok) {
    throw Error(Status::InvalidArgument, "create_address_handle: " + why);
  }
  return std::make_unique<VerbsAddressHandle>(cached_ah(remote), remote.qp_num, remote.qkey);
}

}  // namespace twinfab::verbs
