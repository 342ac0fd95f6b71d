// What crosses the simulated wire: one SimGrid communication per work request (not per
// packet), so the simulator's cost per message does not grow with its size.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/sim/qp_ref.hpp"
#include "fabric/types.hpp"

namespace twinfab::sim {

class SimDevice;
class SimRuntime;

/// Where a packet goes: a device context, its id (the pointers are valid while
/// SimFabric::device_alive(id)) and its rank's runtime, which takes the arrival. Kept
/// by the sender, so that the destination's own objects stay untouched until the
/// packet is processed.
struct Destination {
  SimDevice* device = nullptr;
  uint32_t id = UINT32_MAX;
  SimRuntime* runtime = nullptr;
};

enum class WireKind : uint8_t {
  Send,            ///< SEND / SEND_WITH_IMM
  Write,           ///< RDMA WRITE / WRITE_WITH_IMM
  ReadRequest,     ///< RDMA READ request (header only)
  AtomicRequest,   ///< CAS / FAA request
  ReadResponse,    ///< data back to the requester
  AtomicResponse,  ///< old value back to the requester
  Ack,             ///< RC ack/nak, sent as a message only when the requester is blocked on it
};

struct WireMessage {
  WireKind kind = WireKind::Send;
  fabric::Opcode opcode = fabric::Opcode::Send;
  fabric::Transport transport = fabric::Transport::RC;
  bool has_imm = false;
  bool icm_charged = false;  ///< target-side ICM miss penalty already applied
  bool received = false;     ///< the responder's HCA took it in (SimHca::book_ingress, book_receive)
  /// A small packet's serialisation at the receiver's port, spent there in order of
  /// arrival (wire.hpp); 0 for a larger one, whose port SimGrid's solver shared.
  double ingress_seconds = 0;
  uint32_t imm = 0;
  uint32_t src_host = 0;
  uint32_t src_qpn = 0;
  uint32_t dst_host = 0;
  uint32_t dst_qpn = 0;
  uint32_t qkey = 0;       ///< UD
  uint32_t length = 0;     ///< payload bytes
  uint32_t rnr_attempts = 0;
  uint64_t psn = 0;        ///< per-QP sequence, for in-order processing on RC/UC
  uint64_t sq_seq = 0;     ///< requester's send-queue entry
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;
  uint64_t compare_add = 0;
  uint64_t swap = 0;
  uint64_t result = 0;     ///< atomic old value
  fabric::WcStatus status = fabric::WcStatus::Success;  ///< Ack / responses
  double extra_delay = 0;  ///< processing at the target waits this long after arrival
  uint64_t wire_bytes = 0; ///< a large packet held at its sender (Wire::carry): its size on the wire
  uint32_t window = 0;     ///< and its route's transmit window (Route::window)
                           ///< (small packets: added to their arrival date, wire.cpp)
  double posted_at = 0;
  SimDevice* from = nullptr;            ///< requester's device context, valid while from_id is alive
  uint32_t from_id = UINT32_MAX;        ///< SimFabric::device_alive (UINT32_MAX: none)
  QpRef src_qp;                         ///< the requester's QP (src_qpn)
  QpRef dst_qp;                         ///< the QP it goes to (dst_qpn), set when it is sent
  uint32_t to_id = UINT32_MAX;          ///< the destination context's id (set by SimFabric::send)
  SimRuntime* to_runtime = nullptr;     ///< its runtime, valid while to_id is alive
  std::vector<fabric::Sge> source;      ///< payload in the sender's memory (shared address space)
  std::vector<fabric::Sge> local;       ///< requester's SGEs for read/atomic results
  std::vector<std::byte> data;          ///< inline payload or read response snapshot
  WireMessage* next_held = nullptr;     ///< intrusive list of out-of-order arrivals
};

}  // namespace twinfab::sim
