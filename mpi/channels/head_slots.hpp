// twinfab MPI channels: receive buffers posted as [head slot][buffer after its headroom].
//
// Why: a channel posts many receive buffers of a whole packet (RC: 8 KB, UD: an MTU),
// and each arriving packet, however small, would dirty a page of its buffer; with
// thousands of simulated ranks in one process that is most of a rank's memory. So
// each receive is two SGEs: a small head slot from a packed array of them, then the
// rest of the buffer after a headroom of the head slot's size. The device scatters a
// packet's first bytes into the head slot: a small packet lives there entirely and its
// buffer is never touched; a longer one gets its head copied into the headroom, which
// makes it contiguous in its buffer. The RC and UD channels post their receives so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fabric/types.hpp"

namespace twinfab::mpi {

/// The SGEs of one receive: the head slot at `head` (`head_bytes`), then the buffer at
/// `body` (`buffer_bytes`, its first `head_bytes` left as headroom). Without head slots
/// (`head_bytes` 0) the whole buffer as one SGE. Returns how many SGEs it filled.
inline std::size_t head_slot_sges(fabric::Sge (&sges)[2], std::uint64_t head, std::uint64_t body,
                                  std::uint32_t head_bytes, std::uint32_t buffer_bytes, std::uint32_t lkey) noexcept {
  if (head_bytes == 0) {
    sges[0] = fabric::Sge{body, buffer_bytes, lkey};
    return 1;
  }
  sges[0] = fabric::Sge{head, head_bytes, lkey};
  sges[1] = fabric::Sge{body + head_bytes, buffer_bytes - head_bytes, lkey};
  return 2;
}

/// Where the `byte_len` bytes a receive posted by head_slot_sges got lie contiguous:
/// its head slot when they fit it, else its buffer (the head copied into the headroom).
inline std::byte* head_slot_received(std::byte* head, std::byte* body, std::uint32_t head_bytes,
                                     std::uint32_t byte_len) noexcept {
  if (head_bytes == 0) return body;
  if (byte_len <= head_bytes) return head;
  std::memcpy(body, head, head_bytes);
  return body;
}

}  // namespace twinfab::mpi
