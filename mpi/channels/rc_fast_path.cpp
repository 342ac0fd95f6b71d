#include "mpi/channels/rc_fast_path.hpp"

#include <atomic>
#include <cstring>

namespace twinfab::mpi {

namespace {

std::uint32_t load_acquire(const std::byte* at) noexcept {
  // The slot is 4-byte aligned wherever a sequence number sits (slots are 64-byte
  // aligned in a page-aligned ring; the tail offset is a multiple of 4).
  auto* word = const_cast<std::uint32_t*>(reinterpret_cast<const std::uint32_t*>(at));
  return std::atomic_ref<std::uint32_t>(*word).load(std::memory_order_acquire);
}

}  // namespace

void seal_fast_path_slot(std::byte* slot, const FastPathHead& head) noexcept {
  std::memcpy(slot, &head, sizeof head);
  const std::uint32_t tail_at = fast_path_tail_offset(head.length);
  // The padding between packet and tail is sent too: zero it rather than leak what the
  // send buffer held before.
  std::memset(slot + kFastPathHeadBytes + head.length, 0, tail_at - kFastPathHeadBytes - head.length);
  std::memcpy(slot + tail_at, &head.sequence, kFastPathTailBytes);
}

SlotState inspect_fast_path_slot(const std::byte* slot, std::uint32_t slot_bytes, std::uint32_t expected,
                                 FastPathHead& head) noexcept {
  if (load_acquire(slot + offsetof(FastPathHead, sequence)) != expected) return SlotState::Empty;
  // The length (before the sequence number in the slot) landed before it.
  std::memcpy(&head, slot, sizeof head);
  if (head.length > slot_bytes || fast_path_write_bytes(head.length) > slot_bytes) return SlotState::Malformed;
  if (load_acquire(slot + fast_path_tail_offset(head.length)) != expected) return SlotState::Landing;
  return SlotState::Ready;  // the tail is there, so is everything before it (in-order placement)
}

}  // namespace twinfab::mpi
