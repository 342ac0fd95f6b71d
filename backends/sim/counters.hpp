// What the simulated fabric counts, for researchers and for tests.
//
// Each simulated HCA (host) keeps its own Counters (Simulation::hca_counters); the
// simulation's total (Simulation::counters) is their sum. Which HCA counts an event:
//
//   sending HCA (puts the packets on the wire; for an RDMA read's or atomic's
//   response, the responder's):    messages, packets, wire_bytes, retransmissions
//   receiving HCA (where the data lands or was addressed to; for a read's response
//   data, the requester's):        bytes, packets_dropped, messages_dropped, rnr_naks
//   the HCA whose cache it is:     icm_hits, icm_misses (sender and receiver each touch
//                                  their own QP context)
//   the HCA of the device that registered or created:  registrations,
//                                  registered_bytes, the modelled memory
//
// Losses are counted by the HCA the lost packets were addressed to (the loss model's
// per-host probability is that host's too), retransmissions by the one that resends.
#pragma once

#include <cstdint>
#include <string>

namespace twinfab::sim {

struct Counters {
  uint64_t messages = 0;         ///< work requests that went on the wire (incl. responses)
  uint64_t packets = 0;          ///< MTU packets, retransmissions included
  uint64_t bytes = 0;            ///< payload bytes delivered
  uint64_t wire_bytes = 0;       ///< bytes on the wire, headers and retransmissions included
  uint64_t packets_dropped = 0;  ///< packets lost to the loss model
  uint64_t messages_dropped = 0; ///< UD/UC messages lost (loss, or no receive posted)
  uint64_t retransmissions = 0;  ///< RC packets sent again after an ack timeout
  uint64_t rnr_naks = 0;         ///< RC receiver-not-ready events
  uint64_t icm_hits = 0;
  uint64_t icm_misses = 0;
  uint64_t registrations = 0;
  uint64_t registered_bytes = 0;  ///< currently pinned
  /// CPU time the host's ranks spent in the MPI library's modelled work, in ns
  /// (Runtime::charge_cpu: per-packet overheads and the library's copies; the platform's
  /// host.mpi_*_overhead and memcpy_bandwidth). Beside the run's time it is the split
  /// between host software and the network (docs/model.md, "Host software").
  uint64_t host_software_ns = 0;
  // Modelled memory (what a real process would use), by seed 004's categories.
  uint64_t qp_context_bytes = 0;           ///< HCA-side QP contexts (ICM in host memory)
  uint64_t communication_buffer_bytes = 0; ///< per-connection library buffers (by transport)
  uint64_t data_structure_bytes = 0;       ///< registered-memory bookkeeping and such

  /// Adds every counter of `other` (totals over HCAs).
  Counters& operator+=(const Counters& other);
  bool operator==(const Counters&) const = default;

  /// One "key value" line per counter, stable order (for golden outputs).
  std::string to_text() const;
  /// A JSON object, one key per counter, in to_text's order and with its names.
  std::string to_json() const;
};

}  // namespace twinfab::sim
