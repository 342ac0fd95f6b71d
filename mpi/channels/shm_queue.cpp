#include "mpi/channels/shm_queue.hpp"

#include <new>

namespace twinfab::mpi::shm {

Layout Layout::for_payload(std::size_t max_payload, std::uint32_t cells) noexcept {
  Layout l;
  l.cells = cells;
  l.cell_bytes = static_cast<std::uint32_t>(kCellHeaderBytes + (max_payload + 63) / 64 * 64);
  return l;
}

void format(std::span<std::byte> segment, const Layout& layout, int owner) {
  auto* h = new (segment.data()) SegmentHeader{};
  h->cells = layout.cells;
  h->cell_bytes = layout.cell_bytes;
  h->owner = owner;
  h->head.store(kNone, std::memory_order_relaxed);
  h->tail.store(kNone, std::memory_order_relaxed);
  h->wants_cells.store(0, std::memory_order_relaxed);
  h->departed.store(0, std::memory_order_relaxed);
  // The cells are left as they are (zero): a cell's link is written when it is pushed,
  // and pages of cells never used stay untouched (a simulation at scale keeps its
  // footprint).
  // The magic last: an attacher that sees it sees the rest.
  std::atomic_thread_fence(std::memory_order_release);
  h->magic = kMagic;
}

bool matches(std::span<const std::byte> segment, const Layout& layout, int owner) noexcept {
  if (segment.size() < layout.segment_bytes()) return false;
  const auto* h = reinterpret_cast<const SegmentHeader*>(segment.data());
  return h->magic == kMagic && h->cells == layout.cells && h->cell_bytes == layout.cell_bytes && h->owner == owner;
}

}  // namespace twinfab::mpi::shm
