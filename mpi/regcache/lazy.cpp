#include "mpi/regcache/lazy.hpp"

#include <algorithm>
#include <vector>

namespace twinfab::mpi::regcache {

Region* LazyCache::lookup_or_register(std::uintptr_t start, std::uintptr_t end, fabric::Access access) {
  // The tree holds disjoint areas, so only the last area starting at or before
  // `start` can contain it (or overlap its beginning).
  auto it = index_.upper_bound(start);
  if (it != index_.begin()) {
    auto prev = std::prev(it);
    Region& y = *prev->second;
    if (compare_areas(start, end, y.start, y.end) == AreaOrder::Equal && y.start <= start && end <= y.end &&
        fabric::has(y.access, access)) {
      take(y);  // case 1: subset
      return &y;
    }
    if (y.end > start) it = prev;  // it intersects: part of case 3
  }
  // Every area intersecting [start, end), in address order.
  std::vector<Region*> overlapping;
  for (; it != index_.end() && it->first < end; ++it) overlapping.push_back(it->second);
  std::uintptr_t lo = start;
  std::uintptr_t hi = end;
  fabric::Access merged = access;
  if (!overlapping.empty()) {
    // Case 3: the covering superset, with every access the old areas granted.
    ++supersets_;
    lo = std::min(lo, overlapping.front()->start);
    hi = std::max(hi, overlapping.back()->end);
    for (Region* r : overlapping) {
      merged = merged | r->access;
      retire(*r);  // out of the tree; deregistered now if unused, else at its last release
    }
  }
  // Case 2 (or the superset of case 3).
  Region* record = make_room(hi - lo);
  if (record == nullptr) return nullptr;
  return register_into(record, lo, hi, merged);
}

}  // namespace twinfab::mpi::regcache
