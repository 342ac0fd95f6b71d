// The RDMA fast path's slot format (mpi/channels/rc_fast_path.hpp): a slot is taken
// only when its head and its tail both carry the expected sequence number, never for
// an old packet, and a length beyond the slot is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "mpi/channels/rc_fast_path.hpp"

namespace twinfab::mpi {
namespace {

constexpr std::uint32_t kPacketSize = 256;
constexpr std::uint32_t kSlot = fast_path_slot_bytes(kPacketSize);

TEST(FastPathSlot, SizesLeaveRoomForHeadAndTailOnCacheLines) {
  EXPECT_EQ(kSlot % 64, 0u);
  EXPECT_GE(kSlot, kFastPathHeadBytes + kPacketSize + kFastPathTailBytes);
  EXPECT_EQ(fast_path_tail_offset(1), kFastPathHeadBytes + 4);
  EXPECT_EQ(fast_path_tail_offset(8), kFastPathHeadBytes + 8);
  EXPECT_EQ(fast_path_write_bytes(8), kFastPathHeadBytes + 8 + kFastPathTailBytes);
}

TEST(FastPathSlot, IsReadyOnlyWhenTheTailHasLanded) {
  alignas(64) std::byte image[kSlot] = {};
  const char text[] = "twenty-one bytes long";
  std::memcpy(image + kFastPathHeadBytes, text, 21);
  seal_fast_path_slot(image, FastPathHead{21, 7, 3, 11});

  alignas(64) std::byte slot[kSlot] = {};
  FastPathHead head;
  EXPECT_EQ(inspect_fast_path_slot(slot, kSlot, 7, head), SlotState::Empty);
  // The device writes in order: the head first, then packet, then the tail.
  std::memcpy(slot, image, kFastPathHeadBytes + 21);
  EXPECT_EQ(inspect_fast_path_slot(slot, kSlot, 7, head), SlotState::Landing);
  std::memcpy(slot, image, fast_path_write_bytes(21));
  ASSERT_EQ(inspect_fast_path_slot(slot, kSlot, 7, head), SlotState::Ready);
  EXPECT_EQ(head.length, 21u);
  EXPECT_EQ(head.credits_back, 3u);
  EXPECT_EQ(head.regular_before, 11u);
  EXPECT_EQ(std::memcmp(slot + kFastPathHeadBytes, text, 21), 0);
  // The padding went out zeroed, not with what the buffer held.
  for (std::uint32_t i = kFastPathHeadBytes + 21; i < fast_path_tail_offset(21); ++i)
    EXPECT_EQ(slot[i], std::byte{0}) << i;
  // The same slot is a ring later's packet 7 + slots: the old one is not taken for it.
  EXPECT_EQ(inspect_fast_path_slot(slot, kSlot, 7 + 32, head), SlotState::Empty);
}

TEST(FastPathSlot, ANewHeadOverAnOldTailIsStillLanding) {
  // Packet 1 of 40 bytes, then packet 33 of 8 bytes has its head in but not its tail:
  // the tail position of the new length holds packet 1's bytes, never 33.
  alignas(64) std::byte slot[kSlot] = {};
  std::vector<std::byte> old(40, std::byte{0x21});
  std::memcpy(slot + kFastPathHeadBytes, old.data(), old.size());
  seal_fast_path_slot(slot, FastPathHead{40, 1, 0, 0});
  const FastPathHead next{8, 33, 0, 0};
  std::memcpy(slot, &next, sizeof next);
  FastPathHead head;
  EXPECT_EQ(inspect_fast_path_slot(slot, kSlot, 33, head), SlotState::Landing);
}

TEST(FastPathSlot, ALengthBeyondTheSlotIsMalformed) {
  alignas(64) std::byte slot[kSlot] = {};
  const FastPathHead bad{kSlot, 5, 0, 0};
  std::memcpy(slot, &bad, sizeof bad);
  FastPathHead head;
  EXPECT_EQ(inspect_fast_path_slot(slot, kSlot, 5, head), SlotState::Malformed);
  const FastPathHead huge{0xfffffff0u, 5, 0, 0};
  std::memcpy(slot, &huge, sizeof huge);
  EXPECT_EQ(inspect_fast_path_slot(slot, kSlot, 5, head), SlotState::Malformed);
}

}  // namespace
}  // namespace twinfab::mpi
