#include "mpi/channels/ud_wire.hpp"

#include <cstring>

namespace twinfab::mpi {

std::string_view to_string(UdKind kind) noexcept {
  switch (kind) {
    case UdKind::Data: return "data";
    case UdKind::Ack: return "ack";
    case UdKind::Nack: return "nack";
    case UdKind::Stop: return "stop";
    case UdKind::Probe: return "probe";
    case UdKind::Wake: return "wake";
  }
  return "?";
}

std::string_view to_string(UdParse result) noexcept {
  switch (result) {
    case UdParse::Ok: return "ok";
    case UdParse::Short: return "too short";
    case UdParse::BadMagic: return "not a twinfab UD datagram";
    case UdParse::BadKind: return "unknown kind";
    case UdParse::BadSource: return "sender rank outside the job";
    case UdParse::BadLength: return "bad length";
    case UdParse::BadPacket: return "unknown packet type";
  }
  return "?";
}

UdParse parse_ud_datagram(std::span<const std::byte> bytes, int job_size, std::size_t max_payload,
                          UdDatagram& out) noexcept {
  if (bytes.size() < kUdHeaderBytes) return UdParse::Short;
  std::memcpy(&out.header, bytes.data(), kUdHeaderBytes);
  if (out.header.magic != kUdMagic) return UdParse::BadMagic;
  if (out.header.source < 0 || out.header.source >= job_size) return UdParse::BadSource;
  switch (out.header.kind) {
    case UdKind::Ack:
    case UdKind::Nack:
    case UdKind::Stop:
    case UdKind::Probe:
    case UdKind::Wake:
      return bytes.size() == kUdHeaderBytes ? UdParse::Ok : UdParse::BadLength;
    case UdKind::Data:
      break;
    default:
      return UdParse::BadKind;
  }
  if (bytes.size() < kUdHeaderBytes + kPacketHeaderBytes) return UdParse::Short;
  const std::size_t payload = bytes.size() - kUdHeaderBytes - kPacketHeaderBytes;
  if (payload > max_payload) return UdParse::BadLength;
  std::memcpy(&out.packet, bytes.data() + kUdHeaderBytes, kPacketHeaderBytes);
  // The protocols take these types from a channel; anything else (Bye, CreditUpdate and
  // the compact EagerWhole belong to the RC channel) is not a packet of this one.
  switch (out.packet.type) {
    case PacketType::Eager:
    case PacketType::EagerData:
    case PacketType::Rts:
    case PacketType::Cts:
    case PacketType::Fin:
    case PacketType::SyncAck:
    case PacketType::Switch:  // a hybrid channel's (hybrid_channel.hpp)
      break;
    default:
      return UdParse::BadPacket;
  }
  out.payload = bytes.subspan(kUdHeaderBytes + kPacketHeaderBytes);
  return UdParse::Ok;
}

}  // namespace twinfab::mpi
