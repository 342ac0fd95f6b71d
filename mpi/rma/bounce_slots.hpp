// twinfab MPI one-sided: registered slots that small RDMA reads land in.
//
// An RDMA read needs its destination registered. For the origin buffer of a small
// MPI_Get that meant a registration-cache lookup and a handle per operation, and
// its release at completion (docs/rma.md, "Figures measured": ~300 instructions of the
// ~4,500 an 8-byte get+flush cost on rxe, more than the copy they avoid). A get of
// at most kSlotBytes into a contiguous origin buffer reads into one of these slots
// instead, copied to the origin buffer when the read completes: UCX's "bcopy" for
// small gets (its zcopy path needs the registration, as twinfab's larger gets do).
//
// The slots are one buffer registered once, made at a rank's first small get (a rank
// that never gets pays nothing: thousands of simulated ranks). When every slot is in
// use the get takes the registration path; nothing waits for a slot.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fabric/device.hpp"

namespace twinfab::mpi::rma {

class BounceSlots {
 public:
  static constexpr std::size_t kSlotBytes = 256;
  static constexpr std::uint32_t kSlots = 16;

  /// Allocates and registers kSlots x kSlotBytes on `device` (local write access).
  explicit BounceSlots(fabric::Device& device)
      : region_(device.register_memory(storage_.data(), storage_.size(), fabric::Access::LocalWrite)) {
    free_.reserve(kSlots);
    for (std::uint32_t s = kSlots; s > 0; --s) free_.push_back(s - 1);
  }
  BounceSlots(const BounceSlots&) = delete;  // registered where it is
  BounceSlots& operator=(const BounceSlots&) = delete;

  /// A free slot, or nothing when all are in use.
  std::optional<std::uint32_t> take() {
    if (free_.empty()) return std::nullopt;
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void give_back(std::uint32_t slot) { free_.push_back(slot); }

  std::byte* data(std::uint32_t slot) noexcept { return storage_.data() + std::size_t{slot} * kSlotBytes; }
  /// The registration of every slot.
  const fabric::MemoryRegion& region() const noexcept { return *region_; }

 private:
  alignas(64) std::array<std::byte, kSlots * kSlotBytes> storage_{};
  std::unique_ptr<fabric::MemoryRegion> region_;
  std::vector<std::uint32_t> free_;
};

}  // namespace twinfab::mpi::rma
