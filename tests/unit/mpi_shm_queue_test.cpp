// The shared-memory channel's queue (mpi/channels/shm_queue.hpp) on plain memory: the
// layout, and the FIFO's order, emptiness and correctness under real concurrency
// (threads standing for the processes of a host).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "mpi/channels/shm_queue.hpp"

namespace twinfab::mpi::shm {
namespace {

struct Host {
  Host(int ranks, std::uint32_t cells, std::size_t payload) : layout(Layout::for_payload(payload, cells)) {
    for (int r = 0; r < ranks; ++r) {
      segments.emplace_back(layout.segment_bytes() + 64);
      format(segment(r), layout, r);
    }
  }
  std::span<std::byte> segment(int r) {
    // 64-byte aligned inside the vector, as a mapping is.
    auto& v = segments[static_cast<std::size_t>(r)];
    auto p = reinterpret_cast<std::uintptr_t>(v.data());
    return {v.data() + ((64 - p % 64) % 64), layout.segment_bytes()};
  }
  CellHeader& cell_of(Item item) { return cell(segment(static_cast<int>(item_owner(item))).data(), layout, item_cell(item)); }
  SegmentHeader& fifo(int r) { return header(segment(r).data()); }
  void send(int from, int to, std::uint32_t c, std::uint32_t value) {
    CellHeader& h = cell(segment(from).data(), layout, c);
    h.kind = CellKind::Packet;
    h.source = from;
    h.immediate = value;
    push(fifo(to), make_item(static_cast<std::uint32_t>(from), c), [this](Item i) -> CellHeader& { return cell_of(i); });
  }
  Item take(int r) {
    return pop(fifo(r), [this](Item i) -> CellHeader& { return cell_of(i); });
  }

  Layout layout;
  std::vector<std::vector<std::byte>> segments;
};

TEST(ShmQueue, LayoutRoundsCellsToCacheLines) {
  const Layout l = Layout::for_payload(8136, 64);
  EXPECT_EQ(l.cell_bytes % 64, 0u);
  EXPECT_GE(l.max_payload(), 8136u);
  EXPECT_LT(l.max_payload(), 8136u + 64);
  EXPECT_EQ(l.segment_bytes(), kSegmentHeaderBytes + 64u * l.cell_bytes);
}

TEST(ShmQueue, AnAttacherRecognisesOnlyTheSegmentItExpects) {
  Host host(2, 4, 100);
  EXPECT_TRUE(matches(host.segment(1), host.layout, 1));
  EXPECT_FALSE(matches(host.segment(1), host.layout, 0));  // another rank's
  Layout other = host.layout;
  other.cells = 5;
  EXPECT_FALSE(matches(host.segment(1), other, 1));  // another shape (TWINFAB_SHM_CELLS differs)
  EXPECT_FALSE(matches(host.segment(1).first(100), host.layout, 1));  // too short
  std::vector<std::byte> zero(host.layout.segment_bytes());
  EXPECT_FALSE(matches(zero, host.layout, 0));  // never formatted
}

TEST(ShmQueue, KeepsTheOrderOfEveryProducerAndEmpties) {
  Host host(3, 8, 64);
  EXPECT_EQ(host.take(0), kNone);
  host.send(1, 0, 0, 10);
  host.send(2, 0, 0, 20);
  host.send(1, 0, 1, 11);
  const std::uint32_t expected[] = {10, 20, 11};
  for (std::uint32_t value : expected) {
    const Item item = host.take(0);
    ASSERT_NE(item, kNone);
    EXPECT_EQ(host.cell_of(item).immediate, value);
  }
  EXPECT_EQ(host.take(0), kNone);
  // Empty again: the next push starts a new list.
  host.send(2, 0, 3, 23);
  const Item item = host.take(0);
  ASSERT_NE(item, kNone);
  EXPECT_EQ(item_owner(item), 2u);
  EXPECT_EQ(item_cell(item), 3u);
  EXPECT_EQ(host.take(0), kNone);
}

TEST(ShmQueue, ACellGoesBackToItsOwnerThroughItsFifo) {
  Host host(2, 2, 64);
  host.send(1, 0, 1, 7);
  const Item item = host.take(0);
  ASSERT_NE(item, kNone);
  push(host.fifo(1), item, [&](Item i) -> CellHeader& { return host.cell_of(i); });  // returned
  EXPECT_EQ(host.take(1), item);
  EXPECT_EQ(host.take(1), kNone);
}

// Producers on threads, one consumer: every item arrives once, each producer's in order,
// with cells recycled through the producers' own FIFOs as the channel does.
TEST(ShmQueue, ManyProducersOneConsumerUnderConcurrency) {
  constexpr int kProducers = 3;
  constexpr std::uint32_t kCells = 4;
  constexpr std::uint32_t kItems = 20000;
  Host host(kProducers + 1, kCells, 64);
  std::vector<std::thread> producers;
  for (int p = 1; p <= kProducers; ++p) {
    producers.emplace_back([&host, p] {
      std::vector<std::uint32_t> free;
      for (std::uint32_t c = 0; c < kCells; ++c) free.push_back(c);
      for (std::uint32_t i = 0; i < kItems; ++i) {
        while (free.empty()) {
          const Item back = host.take(p);
          if (back != kNone) free.push_back(item_cell(back));
        }
        const std::uint32_t c = free.back();
        free.pop_back();
        host.send(p, 0, c, i);
      }
    });
  }
  std::vector<std::uint32_t> next(kProducers + 1, 0);
  std::uint32_t received = 0;
  while (received < kProducers * kItems) {
    const Item item = host.take(0);
    if (item == kNone) continue;
    const CellHeader& c = host.cell_of(item);
    const auto from = static_cast<std::size_t>(c.source);
    ASSERT_EQ(item_owner(item), from);
    ASSERT_EQ(c.immediate, next[from]) << "from producer " << from;
    ++next[from];
    ++received;
    push(host.fifo(c.source), item, [&](Item i) -> CellHeader& { return host.cell_of(i); });
  }
  for (auto& t : producers) t.join();
  EXPECT_EQ(host.take(0), kNone);
}

}  // namespace
}  // namespace twinfab::mpi::shm
