// The HCA's on-chip cache of QP contexts (InfiniBand Context Memory), seed 004 3.2.1.
//
// An LRU over QPs with a fixed number of entries. Every work request and every
// incoming packet touches its QP's context; a miss costs a PCIe fetch from host memory
// (the platform's icm_miss_penalty). Ranks on one host share their HCA's cache, which
// is why many-connection runs with RC see latency grow once the working set of QPs
// exceeds the cache.
//
// The LRU list runs through the QPs themselves (an Entry embedded in each), where a
// hash map and a separately allocated list cost several cache misses per packet at
// thousands of ranks. Until the cache first fills up no context can be evicted, so
// the order does not matter yet: a hit then only stamps its entry with the time of
// the touch (a counter), and the list is put in stamp order once, when the first
// eviction needs it; from then on every hit moves its entry to the front. Evictions
// are exactly those of a strict LRU either way, and a rank whose QPs fit (thousands of
// simulated ranks, one per HCA) touches only the QP it works on, not its neighbours
// in the list (other QPs' memory, cold at scale).
#pragma once

#include <cstdint>

namespace twinfab::sim {

class IcmCache {
 public:
  /// A QP's place in its HCA's cache. Lives in the QP; the QP must be erase()d from
  /// the cache before it goes away (SimHca::remove_qp does).
  class Entry {
   public:
    Entry() = default;
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;
    /// True while this context is in the cache.
    bool cached() const noexcept { return prev_ != nullptr; }

   private:
    friend class IcmCache;
    Entry* prev_ = nullptr;  // towards the most recently used end; null when not cached
    Entry* next_ = nullptr;  // towards the least recently used end
    uint64_t stamp_ = 0;     // when it was last touched (IcmCache::clock_)
  };

  /// capacity 0 disables the model: every lookup is a hit.
  explicit IcmCache(uint32_t capacity) : capacity_(capacity) { head_.prev_ = head_.next_ = &head_; }
  IcmCache(const IcmCache&) = delete;  // the list's ends point at head_
  IcmCache& operator=(const IcmCache&) = delete;

  /// Touches `e`'s context; returns true on a hit. On a miss the context is loaded,
  /// evicting the least recently used one when full.
  bool touch(Entry& e);
  /// Drops a context (a destroyed QP); nothing happens if it is not cached.
  void erase(Entry& e);

  uint64_t hits() const noexcept { return hits_; }
  uint64_t misses() const noexcept { return misses_; }
  uint32_t capacity() const noexcept { return capacity_; }
  void reset_counters() noexcept { hits_ = misses_ = 0; }
  uint32_t size() const noexcept { return size_; }

 private:
  void unlink(Entry& e);
  void link_front(Entry& e);
  /// Relinks the list by stamp, most recent first (at the first eviction).
  void order_by_stamp();

  uint32_t capacity_;
  uint32_t size_ = 0;
  uint64_t clock_ = 0;
  /// Whether the list is in LRU order (head_.next_ the most recently used, head_.prev_
  /// the least); before the first eviction it is in insertion order and the stamps
  /// alone say which context was used when.
  bool ordered_ = false;
  Entry head_;  // sentinel of the list of cached contexts
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace twinfab::sim
