// Internal: a growable FIFO ring for the simulated HCA's work queues.
//
// Why not std::vector with a head index (what the queues had) or std::deque: a work
// queue of a connection in steady state holds a fixed number of entries that are
// popped at the front and pushed at the back. A vector with a head index grows to
// several times that before it compacts, and reallocations leave freed blocks
// behind; a deque allocates a map and a 512-byte node even when empty and a node
// per few entries. With thousands of simulated ranks, each with a few QPs, those
// bytes are most of the simulator's memory per rank. A ring holds exactly the
// entries in flight (growing by doubling up to the queue's limit, e.g. a QP's
// max_recv_wr), and never moves them while its capacity suffices.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace twinfab::sim {

template <typename T>
class RingQueue {
 public:
  /// `limit`: the most entries the owner will ever push (it rejects more itself);
  /// the capacity never exceeds it.
  explicit RingQueue(std::size_t limit = 0) noexcept : limit_(limit) {}
  /// A moved-from ring is empty (and keeps no storage).
  RingQueue(RingQueue&& other) noexcept
      : slots_(std::move(other.slots_)),
        limit_(other.limit_),
        capacity_(std::exchange(other.capacity_, 0)),
        head_(std::exchange(other.head_, 0)),
        size_(std::exchange(other.size_, 0)) {}
  RingQueue& operator=(RingQueue&& other) noexcept {
    slots_ = std::move(other.slots_);
    limit_ = other.limit_;
    capacity_ = std::exchange(other.capacity_, 0);
    head_ = std::exchange(other.head_, 0);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  /// The `i`-th entry from the front (0 is the oldest).
  T& operator[](std::size_t i) noexcept { return slots_[wrap(head_ + i)]; }
  const T& operator[](std::size_t i) const noexcept { return slots_[wrap(head_ + i)]; }
  T& front() noexcept { return (*this)[0]; }
  const T& front() const noexcept { return (*this)[0]; }

  void push_back(T value) {
    if (size_ == capacity_) grow();
    slots_[wrap(head_ + size_)] = std::move(value);
    ++size_;
  }

  T pop_front() {
    T value = std::move(slots_[head_]);
    head_ = wrap(head_ + 1);
    --size_;
    return value;
  }

  /// Forgets every entry and gives the storage back.
  void clear() noexcept {
    slots_.reset();
    capacity_ = head_ = size_ = 0;
  }

 private:
  std::size_t wrap(std::size_t index) const noexcept { return index >= capacity_ ? index - capacity_ : index; }

  void grow() {
    // Starts at 4, which the queue of a rank that sends one message at a time never
    // outgrows; doubles up to the limit (then exactly the limit).
    std::size_t capacity = capacity_ == 0 ? 4 : capacity_ * 2;
    if (limit_ > capacity_ && capacity > limit_) capacity = limit_;
    auto slots = std::make_unique<T[]>(capacity);
    for (std::size_t i = 0; i < size_; ++i) slots[i] = std::move((*this)[i]);
    slots_ = std::move(slots);
    capacity_ = capacity;
    head_ = 0;
  }

  std::unique_ptr<T[]> slots_;
  std::size_t limit_ = 0;  ///< 0: none
  std::size_t capacity_ = 0;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace twinfab::sim
