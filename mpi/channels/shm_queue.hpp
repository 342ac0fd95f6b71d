// twinfab MPI channels: the layout and lock-free queue of the shared-memory channel
// (shm_channel.hpp), apart from any device so that unit tests drive it on plain memory.
//
// Each rank of a host owns one segment: a header with its receive FIFO, then its
// cells. A sender takes a free cell of its own, writes a packet into it and appends
// the cell to the receiver's FIFO; the receiver hands the packet on and appends the
// cell to the owner's FIFO, which takes it back as free (Open MPI's vader does the
// same: a queue per receiver, fragments owned by senders). One FIFO per receiver, not
// one ring per pair: a rank's memory stays the same whatever the number of ranks on
// its host, and a receiver looks at one word when idle.
//
// The FIFO is a multi-producer, single-consumer list of cells linked by relative
// pointers (segments are mapped at different addresses in each process): an item is
// (owner's local index << 32 | cell index). A producer exchanges the tail with its
// item and then links the previous tail to it; the consumer, finding the head's link
// not yet written, waits the few instructions until the producer writes it (vader's
// fifo_read_head). Every access that orders data is an acquire or a release.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "mpi/channels/packet.hpp"

namespace twinfab::mpi::shm {

/// An item of a FIFO: (owner's local index << 32) | cell index.
using Item = std::uint64_t;
inline constexpr Item kNone = ~Item{0};
constexpr Item make_item(std::uint32_t owner, std::uint32_t cell) noexcept { return Item{owner} << 32 | cell; }
constexpr std::uint32_t item_owner(Item item) noexcept { return static_cast<std::uint32_t>(item >> 32); }
constexpr std::uint32_t item_cell(Item item) noexcept { return static_cast<std::uint32_t>(item); }

/// What a cell carries.
enum class CellKind : std::uint32_t {
  Packet = 1,     ///< a channel packet: header + payload
  Immediate = 2,  ///< the immediate of an RDMA write with immediate (the data went before, by a single copy)
};

/// The head of a cell; the payload follows at kCellHeaderBytes.
struct alignas(64) CellHeader {
  std::atomic<Item> next;
  CellKind kind;
  std::uint32_t payload_bytes;
  std::int32_t source;  ///< the sender's world rank
  std::int32_t destination;  ///< the receiver's world rank (checked on arrival)
  std::uint32_t immediate;
  PacketHeader packet;
};
inline constexpr std::size_t kCellHeaderBytes = 128;
static_assert(sizeof(CellHeader) <= kCellHeaderBytes);
static_assert(std::atomic<Item>::is_always_lock_free, "the FIFO needs lock-free 8-byte atomics across processes");

/// The head of a segment.
struct SegmentHeader {
  std::uint32_t magic;
  std::uint32_t cells;
  std::uint32_t cell_bytes;
  std::int32_t owner;  ///< the owner's world rank
  alignas(64) std::atomic<Item> head;  ///< consumer's line
  alignas(64) std::atomic<Item> tail;  ///< producers' line
  /// Set by the owner when it has packets waiting for a free cell: whoever returns one
  /// then notifies it (otherwise returns wake nobody).
  alignas(64) std::atomic<std::uint32_t> wants_cells;
  /// The first segment of a host only: the ranks that finished their shutdown's first
  /// step (ShmChannel's destructor).
  std::atomic<std::uint32_t> departed;
};
inline constexpr std::uint32_t kMagic = 0x74666d31;  // "tfm1"
inline constexpr std::size_t kSegmentHeaderBytes = 256;
static_assert(sizeof(SegmentHeader) <= kSegmentHeaderBytes);

/// The shape of every segment of a channel: same on all ranks (from the configuration).
struct Layout {
  std::uint32_t cells = 0;
  std::uint32_t cell_bytes = 0;  ///< kCellHeaderBytes + the payload, a multiple of 64
  /// For cells of `max_payload` bytes of payload.
  static Layout for_payload(std::size_t max_payload, std::uint32_t cells) noexcept;
  std::size_t segment_bytes() const noexcept { return kSegmentHeaderBytes + std::size_t{cells} * cell_bytes; }
  std::size_t max_payload() const noexcept { return cell_bytes - kCellHeaderBytes; }
};

/// Writes an empty FIFO and the header into a new (zero-filled) segment of `owner`.
void format(std::span<std::byte> segment, const Layout& layout, int owner);
/// Whether `segment` holds a header that `format` wrote with `layout` for `owner`
/// (an attacher's check that the name led where it should).
bool matches(std::span<const std::byte> segment, const Layout& layout, int owner) noexcept;

inline SegmentHeader& header(std::byte* segment) noexcept { return *reinterpret_cast<SegmentHeader*>(segment); }
inline CellHeader& cell(std::byte* segment, const Layout& layout, std::uint32_t index) noexcept {
  return *reinterpret_cast<CellHeader*>(segment + kSegmentHeaderBytes + std::size_t{index} * layout.cell_bytes);
}
inline std::byte* payload(CellHeader& c) noexcept { return reinterpret_cast<std::byte*>(&c) + kCellHeaderBytes; }

/// Appends `item` (its cell already written) to the FIFO of `receiver`. `cell_of(item)`
/// returns an item's CellHeader& (the previous tail may be any rank's cell).
template <class CellOf>
void push(SegmentHeader& receiver, Item item, CellOf&& cell_of) noexcept {
  cell_of(item).next.store(kNone, std::memory_order_relaxed);
  const Item previous = receiver.tail.exchange(item, std::memory_order_acq_rel);
  if (previous == kNone)
    receiver.head.store(item, std::memory_order_release);
  else
    cell_of(previous).next.store(item, std::memory_order_release);
}
/// Takes the first item of the FIFO of `self` (the caller is its one consumer), or
/// kNone. `cell_of(item)` returns the item's CellHeader&.
template <class CellOf>
Item pop(SegmentHeader& self, CellOf&& cell_of) noexcept {
  const Item first = self.head.load(std::memory_order_acquire);
  if (first == kNone) return kNone;
  CellHeader& c = cell_of(first);
  Item next = c.next.load(std::memory_order_acquire);
  if (next == kNone) {
    // The last one: empty the FIFO, unless a producer has swapped the tail already and
    // is about to link its item behind this one.
    self.head.store(kNone, std::memory_order_relaxed);
    Item expected = first;
    if (self.tail.compare_exchange_strong(expected, kNone, std::memory_order_acq_rel)) return first;
    while ((next = c.next.load(std::memory_order_acquire)) == kNone) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
  self.head.store(next, std::memory_order_release);
  return first;
}

}  // namespace twinfab::mpi::shm
