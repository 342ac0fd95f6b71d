// twinfab MPI pt2pt: which protocol carries a message (seed 002 §3.1, seed 000 §III.H.1).
//
//   tiny        bytes <= tiny threshold and fits one packet: header + data in one packet
//   short       bytes <= eager threshold: header + data copied into consecutive packets
//   rendezvous  above: RTS, then the data moves by RDMA straight between user buffers
//               (or registered staging copies for non-contiguous types)
//
// Empty messages are always tiny. Synchronous sends use the same choice: an eager
// synchronous send is answered by a SyncAck once matched, and a rendezvous can only
// finish after the match anyway. Pure functions of the configuration and the device
// capabilities (never of device names).
#pragma once

#include <algorithm>
#include <cstdint>

#include "fabric/capabilities.hpp"
#include "mpi/core/config.hpp"

namespace twinfab::mpi {

enum class Protocol : std::uint8_t { Tiny, Short, Rendezvous };

inline Protocol choose_protocol(std::uint64_t bytes, const Config& config, std::uint64_t packet_payload) {
  const std::uint64_t tiny = config.tiny_threshold == 0 ? packet_payload
                                                        : std::min(config.tiny_threshold, packet_payload);
  if (bytes == 0 || bytes <= tiny) return Protocol::Tiny;
  if (bytes <= config.eager_threshold) return Protocol::Short;
  return Protocol::Rendezvous;
}

/// The rendezvous variant actually used: Auto becomes write-imm when the device has
/// RDMA write with immediate, read otherwise; an explicit write-imm on a device
/// without it degrades to write + FIN (the same data movement, one more packet).
inline RendezvousVariant resolve_variant(RendezvousVariant wanted, const fabric::DeviceCapabilities& caps) {
  switch (wanted) {
    case RendezvousVariant::Auto:
      return caps.write_with_imm ? RendezvousVariant::WriteImm : RendezvousVariant::Read;
    case RendezvousVariant::WriteImm:
      return caps.write_with_imm ? RendezvousVariant::WriteImm : RendezvousVariant::WriteFin;
    default:
      return wanted;
  }
}

}  // namespace twinfab::mpi
