// twinfab MPI channels: the wire format of the UD channel's datagrams, and its parser.
//
// Every datagram of the UD channel (ud_channel.hpp) starts with a 16-byte UdHeader:
//
//   Data  UdHeader, PacketHeader (packet.hpp), payload: one MPI packet, sequenced
//   Ack   UdHeader alone: "I have every packet of yours below `ack`" (flags: the
//         answer to a Probe; or "my receives ran out, send the rest again")
//   Nack  UdHeader alone: the same, and "packet `seq` is missing: send it again"
//   Probe UdHeader alone: "answer with your ACK now" (a tail-loss probe, below)
//   Stop  UdHeader alone, to this rank itself: ends the shutdown agent or the
//         reliability agent (ud_channel.cpp)
//   Wake  UdHeader alone, to this rank itself: the reliability agent took packets the
//         rank may be waiting for; the datagram's arrival ends that wait
//
// Every datagram also carries `ack`, the receiver-side state of its sender for the
// destination (acknowledgements ride on data: seed 004 §4.1, "ACKs piggy-backed").
// UD delivers whatever reaches the queue pair, so nothing in a datagram is trusted:
// parse_ud_datagram checks the magic, the kind, the sender's rank, the lengths, and
// reports what it found; the channel counts and drops anything that is not Ok. The
// parser is pure (no state, no device) so that it can be fuzzed (tests/fuzz).
//
// Both ends run the same build on the same kind of machine, so host byte order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "mpi/channels/packet.hpp"

namespace twinfab::mpi {

enum class UdKind : std::uint8_t { Data = 1, Ack = 2, Nack = 3, Stop = 4, Probe = 5, Wake = 6 };
std::string_view to_string(UdKind kind) noexcept;

/// UdHeader::flags
inline constexpr std::uint8_t kUdFlagAckRequest = 1u << 0;  ///< Data: acknowledge at once (the sender's window fills)
inline constexpr std::uint8_t kUdFlagProbeReply = 1u << 1;  ///< Ack: the answer to a Probe
/// Ack: the receiver found every receive it had posted taken, so what the peer sent
/// after `ack` may have found none and been dropped: send it again (UD's stand-in
/// for RC's receiver-not-ready NAK; ud_channel.hpp).
inline constexpr std::uint8_t kUdFlagOverrun = 1u << 2;

/// Identifies the channel's datagrams ("tU"): a datagram from anything else is dropped.
inline constexpr std::uint16_t kUdMagic = 0x5574;

struct UdHeader {
  std::uint16_t magic = kUdMagic;
  UdKind kind = UdKind::Data;
  std::uint8_t flags = 0;
  std::int32_t source = 0;  ///< the sender's world rank
  std::uint32_t seq = 0;    ///< Data: this packet's sequence number; Nack: the one missing
  std::uint32_t ack = 0;    ///< every packet from the destination below this one arrived
};
static_assert(sizeof(UdHeader) == 16, "the header is part of the wire format");
inline constexpr std::uint32_t kUdHeaderBytes = sizeof(UdHeader);

/// What parse_ud_datagram found.
enum class UdParse : std::uint8_t {
  Ok,
  Short,        ///< shorter than a UdHeader (or, for Data, than both headers)
  BadMagic,     ///< not one of ours
  BadKind,      ///< an unknown kind
  BadSource,    ///< a sender rank outside the job
  BadLength,    ///< a control datagram with trailing bytes, or data longer than allowed
  BadPacket,    ///< Data whose PacketHeader has an unknown type
};
std::string_view to_string(UdParse result) noexcept;

struct UdDatagram {
  UdHeader header{};
  PacketHeader packet{};                ///< Data only
  std::span<const std::byte> payload;   ///< Data only: the bytes after the PacketHeader
};

/// Parses `bytes` (a datagram without its GRH) from a job of `job_size` ranks whose
/// data datagrams carry at most `max_payload` bytes of payload. Never reads outside
/// `bytes`; on anything but Ok, `out` is unspecified.
UdParse parse_ud_datagram(std::span<const std::byte> bytes, int job_size, std::size_t max_payload,
                          UdDatagram& out) noexcept;

/// Sequence-number order with wrap-around (RFC 1982 serial arithmetic on 32 bits):
/// whether `a` comes before `b`.
constexpr bool seq_before(std::uint32_t a, std::uint32_t b) noexcept {
  return static_cast<std::int32_t>(a - b) < 0;
}

}  // namespace twinfab::mpi
