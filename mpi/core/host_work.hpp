// twinfab MPI core: the library's own CPU work, charged to the rank where the host is
// modelled.
//
// On hardware the library's work (the call, the request, matching, its copies) takes
// real time and nothing is charged. In the simulator it would cost nothing: an MPI
// message then took exactly the verbs latency, 1.5-2 us below what the seeds measured
// for MPI on the same hardware (issue 33). The device says what each piece costs
// (fabric::HostCosts, the platform's [host] keys) and the library tells the runtime
// when it did one (Runtime::charge_cpu: never blocks, so it is safe anywhere, in the
// middle of a channel's progress too). Who charges what (docs/model.md, "Host software"):
//  - the pt2pt engine: one send overhead per packet it sends, one receive overhead per
//    packet it handles, and the copies it makes itself (an unexpected message into the
//    receive buffer, messages to self, packing for a rendezvous);
//  - a channel: the copies of payloads into and out of its packet buffers (the shared
//    memory channel charges through fabric::SharedMemory instead), and the receive
//    queue's overhead per packet that came through one (RC's receive buffers or SRQ,
//    UD), which a packet polled from an RDMA fast-path ring does not pay.
#pragma once

#include <cstddef>

#include "fabric/device.hpp"
#include "fabric/runtime.hpp"

namespace twinfab::mpi {

class HostWork {
 public:
  HostWork(fabric::Runtime& runtime, const fabric::HostCosts& costs) noexcept
      : runtime_(runtime), costs_(costs), modelled_(costs.modelled()) {}
  explicit HostWork(fabric::Device& device) noexcept : HostWork(device.runtime(), device.host_costs()) {}

  /// The library sent one packet (eager data or a control message).
  void packet_sent() const {
    if (modelled_) runtime_.charge_cpu(costs_.send_overhead);
  }
  /// The library handled one packet that arrived.
  void packet_received() const {
    if (modelled_) runtime_.charge_cpu(costs_.receive_overhead);
  }
  /// The library took one packet from a receive queue (a completion polled, a buffer
  /// to re-post), on top of packet_received().
  void packet_from_queue() const {
    // Zero on most presets: no virtual call per received packet for nothing.
    if (modelled_ && costs_.receive_queue_overhead > 0) runtime_.charge_cpu(costs_.receive_queue_overhead);
  }
  /// The library copied `bytes` (a packet's payload, a staged or unexpected message).
  void copied(std::size_t bytes) const {
    if (modelled_ && bytes > 0) runtime_.charge_cpu(costs_.copy_seconds(bytes));
  }

 private:
  fabric::Runtime& runtime_;
  const fabric::HostCosts& costs_;
  const bool modelled_;
};

}  // namespace twinfab::mpi
