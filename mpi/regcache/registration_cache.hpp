// twinfab MPI regcache: registration caches for user buffers (rendezvous transfers).
//
// One interface, three implementations chosen at run time (make_cache):
//
//  - None: registers on every acquire and deregisters on every release, the baseline
//    seed 000 §IV.A measures ("RDMA without DME").
//  - Dme: the Dynamic Memory Engine of seed 000 §III.H.2 (dme.cpp): a hash table with
//    chains on the page base address, a fixed pool of memory entry records with
//    reference counts, a free list, and an unused list with LRU eviction.
//  - Lazy: the lazy memory engine of seed 002 §3.2 (lazy.cpp): a balanced search tree
//    of non-overlapping registered areas, found with the seed's interval comparison
//    (subset -> hit, disjoint -> new registration, partial overlap -> register the
//    covering superset), with use counts so that an area in flight is never
//    deregistered.
//
// Contract:
//  - acquire(addr, length, access) returns a Region covering [addr, addr + length)
//    with at least `access`, and holds one reference on it until release(). It
//    returns nullptr (counted) when the cache cannot take the area: larger than the
//    pin limit (`too_large`), or every record / every pinned byte is held by regions
//    in flight (`no_resource`, the NULL of seed 000). The caller then falls back to
//    registering for this one transfer (CachedRegistration does).
//  - Bad input (null address, zero length, a range that wraps the address space)
//    throws fabric::Error(InvalidArgument) with a message; nothing is changed.
//    A refusal of the device propagates as the device's fabric::Error.
//  - release(region) drops the reference. Releasing a region twice is detected in
//    every build, debug or not: fabric::Error(InvalidArgument, "released twice");
//    records live as long as the cache, so the check reads valid memory. (A region
//    of another cache is only caught when it is not in use there.)
//  - invalidate(start, end) (called by the memory hooks, memory_hooks.hpp, when memory
//    is unmapped) removes every overlapping region from the lookup structure: no later
//    acquire can hit it. Unused ones are deregistered at the next acquire/release
//    (never inside the hook, which may run in any context); regions in flight are
//    deregistered when their last reference goes.
//
// A cache belongs to one rank (one simulated actor, or the process on hardware) and is
// not thread-safe; only invalidate() may come from a hook, under the hook registry's
// lock (see memory_hooks.hpp for the limits of that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory_resource>
#include <memory>
#include <string_view>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/error.hpp"
#include "mpi/regcache/memory_hooks.hpp"

namespace twinfab::mpi::regcache {

enum class CacheKind : std::uint8_t { None, Dme, Lazy };
std::string_view to_string(CacheKind kind) noexcept;

/// Limits; both are upper bounds the cache never exceeds with regions it keeps.
struct Limits {
  std::size_t max_entries = 4096;              ///< memory entry records (>= 1)
  std::uint64_t max_bytes = 4ull << 30;        ///< bytes pinned by cached regions (>= 1)
  std::uint64_t page_size = 4096;              ///< DME hashes and rounds on this (power of 2)
};

struct Counters {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;              ///< acquires that registered
  std::uint64_t evictions = 0;           ///< unused regions deregistered to make room
  std::uint64_t invalidations = 0;       ///< regions dropped because their memory was unmapped
  std::uint64_t registrations = 0;       ///< device registrations made
  std::uint64_t deregistrations = 0;
  std::uint64_t bytes_registered = 0;    ///< sum of the lengths of the device registrations
  std::uint64_t too_large = 0;           ///< acquires refused: area above max_bytes
  std::uint64_t no_resource = 0;         ///< acquires refused: nothing evictable
  std::uint64_t fallbacks = 0;           ///< transfers registered outside the cache (CachedRegistration)
};

/// One cached registration (a memory entry record). Owned by its cache; callers only
/// read `mr` and `access` between acquire and release. One cache line: a hit touches
/// the record and its unused-list neighbours, nothing else.
struct alignas(64) Region {
  std::uintptr_t start = 0;  ///< registered range [start, end)
  std::uintptr_t end = 0;
  std::unique_ptr<fabric::MemoryRegion> mr;
  // Unused list (LRU, head = most recently released), intrusive.
  Region* unused_prev = nullptr;
  Region* unused_next = nullptr;
  // DME hash chain; the free list while the record is free.
  Region* hash_next = nullptr;
  std::uint32_t refs = 0;
  fabric::Access access{};
  bool in_use_record = false;  ///< false while on the free list
  bool invalid = false;        ///< unmapped: out of the lookup structure, deregister when unused
  bool on_unused = false;
};
static_assert(sizeof(Region) == 64, "a memory entry record is one cache line");

class RegistrationCache : public InvalidationTarget {
 public:
  RegistrationCache(fabric::Device& device, const Limits& limits);
  ~RegistrationCache() override;
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;

  /// See the file comment. nullptr: not cacheable now (fall back).
  Region* acquire(const void* addr, std::size_t length, fabric::Access access);
  void release(Region* region);

  void invalidate(std::uintptr_t start, std::uintptr_t end) noexcept override;

  const Counters& counters() const noexcept { return counters_; }
  Counters& counters() noexcept { return counters_; }
  const Limits& limits() const noexcept { return limits_; }
  /// Regions the cache holds (in use, unused, or invalid awaiting deregistration).
  std::size_t regions() const noexcept { return records_.size() - free_count_; }
  std::uint64_t pinned_bytes() const noexcept { return pinned_bytes_; }
  /// Regions on the unused list, most recently released first (tests).
  std::vector<const Region*> unused_order() const;
  virtual CacheKind kind() const noexcept = 0;

 protected:
  /// The engine's lookup and insertion (acquire after argument checks and the
  /// deregistration of dead regions). [start, end) is the caller's exact range.
  virtual Region* lookup_or_register(std::uintptr_t start, std::uintptr_t end, fabric::Access access) = 0;
  /// Removes `region` from the engine's lookup structure (hash chain; tree is the index).
  virtual void unlink_lookup(Region& region) noexcept = 0;
  /// False for the no-cache baseline: the last release deregisters.
  virtual bool keeps_unused() const noexcept { return true; }

  // ---- shared machinery for the engines
  /// A hit: one more reference; off the unused list.
  void take(Region& region) noexcept;
  /// A record for a new registration of [start, end) holding `bytes_needed` more
  /// pinned bytes: from the free list, or by evicting the LRU unused region.
  /// nullptr (counted no_resource / too_large) when impossible.
  Region* make_room(std::uint64_t bytes_needed);
  /// Registers [start, end) into `record` (from make_room), counts it, holds one
  /// reference, and enters it in the index. On a device error the record is freed
  /// and the error rethrown.
  Region* register_into(Region* record, std::uintptr_t start, std::uintptr_t end, fabric::Access access);
  /// Deregisters `region` and returns its record to the free list.
  void destroy(Region& region) noexcept;
  /// Takes `region` out of lookup and index; deregisters it now if unused, else when
  /// its last reference goes.
  void retire(Region& region) noexcept;
  void unused_push_front(Region& region) noexcept;
  void unused_remove(Region& region) noexcept;
  /// Removes `region` from index_ (O(log n): the miss and invalidation paths only).
  void erase_index(Region& region) noexcept;
  /// Deregisters the regions the hooks invalidated while unused.
  void collect_dead() noexcept;

  fabric::Device& device_;
  const Limits limits_;
  Counters counters_;
  /// Tree nodes come from a pool, packed together rather than spread over the heap:
  /// a lookup's path stays in fewer cache lines (lazy hit at 8192 entries).
  std::pmr::unsynchronized_pool_resource node_pool_;
  std::pmr::multimap<std::uintptr_t, Region*> index_{&node_pool_};  ///< by start; lazy: the search tree
  std::uintptr_t max_region_length_ = 0;          ///< for range queries on index_

 private:
  std::deque<Region> records_;    ///< grows on demand to max_entries; addresses stable
  Region* free_list_ = nullptr;  ///< chained through hash_next
  std::size_t free_count_ = 0;
  Region* unused_head_ = nullptr;
  Region* unused_tail_ = nullptr;
  std::vector<Region*> dead_;    ///< invalidated while unused, deregister soon
  std::uint64_t pinned_bytes_ = 0;
};

/// Builds the cache of `kind`.
std::unique_ptr<RegistrationCache> make_cache(CacheKind kind, fabric::Device& device, const Limits& limits);

}  // namespace twinfab::mpi::regcache
