// twinfab MPI one-sided: the messages windows exchange (the send/receive design of
// seed 001 §3.2, and the requests every design sends to a target's progress engine).
//
// They travel as point-to-point messages in the window's own communicator (a
// duplicate made at creation), so the pt2pt engine segments them, keeps them in order
// per origin (MPI's non-overtaking rule, which gives accumulates their default
// ordering) and moves large data by rendezvous, i.e. by RDMA straight into the
// target's window for a put. Three tags:
//   kTagControl   a ControlHeader, then `block_count` target blocks, then the data
//                 when it fits in one packet (`data_inline`); the target's progress
//                 engine takes these in arrival order and applies them in order
//   kTagData      the data of the previous ControlHeader from the same origin, when
//                 it did not fit (a put lands in the window with the blocks' layout)
//   >= kTagReplyBase  a reply to the origin (get data, fetched values), one tag per
//                 operation so that it matches the receive the origin posted for it
// Both ends run the same build (simulated ranks share a process; hardware jobs are
// homogeneous), so headers are in host byte order, as the pt2pt packets are.
#pragma once

#include <cstdint>

#include "mpi/core/datatype.hpp"

namespace twinfab::mpi::rma {

inline constexpr int kTagControl = 0;
inline constexpr int kTagData = 1;
inline constexpr int kTagReplyBase = 2;
/// Reply tags cycle below MPI's tag limit (2^30 - 1): an origin never has 2^29
/// replies outstanding on one window.
inline constexpr std::uint32_t kReplyTagCycle = 1u << 29;

enum class MessageKind : std::uint8_t {
  Put = 1,
  Get,
  Accumulate,
  GetAccumulate,  ///< also MPI_Fetch_and_op
  CompareSwap,    ///< data: the new value, then the compare value
  FlushRequest,   ///< answer with FlushAck once everything before it is applied
  FlushAck,
  LockRequest,    ///< progress lock design: lock_type in `op`
  LockGranted,
  Unlock,         ///< applied in order after the origin's operations; answered by UnlockAck
  UnlockAck,
  Posted,     ///< send/receive design's PSCW: the sender posted an exposure epoch to the receiver
  Completed,  ///< send/receive design's PSCW: the sender's access epoch to the receiver ended
              ///< (applied in order after its operations, so they are complete)
};

/// ControlHeader::op of a Put that also ends the sender's access epoch (MPI_Win_start)
/// to the target: the target counts it as a Completed message once it applied the put
/// (TWINFAB_RMA_PIGGYBACK; MPICH2 ch3 flags an epoch's last operation so).
inline constexpr std::uint8_t kPutEndsEpoch = 1;

struct ControlHeader {
  MessageKind kind = MessageKind::Put;
  /// mpi::Op of an accumulate; LockType of a LockRequest; kPutEndsEpoch or 0 for a Put
  std::uint8_t op = 0;
  std::uint8_t basic_kind = 0;   ///< mpi::BasicKind of the elements an accumulate combines
  std::uint8_t data_inline = 0;  ///< 1: the data follows the blocks in this message
  std::uint32_t block_count = 0;
  std::uint32_t reply_tag = 0;   ///< Get, GetAccumulate, CompareSwap: the tag of the reply
  std::int32_t error = 0;        ///< FlushAck/UnlockAck: an ErrorClass found applying operations
  /// Window flavors with a base: bytes from the target's window base; dynamic
  /// windows: the absolute address at the target. Blocks are relative to it.
  std::uint64_t target_offset = 0;
  std::uint64_t data_bytes = 0;  ///< packed bytes of the origin's data (or of the reply)
  std::uint64_t sequence = 0;    ///< FlushRequest/FlushAck, Unlock/UnlockAck: which one
};
static_assert(sizeof(ControlHeader) == 40, "the header is part of the wire format");

}  // namespace twinfab::mpi::rma
