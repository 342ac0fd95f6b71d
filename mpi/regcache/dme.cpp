#include "mpi/regcache/dme.hpp"

#include <bit>

namespace twinfab::mpi::regcache {

DmeCache::DmeCache(fabric::Device& device, const Limits& limits) : RegistrationCache(device, limits) {
  page_shift_ = static_cast<unsigned>(std::countr_zero(limits.page_size));
  // At least twice as many buckets as records: chains stay short.
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(2 * limits.max_entries, 16));
  hash_shift_ = 64u - static_cast<unsigned>(std::countr_zero(buckets));
  buckets_.assign(buckets, nullptr);
}

Region* DmeCache::lookup_or_register(std::uintptr_t start, std::uintptr_t end, fabric::Access access) {
  const std::uintptr_t page_mask = ~static_cast<std::uintptr_t>(limits_.page_size - 1);
  const std::uintptr_t page = start & page_mask;
  std::uintptr_t page_end = (end + limits_.page_size - 1) & page_mask;
  if (page_end < end) page_end = end;  // the last page of the address space: no rounding
  const std::size_t bucket = bucket_of(page);
  // Same first page, at least as many pages ("number of pages less than or equal").
  for (Region* r = buckets_[bucket]; r != nullptr; r = r->hash_next) {
    if (r->start == page && r->end >= page_end && fabric::has(r->access, access)) {
      take(*r);
      return r;
    }
  }
  Region* record = make_room(page_end - page);
  if (record == nullptr) return nullptr;
  Region* region = register_into(record, page, page_end, access);
  region->hash_next = buckets_[bucket];
  buckets_[bucket] = region;
  return region;
}

void DmeCache::unlink_lookup(Region& region) noexcept {
  Region** link = &buckets_[bucket_of(region.start)];
  while (*link != nullptr && *link != &region) link = &(*link)->hash_next;
  if (*link == &region) *link = region.hash_next;
  region.hash_next = nullptr;
}

}  // namespace twinfab::mpi::regcache
