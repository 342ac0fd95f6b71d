// twinfab MPI pt2pt: which protocol carries a message (seed 002 §3.1, seed 000 §III.H.1),
// chosen from the configuration and what the channel offers (channel.hpp).
//
//   tiny        bytes <= tiny threshold and fits one packet: header + data in one packet
//   short       bytes <= eager threshold: header + data copied into consecutive packets
//               (segmented at the channel's max_payload)
//   rendezvous  above: RTS, then the data moves by RDMA straight between user buffers
//               (or registered staging copies for non-contiguous types)
//
// Empty messages are always tiny. A channel that offers no RDMA (a datagram or
// shared-memory channel) has no rendezvous: every message above the tiny threshold
// goes as a segmented eager message, however long. Synchronous sends use the same
// choice: an eager synchronous send is answered by a SyncAck once matched, and a
// rendezvous can only finish after the match anyway. Pure functions of the
// configuration and the channel's capabilities (never of device or channel names).
#pragma once

#include <algorithm>
#include <cstdint>

#include "mpi/channels/channel.hpp"
#include "mpi/core/config.hpp"

namespace twinfab::mpi {

enum class Protocol : std::uint8_t { Tiny, Short, Rendezvous };

inline Protocol choose_protocol(std::uint64_t bytes, const Config& config, const ChannelCapabilities& channel) {
  const std::uint64_t payload = channel.max_payload;
  const std::uint64_t tiny = config.tiny_threshold == 0 ? payload : std::min(config.tiny_threshold, payload);
  if (bytes == 0 || bytes <= tiny) return Protocol::Tiny;
  if (bytes <= config.eager_threshold || !channel.offers_rendezvous()) return Protocol::Short;
  return Protocol::Rendezvous;
}

/// The rendezvous variant actually used, on a channel that offers_rendezvous(): Auto
/// becomes write-imm when the channel has RDMA write with immediate, read otherwise;
/// an explicit write-imm without it degrades to write + FIN (the same data movement,
/// one more packet). A variant whose RDMA operation the channel lacks altogether
/// (read without RDMA read, a write variant without RDMA write) becomes the one it has.
inline RendezvousVariant resolve_variant(RendezvousVariant wanted, const ChannelCapabilities& channel) {
  const bool imm = channel.rdma_write && channel.rdma_write_with_imm;
  switch (wanted) {
    case RendezvousVariant::Auto:
      return imm ? RendezvousVariant::WriteImm
                 : channel.rdma_read ? RendezvousVariant::Read : RendezvousVariant::WriteFin;
    case RendezvousVariant::WriteImm:
      return imm ? RendezvousVariant::WriteImm
                 : channel.rdma_write ? RendezvousVariant::WriteFin : RendezvousVariant::Read;
    case RendezvousVariant::WriteFin:
      return channel.rdma_write ? RendezvousVariant::WriteFin : RendezvousVariant::Read;
    case RendezvousVariant::Read:
      return channel.rdma_read ? RendezvousVariant::Read : resolve_variant(RendezvousVariant::WriteImm, channel);
  }
  return wanted;
}

}  // namespace twinfab::mpi
