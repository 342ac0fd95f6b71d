#include "mpi/channels/buffer_storage.hpp"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "mpi/regcache/memory_hooks.hpp"

namespace twinfab::mpi {

namespace {
/// The fallback's alignment: the smallest page size of the platforms we run on.
constexpr std::align_val_t kFallbackAlignment{4096};
}  // namespace

BufferStorage::BufferStorage(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) {
    data_ = static_cast<std::byte*>(p);
    mapped_ = true;
  } else {
    data_ = static_cast<std::byte*>(::operator new[](bytes, kFallbackAlignment));
  }
}

void BufferStorage::zero() noexcept {
  if (data_ != nullptr && !mapped_) std::memset(data_, 0, bytes_);
}

BufferStorage::~BufferStorage() {
  if (data_ == nullptr) return;
  if (mapped_)
    regcache::unmap_unobserved(data_, bytes_);  // registered by the channel itself, never cached
  else
    ::operator delete[](data_, kFallbackAlignment);
}

}  // namespace twinfab::mpi
