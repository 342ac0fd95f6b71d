// Internal: an opened RDMA device port (ibv_context + protection domain) and the
// factory of every other verbs object.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "backends/verbs/host_runtime.hpp"
#include "backends/verbs/verbs_async_events.hpp"
#include "backends/verbs/verbs_address.hpp"
#include "fabric/device.hpp"

namespace twinfab::verbs {

class VerbsDevice final : public fabric::Device {
 public:
  /// Opens `device` and uses `port`. `gid_index` < 0 picks the default GID (see
  /// default_gid_index); `iwarp_ipv4` (dotted quad, may be empty) is the address
  /// rdma_cm binds to on iWARP, `connection_rank` decides connection roles there
  /// (OpenOptions::connection_rank); `yield_when_idle` makes the runtime's waits yield
  /// the CPU at once, `blocking_wait` makes its long waits for completions sleep
  /// until one comes (HostRuntime). Throws fabric::Error.
  VerbsDevice(ibv_device* device, uint8_t port, int gid_index, const std::string& iwarp_ipv4, uint32_t connection_rank,
              bool yield_when_idle = false, bool blocking_wait = false);
  ~VerbsDevice() override;
  VerbsDevice(const VerbsDevice&) = delete;
  VerbsDevice& operator=(const VerbsDevice&) = delete;

  const fabric::DeviceCapabilities& capabilities() const noexcept override { return caps_; }
  fabric::Runtime& runtime() noexcept override { return runtime_; }

  std::unique_ptr<fabric::MemoryRegion> register_memory(void* addr, size_t length, fabric::Access access) override;
  std::unique_ptr<fabric::CompletionQueue> create_cq(uint32_t capacity) override;
  std::unique_ptr<fabric::SharedReceiveQueue> create_srq(uint32_t capacity, uint32_t max_sge) override;
  std::unique_ptr<fabric::QueuePair> create_qp(const fabric::QpConfig& config) override;
  std::unique_ptr<fabric::AddressHandle> create_address_handle(const fabric::Address& remote_ud_qp) override;
  fabric::SharedMemory* shared_memory() override;

  // For the objects this device makes.
  ibv_context* context() const noexcept { return context_; }
  ibv_pd* pd() const noexcept { return pd_; }
  uint8_t port() const noexcept { return port_; }
  const ibv_device_attr& device_attr() const noexcept { return device_attr_; }
  ibv_mtu active_mtu() const noexcept { return port_attr_.active_mtu; }
  uint16_t lid() const noexcept { return port_attr_.lid; }
  const ibv_gid& gid() const noexcept { return gid_; }
  uint8_t gid_index() const noexcept { return static_cast<uint8_t>(gid_index_); }
  /// iWARP: the IPv4 address (network order) rdma_cm listens and connects on.
  uint32_t iwarp_ipv4() const noexcept { return iwarp_ipv4_; }
  uint32_t connection_rank() const noexcept { return connection_rank_; }
  /// Address vector toward `remote` (LID/GID) from this device's port and GID.
  ibv_ah_attr address_vector(const RoutedEndpoint& remote) const noexcept;

 private:
  /// One ibv_ah per remote port, shared by every handle toward it.
  std::shared_ptr<ibv_ah> cached_ah(const RoutedEndpoint& remote);

  ibv_context* context_ = nullptr;
  ibv_pd* pd_ = nullptr;
  uint8_t port_ = 1;
  int gid_index_ = 0;
  ibv_gid gid_{};
  uint32_t iwarp_ipv4_ = 0;
  uint32_t connection_rank_ = 0;
  ibv_device_attr device_attr_{};
  ibv_port_attr port_attr_{};
  fabric::DeviceCapabilities caps_;
  std::unique_ptr<AsyncEvents> events_;  // made once the context is open
  HostRuntime runtime_;
  std::unique_ptr<fabric::SharedMemory> shared_memory_;  ///< made on first use

  std::mutex ah_mutex_;
  // Key: remote LID and GID bytes.
  std::map<std::pair<uint16_t, std::string>, std::shared_ptr<ibv_ah>> ah_cache_;
};

}  // namespace twinfab::verbs
