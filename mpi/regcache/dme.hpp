// twinfab MPI regcache: the Dynamic Memory Engine of seed 000 §III.H.2.
//
//  - A hash table with chains, indexed by a hash of the base address of the page the
//    buffer starts in.
//  - Memory entry records (Region), allocated once (limits.max_entries) and kept on a
//    free list when not in use; each has a reference counter.
//  - Lookup: walk the chain for a record with the same first page whose page count is
//    >= the request's and whose access covers it ("only a part or the whole
//    previously used buffer is reused") -> one more reference, off the unused list.
//  - Miss: a record from the free list; otherwise evict the tail of the unused list
//    (records enter at its head when their count drops to zero: LRU) and deregister
//    it; otherwise nullptr ("no resource"). The new region covers whole pages.
//  - Release: decrement; at zero the record goes to the head of the unused list.
// Additions: a byte limit evicts the same way; an ordered index (in the base class)
// serves only the memory hooks' range invalidation, never the hit path.
#pragma once

#include <vector>

#include "mpi/regcache/registration_cache.hpp"

namespace twinfab::mpi::regcache {

class DmeCache final : public RegistrationCache {
 public:
  DmeCache(fabric::Device& device, const Limits& limits);
  CacheKind kind() const noexcept override { return CacheKind::Dme; }

 protected:
  Region* lookup_or_register(std::uintptr_t start, std::uintptr_t end, fabric::Access access) override;
  void unlink_lookup(Region& region) noexcept override;

 private:
  std::size_t bucket_of(std::uintptr_t page) const noexcept {
    // Fibonacci hashing of the page number.
    return static_cast<std::size_t>(((page >> page_shift_) * 0x9E3779B97F4A7C15ull) >> hash_shift_);
  }

  unsigned page_shift_ = 12;
  unsigned hash_shift_ = 52;
  std::vector<Region*> buckets_;
};

}  // namespace twinfab::mpi::regcache
