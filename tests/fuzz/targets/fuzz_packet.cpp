// libFuzzer target: the MPI wire packet parser (mpi/channels/packet.hpp, parse_packet),
// which reads every packet an RC connection receives. Contract: nothing for a packet
// shorter than its header, else the header and a payload inside the packet.
#include <cstddef>
#include <cstdint>
#include <span>

#include "mpi/channels/packet.hpp"

using namespace twinfab::mpi;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  const auto packet = parse_packet(bytes);
  if (size < kMinPacketBytes) {
    if (packet) __builtin_trap();
    return 0;
  }
  const bool compact = static_cast<PacketType>(data[0]) == PacketType::EagerWhole;
  if (!compact && size < kPacketHeaderBytes) {
    if (packet) __builtin_trap();
    return 0;
  }
  if (!packet) __builtin_trap();
  const std::size_t header_bytes = compact ? kCompactHeaderBytes : kPacketHeaderBytes;
  if (packet->payload.data() != bytes.data() + header_bytes || packet->payload.size() != size - header_bytes)
    __builtin_trap();
  if (compact && (packet->header.type != PacketType::Eager || packet->header.total_bytes != packet->payload.size()))
    __builtin_trap();
  // Every payload byte is readable (AddressSanitizer checks the span's bounds).
  unsigned sum = 0;
  for (std::byte b : packet->payload) sum += static_cast<unsigned>(b);
  (void)to_string(packet->header.type);
  return static_cast<int>(sum & 0);
}
