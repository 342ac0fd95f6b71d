// twinfab MPI channels: the header every packet on an RC connection starts with.
//
// A packet is one pre-registered buffer (Config::packet_size bytes): this fixed
// 56-byte header, then payload. Everything a packet says travels in its payload,
// nothing in the immediate of a send, because some devices (iWARP) have no
// send-with-immediate; only the header-only control messages use an immediate, and
// only where the device has one (see "Control messages in an immediate" below).
// Both ends run the same build on the same kind of machine (simulated ranks share a
// process; hardware jobs are homogeneous), so the header is sent in host byte order.
//
// `credits` is on every packet: the receive buffers the sender of this packet has
// re-posted since it last said so (seed 000 §III.C, credits piggy-backed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace twinfab::mpi {

enum class PacketType : std::uint8_t {
  CreditUpdate = 1,  ///< only returns credits (one-way traffic, connection hello)
  Eager,             ///< first packet of an eager message: envelope + first data
  EagerData,         ///< continuation of the previous Eager on this connection
  Rts,               ///< rendezvous request to send: envelope, size, variant (+ addr/rkey for read)
  Cts,               ///< rendezvous clear to send: receiver's addr/rkey/length and token
  Fin,               ///< rendezvous finished (write-fin: to the receiver; read: to the sender)
  SyncAck,           ///< a synchronous-mode eager message was matched
  Bye,               ///< shutdown: the last packet on a connection; needs no credit
  EagerWhole,        ///< a whole non-synchronous eager message behind a CompactHeader
  Switch,            ///< hybrid channel: the last packet to this peer over UD, RC follows
  FastPathOffer,     ///< RC fast path: a ring for the peer's packets (remote_addr, rkey; total_bytes = slots)
  FastPathCredit,    ///< RC fast path: `token` slots of the peer's ring in this rank were freed
};
std::string_view to_string(PacketType type) noexcept;

/// Header flags.
inline constexpr std::uint8_t kFlagSync = 1u << 0;  ///< MPI_Ssend: answer with SyncAck when matched

struct PacketHeader {
  PacketType type = PacketType::CreditUpdate;
  std::uint8_t flags = 0;
  std::uint8_t variant = 0;  ///< RTS: RendezvousVariant the sender chose
  std::uint8_t reserved = 0;
  std::uint32_t credits = 0;
  std::uint32_t context_id = 0;
  std::int32_t source = 0;   ///< sender's rank in the communicator
  std::int32_t tag = 0;
  std::uint32_t token = 0;   ///< CTS/Fin-to-receiver: the receiver's rendezvous token (the immediate)
  std::uint64_t total_bytes = 0;     ///< Eager/RTS: packed message size; CTS: bytes the receiver takes
  std::uint64_t sender_request = 0;  ///< the sender's request id, echoed in CTS/Fin-to-sender/SyncAck
  std::uint64_t remote_addr = 0;     ///< RTS (read): sender's buffer; CTS: receiver's buffer
  std::uint32_t rkey = 0;
  std::uint32_t reserved2 = 0;
};
static_assert(sizeof(PacketHeader) == 56, "the header is part of the wire format");

inline constexpr std::uint32_t kPacketHeaderBytes = sizeof(PacketHeader);

/// The header of an EagerWhole packet: an Eager packet that carries its whole message
/// and asks for no answer (not synchronous) needs only the envelope, as the small
/// messages of MVAPICH2's and Open MPI's eager paths do. The channel sends such a
/// packet with this 16-byte header instead of the 56-byte one and the receiving
/// channel expands it again (type Eager, total_bytes = the payload's size), so the
/// protocols never see it. Why: it leaves more of the 64-byte inline limit (48 bytes
/// of payload instead of 8: built on the stack, no send buffer touched, no DMA read
/// of one on hardware) and of the 120-byte receive head slot (104 instead of 64:
/// no packet buffer touched) for payload, and 40 fewer bytes cross the wire (an
/// 8-byte message's packet is 24 bytes instead of 64). On rxe in the micro-VM the
/// packet size itself made no measurable difference to latency (ib_send_lat's
/// minimum at 8, 24 and 64 bytes: 11.5, 11.3 and 11.5 us).
struct CompactHeader {
  PacketType type = PacketType::EagerWhole;
  std::uint8_t reserved = 0;
  std::uint16_t credits = 0;  ///< as PacketHeader::credits (at most credits + 1 <= 4097)
  std::uint32_t context_id = 0;
  std::int32_t source = 0;
  std::int32_t tag = 0;
};
static_assert(sizeof(CompactHeader) == 16, "the compact header is part of the wire format");
inline constexpr std::uint32_t kCompactHeaderBytes = sizeof(CompactHeader);
/// The smallest packet: a compact header alone.
inline constexpr std::uint32_t kMinPacketBytes = kCompactHeaderBytes;

/// A received packet's header (a CompactHeader expanded: type Eager, total_bytes = the
/// payload's size) and its payload, a view into the packet's bytes.
struct ParsedPacket {
  PacketHeader header;
  std::span<const std::byte> payload;
};
/// Reads a packet as it arrived (`bytes`: the whole packet, contiguous). Nothing when
/// it is shorter than its header (kMinPacketBytes for an EagerWhole, else
/// kPacketHeaderBytes). Pure: reads `bytes` only; the header's fields are not judged
/// here (the protocols check what they use). Fuzzed by tests/fuzz/fuzz_packet.cpp.
std::optional<ParsedPacket> parse_packet(std::span<const std::byte> bytes) noexcept;

// Control messages in an immediate. Where the device has RDMA write with immediate,
// a CreditUpdate or Bye (a header and nothing else) goes as a zero-byte write with
// immediate instead of a packet: it consumes a receive and a credit like the packet
// would (so flow control is unchanged), but the device writes no receive buffer and
// reads no send buffer (memory per rank with thousands of simulated ranks: a
// connection that only receives credit updates never touches its receive memory).
// Immediates with the top bit set are these; the protocols' own immediates
// (rendezvous tokens) stay below it. Layout: 1 | type (7 bits) | credits (24 bits).
inline constexpr std::uint32_t kImmControl = 1u << 31;
inline constexpr std::uint32_t kImmMaxCredits = (1u << 24) - 1;
inline constexpr std::uint32_t encode_control_immediate(PacketType type, std::uint32_t credits) noexcept {
  return kImmControl | (static_cast<std::uint32_t>(type) << 24) | credits;
}
inline constexpr bool is_control_immediate(std::uint32_t imm) noexcept { return (imm & kImmControl) != 0; }
inline constexpr PacketType control_type(std::uint32_t imm) noexcept {
  return static_cast<PacketType>((imm >> 24) & 0x7fu);
}
inline constexpr std::uint32_t control_credits(std::uint32_t imm) noexcept { return imm & kImmMaxCredits; }

}  // namespace twinfab::mpi
