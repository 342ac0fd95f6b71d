// twinfab MPI one-sided: the RDMA operations a rank has in flight, by cookie.
//
// Every RDMA work request the RMA engine posts carries a 32-bit cookie that its
// completion hands back (Context::post_rdma). A hash map from cookie to entry cost a
// node allocation, a hash and an erase per operation, a quarter of the library's work
// for an 8-byte MPI_Get + MPI_Win_flush on rxe (docs/rma.md, "Figures measured"). Here
// the cookie is the entry's slot: a vector of slots and a stack of free ones, no
// allocation once the table has grown to the most operations ever in flight together.
//
// A cookie is kForeignCookieBit | generation << 24 | slot. The slot's generation
// changes each time the slot is reused, so a cookie that completed no longer names an
// operation (contains() is false) even when its slot already holds the next one: a
// caller waiting for "this operation" (RmaEngine::wait_atomic) is not fooled by the one
// posted after it. At most 2^24 operations are in flight at once (a larger count
// throws: it is 2^24 entries of bookkeeping, gigabytes, and far beyond any send queue).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "mpi/core/error.hpp"
#include "mpi/pt2pt/engine.hpp"

namespace twinfab::mpi::rma {

template <class Entry>
class InFlightTable {
 public:
  static constexpr std::uint32_t kSlotBits = 24;
  static constexpr std::uint32_t kSlotMask = (1u << kSlotBits) - 1;
  static constexpr std::uint32_t kGenerationMask = (kForeignCookieBit - 1) >> kSlotBits;

  /// Stores `entry`; returns its cookie (kForeignCookieBit set, so never 0).
  std::uint32_t insert(Entry entry) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() > kSlotMask)
        throw Error(ErrorClass::MPI_ERR_INTERN, "RMA",
                    "more than 2^24 RDMA operations in flight at once on this rank; flush some first");
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    Slot& s = slots_[slot];
    s.entry = std::move(entry);
    s.in_use = true;
    ++size_;
    return kForeignCookieBit | (s.generation << kSlotBits) | slot;
  }

  /// The entry of `cookie`, or null when it is not (or no longer) in flight.
  Entry* find(std::uint32_t cookie) noexcept {
    Slot* s = slot_of(cookie);
    return s != nullptr ? &s->entry : nullptr;
  }
  bool contains(std::uint32_t cookie) const noexcept {
    return const_cast<InFlightTable*>(this)->slot_of(cookie) != nullptr;
  }

  /// Moves the entry of `cookie` into `out` and frees its slot; false (out untouched)
  /// when `cookie` is not in flight.
  bool take(std::uint32_t cookie, Entry& out) {
    Slot* s = slot_of(cookie);
    if (s == nullptr) return false;
    out = std::move(s->entry);  // what it kept alive (buffers, registrations) goes with `out`
    s->in_use = false;
    s->generation = (s->generation + 1) & kGenerationMask;
    free_.push_back(cookie & kSlotMask);
    --size_;
    return true;
  }

  std::size_t size() const noexcept { return size_; }

 private:
  struct Slot {
    Entry entry{};
    std::uint32_t generation = 0;
    bool in_use = false;
  };
  Slot* slot_of(std::uint32_t cookie) noexcept {
    if ((cookie & kForeignCookieBit) == 0) return nullptr;
    const std::uint32_t slot = cookie & kSlotMask;
    if (slot >= slots_.size()) return nullptr;
    Slot& s = slots_[slot];
    if (!s.in_use || s.generation != ((cookie >> kSlotBits) & kGenerationMask)) return nullptr;
    return &s;
  }

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;  ///< slots to reuse, the last freed first (warm in cache)
  std::size_t size_ = 0;
};

}  // namespace twinfab::mpi::rma
