// twinfab MPI channels: page-granular, lazily backed memory for packet buffers.
//
// Why: a channel's buffers are large (a connection's receive memory is 33 x 8 KB,
// the shared send buffers 256 x 8 KB) but a stream of small packets touches only
// their first bytes (the packed head slots and small send buffers; rc_channel.hpp).
// Pages that are never written cost no memory, which is what lets thousands of
// simulated ranks share one process. So the memory comes straight from mmap: not
// initialized, page-aligned (a connection's 33 head slots of 120 bytes fill one page
// instead of straddling two), and without an allocator's chunk headers and trailers,
// which on a heap block of this size dirty a page at each end that nothing else uses.
// If mmap fails (e.g. the process ran out of mappings), page-aligned operator new.
#pragma once

#include <cstddef>
#include <utility>

namespace twinfab::mpi {

/// Owns one block of buffer memory (move-only).
class BufferStorage {
 public:
  BufferStorage() = default;
  /// `bytes` of uninitialized, page-aligned memory (std::bad_alloc when there is none).
  explicit BufferStorage(std::size_t bytes);
  ~BufferStorage();
  BufferStorage(BufferStorage&& other) noexcept { swap(other); }
  BufferStorage& operator=(BufferStorage&& other) noexcept {
    BufferStorage(std::move(other)).swap(*this);
    return *this;
  }

  std::byte* get() const noexcept { return data_; }
  /// Makes the memory read as zeros without touching it where possible: fresh pages
  /// from mmap are zero already (and stay unbacked until written); the fallback's
  /// memory is cleared.
  void zero() noexcept;
  explicit operator bool() const noexcept { return data_ != nullptr; }

 private:
  void swap(BufferStorage& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    std::swap(mapped_, other.mapped_);
  }

  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool mapped_ = false;
};

}  // namespace twinfab::mpi
