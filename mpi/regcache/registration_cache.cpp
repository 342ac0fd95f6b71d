// The machinery the engines share: record pool and free list, the unused LRU list,
// eviction, retirement of unmapped regions; and the "no cache" baseline.
#include "mpi/regcache/registration_cache.hpp"

#include <fmt/format.h>


#include "mpi/regcache/dme.hpp"
#include "mpi/regcache/lazy.hpp"

namespace twinfab::mpi::regcache {

using fabric::Error;
using fabric::Status;

std::string_view to_string(CacheKind kind) noexcept {
  switch (kind) {
    case CacheKind::None: return "none";
    case CacheKind::Dme: return "dme";
    case CacheKind::Lazy: return "lazy";
  }
  return "?";
}

RegistrationCache::RegistrationCache(fabric::Device& device, const Limits& limits)
    : device_(device), limits_(limits) {
  if (limits.max_entries == 0) throw Error(Status::InvalidArgument, "registration cache: max_entries must be >= 1");
  if (limits.max_bytes == 0) throw Error(Status::InvalidArgument, "registration cache: max_bytes must be >= 1");
  if (limits.page_size == 0 || (limits.page_size & (limits.page_size - 1)) != 0)
    throw Error(Status::InvalidArgument,
                fmt::format("registration cache: page_size {} is not a power of two", limits.page_size));
  add_invalidation_target(this);
}

RegistrationCache::~RegistrationCache() {
  remove_invalidation_target(this);
  // Regions still referenced at this point belong to transfers that never finished;
  // their memory regions go with the cache (a deregistration, as at process exit).
  for (Region& r : records_) {
    if (r.mr) ++counters_.deregistrations;
    r.mr.reset();
  }
}

Region* RegistrationCache::acquire(const void* addr, std::size_t length, fabric::Access access) {
  if (addr == nullptr || length == 0)
    throw Error(Status::InvalidArgument,
                fmt::format("registration cache: cannot register {} (address {}, length {})",
                            addr == nullptr ? "a null buffer" : "a zero-length buffer", addr, length));
  const auto start = reinterpret_cast<std::uintptr_t>(addr);
  if (start + length < start)
    throw Error(Status::InvalidArgument,
                fmt::format("registration cache: range at {} of {} bytes wraps the address space", addr, length));
  collect_dead();
  if (length > limits_.max_bytes) {
    ++counters_.too_large;
    return nullptr;
  }
  return lookup_or_register(start, start + length, access);
}

void RegistrationCache::release(Region* region) {
  // Checked in every build, not only debug ones: two compares next to the hit path's
  // list updates, and a double release would otherwise free a region in flight.
  if (region == nullptr) throw Error(Status::InvalidArgument, "registration cache: release of a null region");
  if (!region->in_use_record || region->refs == 0)
    throw Error(Status::InvalidArgument,
                fmt::format("registration cache: region [{:#x}, {:#x}) released twice (or after it was freed)",
                            region->start, region->end));
  collect_dead();
  if (--region->refs != 0) return;
  if (region->invalid) {
    destroy(*region);
    return;
  }
  if (!keeps_unused()) {  // the no-cache baseline: deregister after every transfer
    unlink_lookup(*region);
    erase_index(*region);
    destroy(*region);
    return;
  }
  unused_push_front(*region);  // seed 000: entries enter at the head of the unused list
}

void RegistrationCache::invalidate(std::uintptr_t start, std::uintptr_t end) noexcept {
  if (index_.empty()) return;
  // Regions may overlap each other (DME), so any region starting up to the longest
  // region's length before `start` may reach into [start, end).
  const std::uintptr_t from = start > max_region_length_ ? start - max_region_length_ : 0;
  for (auto it = index_.lower_bound(from); it != index_.end() && it->first < end;) {
    Region& r = *it->second;
    ++it;  // retire() erases r's node
    if (r.end <= start) continue;
    ++counters_.invalidations;
    if (r.refs == 0) {
      // Not inside a hook: the device may not be callable here (sim: another actor's
      // context; verbs: inside munmap). Deregister at the next acquire/release.
      unlink_lookup(r);
      erase_index(r);
      r.invalid = true;
      unused_remove(r);
      dead_.push_back(&r);
    } else {
      unlink_lookup(r);
      erase_index(r);
      r.invalid = true;  // deregistered by the last release
    }
  }
}

std::vector<const Region*> RegistrationCache::unused_order() const {
  std::vector<const Region*> out;
  for (const Region* r = unused_head_; r != nullptr; r = r->unused_next) out.push_back(r);
  return out;
}

void RegistrationCache::take(Region& region) noexcept {
  if (region.on_unused) unused_remove(region);
  ++region.refs;
  ++counters_.hits;
}

Region* RegistrationCache::make_room(std::uint64_t bytes_needed) {
  if (bytes_needed > limits_.max_bytes) {
    ++counters_.too_large;
    return nullptr;
  }
  // Seed 000: evict from the tail of the unused list (least recently released) while
  // there is no free record, or (our byte limit) too many bytes are pinned.
  // Records are created on demand, up to max_entries (a simulation of many ranks
  // must not pay for records it never uses).
  if (free_list_ == nullptr && records_.size() < limits_.max_entries) {
    records_.emplace_back();
    dead_.reserve(records_.size());  // invalidate() (inside a hook) must not allocate
    Region& fresh = records_.back();
    fresh.hash_next = free_list_;
    free_list_ = &fresh;
    ++free_count_;
  }
  while (free_list_ == nullptr || pinned_bytes_ + bytes_needed > limits_.max_bytes) {
    Region* victim = unused_tail_;
    if (victim == nullptr) {
      ++counters_.no_resource;
      return nullptr;
    }
    ++counters_.evictions;
    unused_remove(*victim);
    unlink_lookup(*victim);
    erase_index(*victim);
    destroy(*victim);
  }
  Region* record = free_list_;
  free_list_ = record->hash_next;
  record->hash_next = nullptr;
  --free_count_;
  record->in_use_record = true;
  return record;
}

Region* RegistrationCache::register_into(Region* record, std::uintptr_t start, std::uintptr_t end,
                                         fabric::Access access) {
  try {
    record->mr = device_.register_memory(reinterpret_cast<void*>(start), end - start, access);
  } catch (...) {
    destroy(*record);
    throw;
  }
  ++counters_.misses;
  ++counters_.registrations;
  counters_.bytes_registered += end - start;
  pinned_bytes_ += end - start;
  record->start = start;
  record->end = end;
  record->access = access;
  record->refs = 1;
  record->invalid = false;
  index_.emplace(start, record);
  max_region_length_ = std::max(max_region_length_, end - start);
  return record;
}

void RegistrationCache::destroy(Region& region) noexcept {
  if (region.mr) {
    region.mr.reset();
    ++counters_.deregistrations;
    pinned_bytes_ -= region.end - region.start;
  }
  region.refs = 0;
  region.invalid = false;
  region.in_use_record = false;
  region.start = region.end = 0;
  region.hash_next = free_list_;
  free_list_ = &region;
  ++free_count_;
}

void RegistrationCache::retire(Region& region) noexcept {
  unlink_lookup(region);
  erase_index(region);
  if (region.refs == 0) {
    unused_remove(region);
    destroy(region);
  } else {
    region.invalid = true;
  }
}

void RegistrationCache::unused_push_front(Region& region) noexcept {
  region.unused_prev = nullptr;
  region.unused_next = unused_head_;
  if (unused_head_ != nullptr) unused_head_->unused_prev = &region;
  unused_head_ = &region;
  if (unused_tail_ == nullptr) unused_tail_ = &region;
  region.on_unused = true;
}

void RegistrationCache::unused_remove(Region& region) noexcept {
  if (!region.on_unused) return;
  if (region.unused_prev != nullptr) region.unused_prev->unused_next = region.unused_next;
  else unused_head_ = region.unused_next;
  if (region.unused_next != nullptr) region.unused_next->unused_prev = region.unused_prev;
  else unused_tail_ = region.unused_prev;
  region.unused_prev = region.unused_next = nullptr;
  region.on_unused = false;
}

void RegistrationCache::erase_index(Region& region) noexcept {
  auto [it, end] = index_.equal_range(region.start);
  for (; it != end; ++it) {
    if (it->second == &region) {
      index_.erase(it);
      return;
    }
  }
}

void RegistrationCache::collect_dead() noexcept {
  if (dead_.empty()) return;
  for (Region* r : dead_) destroy(*r);
  dead_.clear();
}

namespace {

/// Register before, deregister after every transfer (seed 000's "RDMA without DME").
class NoCache final : public RegistrationCache {
 public:
  using RegistrationCache::RegistrationCache;
  CacheKind kind() const noexcept override { return CacheKind::None; }

 protected:
  Region* lookup_or_register(std::uintptr_t start, std::uintptr_t end, fabric::Access access) override {
    Region* record = make_room(end - start);
    if (record == nullptr) return nullptr;
    return register_into(record, start, end, access);
  }
  void unlink_lookup(Region&) noexcept override {}
  bool keeps_unused() const noexcept override { return false; }
};

}  // namespace

std::unique_ptr<RegistrationCache> make_cache(CacheKind kind, fabric::Device& device, const Limits& limits) {
  switch (kind) {
    case CacheKind::None: return std::make_unique<NoCache>(device, limits);
    case CacheKind::Dme: return std::make_unique<DmeCache>(device, limits);
    case CacheKind::Lazy: return std::make_unique<LazyCache>(device, limits);
  }
  throw Error(Status::InvalidArgument, "registration cache: unknown kind");
}

}  // namespace twinfab::mpi::regcache
