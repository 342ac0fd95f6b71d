// Internal: a table from ids handed out in increasing order (QP numbers, memory keys
// of one HCA) to objects, laid out for the simulator's hot path.
//
// Every simulated message looks up its QPs and memory regions by number. With
// thousands of ranks, each rank's state is cold in the CPU's caches when its turn
// comes, so what a lookup costs is the cache lines it touches: a std::unordered_map
// reads its bucket array, then a node allocated elsewhere. Here the entries are one
// sorted array, id and pointer side by side, and a lookup reads one entry.
//
// Ids must be added in increasing order (the HCA never reuses one), which keeps the
// array sorted by appending. A removed id leaves a tombstone (null pointer) so that
// removal costs no move; the array is compacted once tombstones outnumber live
// entries, so it holds at most twice the live entries. The HCA hands its ids out
// consecutively, so until a compaction the entry of id i sits at i - (first id): a
// lookup tries there first (O(1), one cache line) and otherwise searches the entries
// before it (O(log n)).
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
    const std::size_t i = index_of(id);
    return i != kNone ? entries_[i].value : nullptr;
  }

  /// Removes `id` (nothing when absent).
  void remove(uint32_t id) noexcept {
    const std::size_t i = index_of(id);
    if (i == kNone || entries_[i].value == nullptr) return;
    entries_[i].value = nullptr;
    --live_;
    if (entries_.size() - live_ > live_) compact();
  }

  /// Live entries.
  std::size_t size() const noexcept { return live_; }

  /// Calls f(T*) for every live entry, in id order.
  template <class F>
  void for_each(F&& f) const {
    for (const Entry& e : entries_)
      if (e.value != nullptr) f(e.value);
  }

 private:
  struct Entry {
    uint32_t id;
    T* value;  ///< null: removed
  };

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  /// Where `id`'s entry is, or kNone.
  std::size_t index_of(uint32_t id) const noexcept {
    if (entries_.empty() || id < entries_.front().id) return kNone;
    // Ids are strictly increasing, so id's entry is at most id - first places in.
    const std::size_t guess = id - entries_.front().id;
    if (guess < entries_.size() && entries_[guess].id == id) return guess;
    const auto end = entries_.begin() + static_cast<std::ptrdiff_t>(std::min(guess, entries_.size()));
    const auto it = std::lower_bound(entries_.begin(), end, id, [](const Entry& e, uint32_t key) { return e.id < key; });
    return it != end && it->id == id ? static_cast<std::size_t>(it - entries_.begin()) : kNone;
  }

  void compact() {
    std::erase_if(entries_, [](const Entry& e) { return e.value == nullptr; });
    if (entries_.capacity() > 4 * entries_.size() + 16) entries_.shrink_to_fit();
  }

  std::vector<Entry> entries_;
  std::size_t live_ = 0;
};

}  // namespace twinfab::sim
