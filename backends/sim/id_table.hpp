// Internal: a table from ids handed out in increasing order (QP numbers, memory keys
// of one HCA) to objects, laid out for the simulator's hot path.
//
// Every simulated message looks up its QPs and memory regions by number. With
// thousands of ranks, each rank's state is cold in the CPU's caches when its turn
// comes, so what a lookup costs is the cache lines it touches: a std::unordered_map
// reads its bucket array, then a node allocated elsewhere. Here the entries are one
// sorted array, id and pointer side by side: an HCA with a few QPs and regions finds
// any of them in the array's first line.
//
// Ids must be added in increasing order (the HCA never reuses one), which keeps the
// array sorted by appending. A removed id leaves a tombstone (null pointer) so that
// removal costs no move; the array is compacted once tombstones outnumber live
// entries, so it holds at most twice the live entries and every operation is
// amortised O(1) except find, O(log n).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace twinfab::sim {

template <class T>
class IdTable {
 public:
  /// Adds `id` -> `value`; `id` must exceed every id added before.
  void add(uint32_t id, T* value) {
    assert(entries_.empty() || entries_.back().id < id);
    entries_.push_back(Entry{id, value});
    ++live_;
  }

  /// The object of `id`, or null when there is none (never added, or removed).
  T* find(uint32_t id) const noexcept {
    const Entry* e = locate(id);
    return e != nullptr ? e->value : nullptr;
  }

  /// Removes `id` (nothing when absent).
  void remove(uint32_t id) noexcept {
    Entry* e = const_cast<Entry*>(locate(id));
    if (e == nullptr || e->value == nullptr) return;
    e->value = nullptr;
    --live_;
    if (entries_.size() - live_ > live_) compact();
  }

  /// Live entries.
  std::size_t size() const noexcept { return live_; }

 private:
  struct Entry {
    uint32_t id;
    T* value;  ///< null: removed
  };

  const Entry* locate(uint32_t id) const noexcept {
    // A few entries (the common case: one rank's QPs and regions) share a cache line
    // or two; scanning them beats the branches of a binary search.
    constexpr std::size_t kScan = 8;
    if (entries_.size() <= kScan) {
      for (const Entry& e : entries_)
        if (e.id == id) return &e;
      return nullptr;
    }
    auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                               [](const Entry& e, uint32_t key) { return e.id < key; });
    return it != entries_.end() && it->id == id ? &*it : nullptr;
  }

  void compact() {
    std::erase_if(entries_, [](const Entry& e) { return e.value == nullptr; });
    if (entries_.capacity() > 4 * entries_.size() + 16) entries_.shrink_to_fit();
  }

  std::vector<Entry> entries_;
  std::size_t live_ = 0;
};

}  // namespace twinfab::sim
