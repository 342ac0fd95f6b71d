// Internal: a simulated QP named by pointer and liveness id, for the wire and the timers.
#pragma once

#include <cstdint>

namespace twinfab::sim {

class SimQueuePair;

/// A QP as packets, ACKs and completion timers name it: its address, used only while
/// its id is alive (SimFabric::resolve). Ids are never reused, so a QP destroyed in
/// flight (its memory perhaps reused) is never mistaken for a live one. It replaces a
/// lookup by (host, QP number) in the HCA's table, which at thousands of ranks cost two
/// cache misses (the HCA and its table, both cold) on every packet, ACK and completion.
struct QpRef {
  SimQueuePair* qp = nullptr;
  uint32_t id = UINT32_MAX;  ///< SimFabric::qp_alive; UINT32_MAX: no QP
};

}  // namespace twinfab::sim
