// twinfab fabric contract: an opened device (an RDMA context plus its protection
// domain) and the factory for every other fabric object.
//
// Set-up calls throw fabric::Error with a message that says what to do (device
// missing, capability absent, resource limits). Objects must be destroyed before the
// device that made them; QPs before their CQs and SRQ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "fabric/address.hpp"
#include "fabric/address_handle.hpp"
#include "fabric/capabilities.hpp"
#include "fabric/completion_queue.hpp"
#include "fabric/memory_region.hpp"
#include "fabric/queue_pair.hpp"
#include "fabric/runtime.hpp"
#include "fabric/shared_memory.hpp"
#include "fabric/shared_receive_queue.hpp"

namespace twinfab::fabric {

/// What the MPI library's own work costs on a modelled host, for Runtime::charge_cpu:
/// the simulator's platform keys `host.mpi_send_overhead`, `host.mpi_receive_overhead`
/// and `host.memcpy_bandwidth` (docs/platforms.md). All zero on hardware, where that
/// work takes its real time. Why a model at all: without it an MPI message cost only
/// the verbs latency in the simulator, 1.5-2 us below what the seeds measured for MPI
/// on the same hardware (issue 33; docs/model.md, "Host software").
struct HostCosts {
  double send_overhead = 0;     ///< s of CPU per packet the library sends (the call, request, header, protocol)
  double receive_overhead = 0;  ///< s of CPU per packet it receives (completion, matching, the request's end)
  /// s of CPU more per packet taken from a receive queue (polling the CQ, re-posting the
  /// buffer, an SRQ's bookkeeping) than from an RDMA fast-path ring, which is polled in
  /// place: what makes the seeds' send/receive paths slower than their fast paths.
  double receive_queue_overhead = 0;
  double copy_bandwidth = 0;    ///< bytes/s of the library's copies (eager buffers, pack/unpack); 0: not charged
  /// Whether anything is charged (the library then skips every charge).
  bool modelled() const noexcept {
    return send_overhead > 0 || receive_overhead > 0 || receive_queue_overhead > 0 || copy_bandwidth > 0;
  }
  /// The CPU time of copying `bytes` (0 when copies are not charged).
  double copy_seconds(std::size_t bytes) const noexcept {
    return copy_bandwidth > 0 ? static_cast<double>(bytes) / copy_bandwidth : 0.0;
  }
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceCapabilities& capabilities() const noexcept = 0;
  /// The runtime that waits for this device's completion queues.
  virtual Runtime& runtime() noexcept = 0;

  /// Registers [addr, addr+length). Throws Error(InvalidArgument) for a null or
  /// zero-length range, one that wraps the address space, or one above max_mr_size.
  virtual std::unique_ptr<MemoryRegion> register_memory(void* addr, size_t length, Access access) = 0;
  virtual std::unique_ptr<CompletionQueue> create_cq(uint32_t capacity) = 0;
  /// Throws Error(Unsupported) when capabilities().srq is false.
  virtual std::unique_ptr<SharedReceiveQueue> create_srq(uint32_t capacity, uint32_t max_sge) = 0;
  /// Throws Error(Unsupported) for a transport the device lacks.
  virtual std::unique_ptr<QueuePair> create_qp(const QpConfig& config) = 0;
  /// UD destination from a remote UD QP's blob; throws Error(InvalidArgument) for a
  /// blob of another backend or transport, or a truncated one.
  virtual std::unique_ptr<AddressHandle> create_address_handle(const Address& remote_ud_qp) = 0;
  /// This rank's access to the memory it shares with the other ranks of its host
  /// (fabric/shared_memory.hpp), made on first use and owned by the device; nullptr
  /// when the backend offers none (ranks of one host then talk through the device).
  virtual SharedMemory* shared_memory() { return nullptr; }
  /// What the library's own work costs on this device's host when the host is
  /// modelled (the simulator); all zero on hardware (the default).
  virtual const HostCosts& host_costs() const noexcept {
    static const HostCosts none;
    return none;
  }
};

}  // namespace twinfab::fabric
