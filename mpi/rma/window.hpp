// twinfab MPI one-sided: the state of one window at one rank (MPI_Win).
//
// A Window is created collectively over a communicator (mpi/rma/rma_engine.hpp) and
// owns: a duplicate of that communicator, in which its messages travel (operations of
// the send/receive design, flush and lock requests, replies), so they never meet the
// program's; the registration of its memory; a small registered control block that
// peers reach by RDMA (the passive-target lock word and the PSCW counters); what every
// member published at creation (base, size, displacement unit, rkeys); and the
// synchronization state of this rank's epochs.
//
// Memory per rank and window: the peer table (40 bytes per member) and the control
// block (64 bytes per member: PSCW counters, staging, the MCS node and lock grants); the per-target completion state
// exists only for targets this rank accessed.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fabric/memory_region.hpp"
#include "mpi/core/communicator.hpp"
#include "mpi/core/config.hpp"
#include "mpi/core/datatype.hpp"
#include "mpi/core/request.hpp"
#include "mpi/rma/lock_service.hpp"
#include "mpi/rma/lock_type.hpp"

namespace twinfab::mpi::rma {

/// The bytes of `blocks` (relative to `base`), in order: a target layout's packed form.
inline std::vector<std::byte> gather_blocks(const std::byte* base, const std::vector<Block>& blocks) {
  std::vector<std::byte> out;
  for (const Block& b : blocks) out.insert(out.end(), base + b.offset, base + b.offset + b.length);
  return out;
}

/// The inverse: `packed` spread over `blocks` at `base`.
inline void scatter_blocks(std::byte* base, const std::vector<Block>& blocks, const std::byte* packed) {
  for (const Block& b : blocks) {
    std::memcpy(base + b.offset, packed, static_cast<std::size_t>(b.length));
    packed += b.length;
  }
}

/// MPI_WIN_FLAVOR_*: how the window's memory came to be.
enum class Flavor : std::uint8_t { Create, Allocate, Dynamic, Shared };

/// The assertions of the synchronization calls (MPI_MODE_*), as bits; the C API maps
/// its constants to these.
namespace assertion {
inline constexpr int kNoCheck = 1 << 0;
inline constexpr int kNoStore = 1 << 1;
inline constexpr int kNoPut = 1 << 2;
inline constexpr int kNoPrecede = 1 << 3;
inline constexpr int kNoSucceed = 1 << 4;
inline constexpr int kAll = (1 << 5) - 1;
}  // namespace assertion

/// What each member publishes at window creation (one allgather).
struct PeerWindow {
  std::uint64_t base = 0;        ///< address of its window memory (0: none)
  std::uint64_t size = 0;        ///< bytes
  std::uint64_t control = 0;     ///< address of its control block
  std::uint32_t rkey = 0;        ///< of the window memory (0 when size is 0 or dynamic)
  std::uint32_t control_rkey = 0;
  std::int32_t disp_unit = 1;
  std::int32_t node = -1;        ///< host it runs on (shared windows), -1: unknown
};

/// The control block's layout: one registered array of 64-bit words per window and rank.
///   [0]                  the passive-target lock word (test-and-set, and MCS's readers)
///   [1]                  MCS: the queue's tail (0: empty, else the last queued rank + 1)
///   [2, 2 + n)           PSCW: how many times member i posted to this rank (written by i)
///   [2 + n, 2 + 2n)      PSCW: how many times member i completed an access epoch here
///   [2 + 2n, 2 + 6n)     staging: the values this rank is writing into member i's control
///                        block (four words per member, one per kind of write that may be in
///                        flight to one peer at once: post counter, complete counter, MCS
///                        successor link, MCS hand-over flag)
///   [2 + 6n, 2 + 7n)     MCS: this rank's queue node's `next` for target i (the successor
///                        rank + 1, written by the successor; 0: none yet)
///   [2 + 7n, 2 + 8n)     lock grants from target i: MCS, the hand-over flag its predecessor
///                        writes; thread designs, the sequence number of the last request
///                        target i's lock agent granted
///   [2 + 8n, + kResultSlots) results of this rank's own remote atomics
struct ControlLayout {
  static constexpr std::size_t kLockWord = 0;
  static constexpr std::size_t kMcsTail = 1;
  static constexpr std::size_t kResultSlots = 4;
  /// The kinds of staging words (staging()'s `which`).
  static constexpr int kStagePost = 0;
  static constexpr int kStageComplete = 1;
  static constexpr int kStageMcsNext = 2;
  static constexpr int kStageMcsFlag = 3;
  std::size_t members = 0;
  std::size_t post_count(int i) const noexcept { return 2 + static_cast<std::size_t>(i); }
  std::size_t complete_count(int i) const noexcept { return 2 + members + static_cast<std::size_t>(i); }
  std::size_t staging(int i, int which) const noexcept {
    return 2 + 2 * members + 4 * static_cast<std::size_t>(i) + static_cast<std::size_t>(which);
  }
  std::size_t lock_next(int i) const noexcept { return 2 + 6 * members + static_cast<std::size_t>(i); }
  std::size_t lock_grant(int i) const noexcept { return 2 + 7 * members + static_cast<std::size_t>(i); }
  std::size_t result(std::size_t slot) const noexcept { return 2 + 8 * members + slot; }
  std::size_t words() const noexcept { return 2 + 8 * members + kResultSlots; }
};

/// The exclusive holder's value of the test-and-set lock word (seed 001 §4.3.3: a
/// compare-and-swap of 0 to -1); shared holders count up from 0.
inline constexpr std::uint64_t kExclusiveLockWord = ~std::uint64_t{0};

/// One region attached to a dynamic window (MPI_Win_attach).
struct AttachedRegion {
  std::uint64_t size = 0;
};

/// A message send or reply receive this rank started as an origin, with the bytes it
/// sends (kept until the send completed).
struct InFlightMessage {
  RequestId request = kRequestNull;
  std::shared_ptr<std::vector<std::byte>> buffer;
};

/// What this rank, as an origin, has in flight towards one target, and its lock there.
struct TargetState {
  /// Message sends and reply receives this rank started towards the target (the
  /// send/receive design, accumulates, dynamic windows): complete before a flush ends.
  std::deque<InFlightMessage> requests;  ///< oldest first (reaped from the front)
  std::uint32_t rdma_in_flight = 0;       ///< RDMA reads/writes/atomics not completed
  /// Of those, writes posted with inline data: complete locally already (the origin
  /// buffer was copied at post), only not yet at the target.
  std::uint32_t rdma_inline_in_flight = 0;
  /// RDMA writes posted since the last placement check (iWARP: confirm_placement).
  std::uint32_t writes_unconfirmed = 0;
  /// Operations sent as messages since the last flush round trip: when nonzero, a
  /// flush asks the target (FlushRequest) and waits for its acknowledgement.
  std::uint64_t unflushed_messages = 0;
  /// TWINFAB_RMA_PIGGYBACK: the last small put of the open MPI_Win_start epoch, as its
  /// control message (data inline), not sent yet: it goes before the next operation to
  /// the target, or from MPI_Win_complete carrying the epoch's end (one message fewer).
  std::shared_ptr<std::vector<std::byte>> held_put;
  std::uint64_t flushes_sent = 0;
  std::uint64_t flushes_acked = 0;
  /// The first error the target reported in an acknowledgement (e.g. MPI_ERR_RMA_RANGE
  /// for an address of a dynamic window that is not attached there).
  ErrorClass error = ErrorClass::MPI_SUCCESS;
  // Passive target.
  enum class Lock : std::uint8_t { None, Requested, Held };
  Lock lock = Lock::None;
  LockType lock_type = LockType::Shared;
  bool lock_nocheck = false;  ///< MPI_MODE_NOCHECK: held without asking the target
  /// Test-and-set: when this rank last released the target's lock (runtime clock, -1:
  /// never) and how long its last compare-and-swap there took (locks.cpp).
  double released_at = -1;
  double lock_round_trip = 0;
  std::uint32_t quick_relocks = 0;  ///< re-locks right after a release, in a row
  std::uint64_t unlocks_sent = 0;
  std::uint64_t unlocks_acked = 0;
};

/// A lock request waiting at this rank, as a target (progress lock design).
struct WaitingLock {
  int origin = 0;
  LockType type = LockType::Shared;
};

/// An operation message that arrived for this window, as a target, kept in arrival
/// order until it can be applied (its header and, when sent apart, its data are in).
struct IncomingOperation {
  int source = 0;
  RequestId header_request = kRequestNull;
  std::vector<std::byte> header;  ///< the control message (header, blocks, inline data)
  RequestId data_request = kRequestNull;
  std::vector<std::byte> data;    ///< data sent apart (accumulates; puts land in the window)
  DatatypePtr data_type;          ///< the layout a separate put lands with
  bool parsed = false;            ///< the header was read and any data receive posted
};

/// A reply this rank sends as a target (get data, fetched values), kept with the
/// bytes it sends (a copy, never the window itself: target.cpp) until the send
/// completes.
struct OutgoingReply {
  RequestId request = kRequestNull;
  std::vector<std::byte> data;
};

/// The epochs this rank has open on the window (MPI-3.1 §11.5).
struct EpochState {
  bool fence = false;           ///< a fence opened an access/exposure epoch (no NOSUCCEED)
  bool fence_had_ops = false;   ///< ops were issued since the last fence
  std::vector<int> start_group;   ///< PSCW access epoch: target ranks in the window comm
  bool started = false;
  std::vector<int> post_group;    ///< PSCW exposure epoch: origin ranks in the window comm
  bool posted = false;
  int locks_held = 0;           ///< MPI_Win_lock epochs open (one per target)
  bool lock_all = false;        ///< MPI_Win_lock_all epoch open
  bool any() const noexcept { return started || posted || locks_held > 0 || lock_all; }
};

class Window {
 public:
  Window() = default;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  std::uint32_t id = 0;                    ///< unique per rank, for error messages and cookies
  const Communicator* comm = nullptr;      ///< the duplicate its traffic uses
  Flavor flavor = Flavor::Create;
  void* base = nullptr;
  std::uint64_t size = 0;
  int disp_unit = 1;
  RmaDesign design = RmaDesign::Rdma;      ///< resolved (never Auto)
  RmaLockDesign lock_design = RmaLockDesign::TestAndSet;  ///< resolved (never Auto)
  /// Accumulate-class operations on 8-byte integers by the HCA's atomics
  /// (TWINFAB_RMA_ACCUMULATE=atomics, Create and Allocate flavors).
  bool hca_accumulates = false;
  std::string name;
  /// The info hints given at creation that the window keeps (MPI_Win_get_info).
  std::map<std::string, std::string> info;

  std::unique_ptr<fabric::MemoryRegion> region;       ///< of base/size (null when empty or dynamic)
  std::vector<std::uint64_t> control_words;           ///< the control block (ControlLayout)
  std::unique_ptr<fabric::MemoryRegion> control_region;
  ControlLayout layout;
  std::vector<PeerWindow> peers;                      ///< by rank in `comm`

  /// Dynamic windows: regions attached at this rank, by start address.
  std::map<std::uint64_t, AttachedRegion> attached;
  /// Allocate/Shared flavors: the memory the window owns (freed with it).
  std::unique_ptr<std::byte[]> owned;
  /// Shared flavor: the mapping of the node's segment, and where each member's part is.
  void* shared_mapping = nullptr;
  std::size_t shared_mapping_bytes = 0;
  std::vector<std::uint64_t> shared_offsets;  ///< by rank in `comm`; unused for other flavors

  EpochState epoch;
  std::unordered_map<int, TargetState> targets;  ///< as origin, by target rank in `comm`
  // As target (the progress lock design and message operations).
  int shared_holders = 0;
  bool exclusive_held = false;
  int exclusive_holder = -1;
  std::deque<WaitingLock> waiting_locks;
  /// The thread and event lock designs: this rank's lock agent and its links (null for
  /// the other designs). Declared after the control block it writes into, so it is
  /// stopped before that goes.
  std::unique_ptr<LockService> lock_service;
  std::deque<IncomingOperation> incoming;
  std::deque<OutgoingReply> replies;  ///< oldest first (reaped from the front)
  /// Errors found applying operations from an origin, reported in its next flush
  /// acknowledgement, by origin rank.
  std::unordered_map<int, ErrorClass> origin_errors;
  /// PSCW: posts and completions this rank consumed, by peer rank.
  std::unordered_map<int, std::uint64_t> posts_seen;
  std::unordered_map<int, std::uint64_t> completes_seen;
  std::unordered_map<int, std::uint64_t> posts_sent;
  std::unordered_map<int, std::uint64_t> completes_sent;  ///< by the RDMA-written counter only
  /// The send/receive design's PSCW messages received, by sender rank.
  std::unordered_map<int, std::uint64_t> posts_received;
  std::unordered_map<int, std::uint64_t> completes_received;
  std::uint32_t next_reply_tag = 0;
  /// What MPI_Win_get_attr points the program to (the values live as long as the window).
  struct Attributes {
    std::ptrdiff_t size = 0;
    std::ptrdiff_t disp_unit = 0;
    int flavor = 0;
    int model = 0;
  } attributes;

  /// Whether [first, end) lies in memory attached to this (dynamic) window: in one
  /// region, or in regions attached back to back (as MPICH allows).
  bool attached_covers(std::uint64_t first, std::uint64_t end) const {
    auto it = attached.upper_bound(first);
    if (it == attached.begin()) return false;
    --it;
    std::uint64_t covered = it->first + it->second.size;
    if (covered <= first) return false;
    for (++it; covered < end && it != attached.end() && it->first == covered; ++it) covered += it->second.size;
    return covered >= end;
  }
  int rank() const noexcept { return comm->rank(); }
  int size_of_group() const noexcept { return comm->size(); }
  std::uint64_t* control() noexcept { return control_words.data(); }
  /// The state of `rank` as a target of this rank's operations (made at first use).
  /// The last one is remembered: an operation and its flush look it up ~7 times, and
  /// `targets` never drops an entry, whose address a rehash keeps.
  TargetState& target(int rank) {
    if (rank != last_target_rank_) {
      last_target_ = &targets[rank];
      last_target_rank_ = rank;
    }
    return *last_target_;
  }
  /// target() for a rank that may never have been one: null then, and nothing made.
  TargetState* find_target(int rank) {
    if (rank == last_target_rank_) return last_target_;
    auto it = targets.find(rank);
    return it == targets.end() ? nullptr : &target(rank);
  }

 private:
  int last_target_rank_ = -1;
  TargetState* last_target_ = nullptr;
};

}  // namespace twinfab::mpi::rma
