// twinfab MPI channels: the slot format of the RC channel's RDMA fast path.
//
// The fast path (seed 003 sec. 3, seed 004 sec. 6: MVAPICH's "small message RDMA")
// sends an eager packet as one RDMA write into a ring of slots that the receiver set
// aside for that sender and polls, instead of as a send that consumes a posted
// receive: the receiver's HCA fetches no receive WQE and writes no completion, and the
// receiver reads the packet where it landed. rc_channel.hpp has the protocol (who
// offers a ring, credits, ordering); this file is the slot's layout and the receiver's
// test of whether a slot holds a whole packet, pure functions on bytes so that they
// can be tested with synthetic memory.
//
// A slot: [head 16 B][the packet, padded to 4 B][tail 4 B]. The sender writes all of it
// in one RDMA write. The head says the packet's length and its sequence number on the
// ring; the tail repeats the sequence number. Where RDMA writes land in order
// (capabilities().in_order_placement: InfiniBand, RoCE; not iWARP, whose DDP places
// segments as they come), a tail that holds the expected number means that the bytes
// before it have landed too, so the receiver needs no completion: it reads the head,
// then the tail at the offset the head gives. Old contents never pass for new ones:
// a slot's previous packet had a sequence number one ring earlier, and a fresh ring is
// zeroed while numbers start at 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace twinfab::mpi {

struct FastPathHead {
  std::uint32_t length = 0;          ///< bytes of the packet that follows
  std::uint32_t sequence = 0;        ///< 1, 2, ... per ring; 0 is never written
  std::uint32_t credits_back = 0;    ///< slots of the sender's own ring (for our packets) it freed
  std::uint32_t regular_before = 0;  ///< receive-consuming messages the sender had posted on the connection before
};
static_assert(sizeof(FastPathHead) == 16, "the head is part of the wire format");

inline constexpr std::uint32_t kFastPathHeadBytes = sizeof(FastPathHead);
inline constexpr std::uint32_t kFastPathTailBytes = 4;

/// Where a packet of `packet_length` bytes puts its tail in a slot.
constexpr std::uint32_t fast_path_tail_offset(std::uint32_t packet_length) noexcept {
  return kFastPathHeadBytes + ((packet_length + 3u) & ~3u);
}
/// The bytes an RDMA write of such a packet covers (head, padded packet, tail).
constexpr std::uint32_t fast_path_write_bytes(std::uint32_t packet_length) noexcept {
  return fast_path_tail_offset(packet_length) + kFastPathTailBytes;
}
/// A slot's size for packets of up to `packet_size` bytes, rounded up to a 64-byte
/// cache line so that each slot's head starts one.
constexpr std::uint32_t fast_path_slot_bytes(std::uint32_t packet_size) noexcept {
  return (fast_path_write_bytes(packet_size) + 63u) & ~63u;
}

/// Writes `head` and the tail around a packet already at `slot + kFastPathHeadBytes`
/// (the sender builds the whole slot image in a send buffer, then writes it).
void seal_fast_path_slot(std::byte* slot, const FastPathHead& head) noexcept;

enum class SlotState : std::uint8_t {
  Empty,      ///< no packet with the expected number has begun to land
  Landing,    ///< its head is there, not yet its tail
  Ready,      ///< the whole packet is there
  Malformed,  ///< the head has the expected number but a length beyond the slot
};

/// Looks at a slot of `slot_bytes` for the packet numbered `expected`. On Ready, `head`
/// is its head and the packet is at `slot + kFastPathHeadBytes`. Reads head and tail
/// with acquire loads (the device writes the memory while the receiver polls it).
SlotState inspect_fast_path_slot(const std::byte* slot, std::uint32_t slot_bytes, std::uint32_t expected,
                                 FastPathHead& head) noexcept;

}  // namespace twinfab::mpi
