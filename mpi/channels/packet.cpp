#include "mpi/channels/packet.hpp"

#include <cstring>

namespace twinfab::mpi {

std::string_view to_string(PacketType type) noexcept {
  switch (type) {
    case PacketType::CreditUpdate: return "CreditUpdate";
    case PacketType::Eager: return "Eager";
    case PacketType::EagerData: return "EagerData";
    case PacketType::Rts: return "Rts";
    case PacketType::Cts: return "Cts";
    case PacketType::Fin: return "Fin";
    case PacketType::SyncAck: return "SyncAck";
    case PacketType::Bye: return "Bye";
    case PacketType::EagerWhole: return "EagerWhole";
    case PacketType::Switch: return "Switch";
    case PacketType::FastPathOffer: return "FastPathOffer";
    case PacketType::FastPathCredit: return "FastPathCredit";
  }
  return "?";
}

std::optional<ParsedPacket> parse_packet(std::span<const std::byte> bytes) noexcept {
  if (bytes.size() < kMinPacketBytes) return std::nullopt;
  ParsedPacket packet;
  std::size_t header_bytes = kPacketHeaderBytes;
  if (static_cast<PacketType>(bytes[0]) == PacketType::EagerWhole) {
    CompactHeader compact;
    std::memcpy(&compact, bytes.data(), sizeof compact);
    header_bytes = kCompactHeaderBytes;
    packet.header.type = PacketType::Eager;
    packet.header.credits = compact.credits;
    packet.header.context_id = compact.context_id;
    packet.header.source = compact.source;
    packet.header.tag = compact.tag;
    packet.header.total_bytes = bytes.size() - kCompactHeaderBytes;
  } else {
    if (bytes.size() < kPacketHeaderBytes) return std::nullopt;
    std::memcpy(&packet.header, bytes.data(), sizeof packet.header);
  }
  packet.payload = bytes.subspan(header_bytes);
  return packet;
}

}  // namespace twinfab::mpi
