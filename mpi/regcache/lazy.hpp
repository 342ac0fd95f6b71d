// twinfab MPI regcache: the lazy memory engine of seed 002 §3.2 (the LAM/MPI VIA RPI).
//
// Registered areas stay registered after a transfer ("lazy" deregistration), kept in
// a balanced binary search tree so that lookups take O(log n) and areas that
// interleave are handled (a hash on the start address cannot: seed 002 fig. 2).
//
// The seed orders areas x, y by
//     x < y  <=>  sa(x) <  sa(y) and ea(x) <= ea(y)
//     x > y  <=>  sa(x) >= sa(y) and ea(x) >  ea(y)
//     x = y  otherwise (one contains the other)
// (compare_areas below), and distinguishes three cases for a new area (fig. 3):
//  1. subset: the new area lies inside a registered one -> a hit, one more use;
//  2. disjoint: no registered area intersects it -> register it, insert it;
//  3. partial overlap (or the new area contains old ones): "the appropriate superset
//     of memory has to be registered in order to retrieve a valid handle" -> register
//     the union of the new area and every area it intersects, and take those out of
//     the tree; each is deregistered at once if unused, or when its use count drops
//     to zero ("deregistration is only possible if no data transfer is going on").
// The tree therefore always holds disjoint areas, which makes the order a strict
// weak order on its contents: twinfab uses std::multimap keyed by the start address
// (a red-black tree; for disjoint areas, ordering by start equals the seed's order)
// and finds the only area that can contain `start` as the predecessor of
// upper_bound(start), then walks the successors that begin before `end`.
//
// Additions to the seed: record and byte limits with LRU eviction of unused areas
// (the DME's unused list; the seed's engine grows without bound), and invalidation
// by the memory hooks instead of the seed's "memory areas stay allocated after free()".
#pragma once

#include "mpi/regcache/registration_cache.hpp"

namespace twinfab::mpi::regcache {

enum class AreaOrder { Less, Equal, Greater };
/// Seed 002's comparison of two areas [sa, ea) (ea exclusive here; the order of the
/// seed is unchanged by that). Equal means one contains the other.
constexpr AreaOrder compare_areas(std::uintptr_t sa_x, std::uintptr_t ea_x, std::uintptr_t sa_y,
                                  std::uintptr_t ea_y) noexcept {
  if (sa_x < sa_y && ea_x <= ea_y) return AreaOrder::Less;
  if (sa_x >= sa_y && ea_x > ea_y) return AreaOrder::Greater;
  return AreaOrder::Equal;
}

class LazyCache final : public RegistrationCache {
 public:
  using RegistrationCache::RegistrationCache;
  CacheKind kind() const noexcept override { return CacheKind::Lazy; }
  /// Superset registrations made because a new area overlapped old ones (case 3).
  std::uint64_t supersets() const noexcept { return supersets_; }

 protected:
  Region* lookup_or_register(std::uintptr_t start, std::uintptr_t end, fabric::Access access) override;
  void unlink_lookup(Region&) noexcept override {}  // the tree is the base's index

 private:
  std::uint64_t supersets_ = 0;
};

}  // namespace twinfab::mpi::regcache
