// twinfab MPI: a first-in first-out queue that costs nothing until it is used.
//
// Why: a rank keeps queues per peer (UD's packets in flight and packets waiting for
// the window), and libstdc++'s std::deque allocates a map and a 512-byte node when it
// is constructed, empty or not: ~1.1 KB per peer for two of them, which at thousands
// of peers per rank (an all-to-all, a barrier at 16,384 simulated ranks) is most of
// the rank's memory. This one is a vector read from a moving head: empty, it holds no
// memory; popped empty, it keeps its capacity for the next burst.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace twinfab::mpi {

template <class T>
class LazyFifo {
 public:
  bool empty() const noexcept { return head_ == items_.size(); }
  std::size_t size() const noexcept { return items_.size() - head_; }

  T& front() noexcept { return items_[head_]; }
  const T& front() const noexcept { return items_[head_]; }
  T& back() noexcept { return items_.back(); }
  const T& back() const noexcept { return items_.back(); }
  /// The i-th element from the front.
  T& operator[](std::size_t i) noexcept { return items_[head_ + i]; }
  const T& operator[](std::size_t i) const noexcept { return items_[head_ + i]; }

  void push_back(T value) {
    make_room();
    items_.push_back(std::move(value));
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    make_room();
    return items_.emplace_back(std::forward<Args>(args)...);
  }
  void pop_front() {
    // What the element holds goes now, not when the queue next empties.
    if constexpr (std::is_default_constructible_v<T> && std::is_move_assignable_v<T>) items_[head_] = T{};
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    }
  }

  auto begin() noexcept { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  auto end() noexcept { return items_.end(); }
  auto begin() const noexcept { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  auto end() const noexcept { return items_.end(); }

 private:
  /// Before a push: when the popped front is at least half the storage, slide the
  /// live elements down, so that a queue that never empties stays bounded.
  void make_room() {
    if (head_ >= 16 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace twinfab::mpi
