// The HCA's on-chip cache of QP contexts (InfiniBand Context Memory), seed 004 3.2.1.
//
// An LRU over QP numbers with a fixed number of entries. Every work request and every
// incoming packet touches its QP's context; a miss costs a PCIe fetch from host memory
// (the platform's icm_miss_penalty). Ranks on one host share their HCA's cache, which
// is why many-connection runs with RC see latency grow once the working set of QPs
// exceeds the cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>

namespace twinfab::sim {

class IcmCache {
 public:
  /// capacity 0 disables the model: every lookup is a hit.
  explicit IcmCache(uint32_t capacity) : capacity_(capacity) {}

  /// Touches `qpn`'s context; returns true on a hit. On a miss the context is loaded,
  /// evicting the least recently used one when full.
  bool touch(uint32_t qpn);
  /// Drops a destroyed QP's context.
  void erase(uint32_t qpn);

  uint64_t hits() const noexcept { return hits_; }
  uint64_t misses() const noexcept { return misses_; }
  uint32_t capacity() const noexcept { return capacity_; }
  void reset_counters() noexcept { hits_ = misses_ = 0; }
  size_t size() const noexcept { return index_.size(); }

 private:
  uint32_t capacity_;
  std::list<uint32_t> lru_;  // front = most recently used
  std::unordered_map<uint32_t, std::list<uint32_t>::iterator> index_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace twinfab::sim
