// Internal: a device context opened by one actor (rank) on its host's simulated HCA.
//
// Packets reach a context through the wire (wire.hpp), which queues them on the owning
// actor's runtime at their arrival date whether or not the rank is waiting, as on a
// NIC. The owning actor processes arrivals whenever it is inside the runtime (wait,
// sleep, poll) — and in the simulator a rank spends simulated time only there — so the
// HCA keeps serving RDMA reads, writes and atomics while the rank "computes" through
// Runtime::sleep_for.
#pragma once

#include <simgrid/s4u.hpp>

#include <deque>
#include <memory>
#include <string>

#include "backends/sim/sim_fabric.hpp"
#include "backends/sim/sim_objects.hpp"
#include "fabric/device.hpp"

namespace twinfab::sim {

class SimRuntime;
class SimQueuePair;

class SimDevice final : public fabric::Device {
 public:
  SimDevice(SimFabric& fabric, uint32_t host);
  ~SimDevice() override;

  const fabric::DeviceCapabilities& capabilities() const noexcept override { return fabric_.capabilities(); }
  fabric::Runtime& runtime() noexcept override;
  std::unique_ptr<fabric::MemoryRegion> register_memory(void* addr, size_t length, fabric::Access access) override;
  std::unique_ptr<fabric::CompletionQueue> create_cq(uint32_t capacity) override;
  std::unique_ptr<fabric::SharedReceiveQueue> create_srq(uint32_t capacity, uint32_t max_sge) override;
  std::unique_ptr<fabric::QueuePair> create_qp(const fabric::QpConfig& config) override;
  std::unique_ptr<fabric::AddressHandle> create_address_handle(const fabric::Address& remote_ud_qp) override;
  fabric::SharedMemory* shared_memory() override;
  const fabric::HostCosts& host_costs() const noexcept override { return fabric_.host_costs(); }

  // --- internal ---
  SimFabric& fabric() noexcept { return fabric_; }
  SimHca& hca() noexcept { return hca_; }
  SimRuntime& sim_runtime() noexcept { return runtime_; }
  /// Never reused within the fabric (SimFabric::device_alive).
  uint32_t id() const noexcept { return id_; }
  /// "host H, context C", for messages.
  std::string name() const;
  /// A CQ or SRQ of this context is destroyed while QPs still hold it (the other
  /// argument is null): they let go of it, with a warning. Their completions are lost
  /// from then on and an SRQ's QPs find no receives, but nothing dangles.
  void detach_from_qps(const SimCompletionQueue* cq, const SimSharedReceiveQueue* srq);

  /// Times a work request of `qp` (CPU and HCA queueing, ICM, loss and retransmission)
  /// and puts it on the wire.
  void dispatch(SimQueuePair& qp, WireMessage* m);
  /// Sends `m` (`wire_bytes` on the wire) to the device context that owns its
  /// destination QP.
  void transmit(WireMessage* m, uint64_t wire_bytes, const Destination& destination);
  /// Handles a message that reached this context (or whose delay expired).
  void process_arrival(WireMessage* m);
  /// Finishes `seq` on the requester's QP at simulated time `when` (nothing if that QP
  /// is gone): through a timer of the requester's runtime, or through a small ack
  /// message when the requester is blocked waiting for it.
  void deliver_completion(QpRef requester_qp, uint64_t seq, fabric::WcStatus status, uint32_t byte_len,
                          double when);

  /// CPU time the rank spends posting: returns the extra delay a work request posted
  /// now suffers because the CPU is still busy with earlier posts, and books this one.
  double book_cpu(double now, double cost);

 private:
  void responder_send(SimQueuePair& qp, WireMessage* m);
  void responder_write(SimQueuePair& qp, WireMessage* m);
  void responder_read(SimQueuePair& qp, WireMessage* m);
  void responder_atomic(SimQueuePair& qp, WireMessage* m);
  void requester_response(WireMessage* m);
  void handle_in_order(SimQueuePair& qp, WireMessage* m);
  void handle_ud_in_order(SimQueuePair& qp, WireMessage* m);
  /// Returns false when the message had to wait (RNR) and will come back.
  bool execute(SimQueuePair& qp, WireMessage* m);
  /// No receive posted: RC retries after the RNR timer (sets rnr_pending_) or fails;
  /// UC/UD drop the message.
  bool wait_for_receive(SimQueuePair& qp, WireMessage* m);
  void nak(WireMessage* m, fabric::WcStatus status);
  void ack(WireMessage* m, uint32_t byte_len);
  SimMemoryRegion* check_remote(SimQueuePair& qp, WireMessage* m, uint64_t len, fabric::Access need);
  bool local_sges_ok(std::span<const fabric::Sge> sges) const;
  bool source_ok(const WireMessage& m) const;

  SimFabric& fabric_;
  SimHca& hca_;
  SimRuntime& runtime_;
  uint32_t id_;
  double cpu_free_at_ = 0;
  bool rnr_pending_ = false;
  std::unique_ptr<fabric::SharedMemory> shared_memory_;  ///< made on first use
};

}  // namespace twinfab::sim
