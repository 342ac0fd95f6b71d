// twinfab MPI pt2pt: how rendezvous transfers get user buffers registered.
//
// A small interface: acquire() returns a shared handle, and dropping the last copy is
// the release. CachedRegistration hands out handles of a region of a registration
// cache (mpi/regcache: none, DME of seed 000 §III.H.2, lazy engine of seed 002 §3.2)
// whose deleter only releases the cache's reference; DirectRegistration registers
// and deregisters around every transfer (used when the cache cannot take an area).
#pragma once

#include <cstddef>
#include <memory>

#include "fabric/device.hpp"
#include "mpi/regcache/memory_hooks.hpp"
#include "mpi/regcache/registration_cache.hpp"

namespace twinfab::mpi {

inline constexpr fabric::Access kTransferAccess =
    fabric::Access::LocalWrite | fabric::Access::RemoteWrite | fabric::Access::RemoteRead;

class MemoryRegistration {
 public:
  virtual ~MemoryRegistration() = default;
  /// A region covering [addr, addr + length) with local write and remote read and
  /// write access (length > 0). Throws fabric::Error when the device refuses.
  virtual std::shared_ptr<const fabric::MemoryRegion> acquire(void* addr, std::size_t length) = 0;
};

/// Registers on every acquire, deregisters when the handle goes.
class DirectRegistration final : public MemoryRegistration {
 public:
  explicit DirectRegistration(fabric::Device& device) : device_(device) {}
  std::shared_ptr<const fabric::MemoryRegion> acquire(void* addr, std::size_t length) override {
    return device_.register_memory(addr, length, kTransferAccess);
  }

 private:
  fabric::Device& device_;
};

/// Acquires through a registration cache. An area the cache refuses (above its pin
/// limit, or every record in flight) is registered for this transfer only, counted
/// in the cache's `fallbacks`: a transfer never fails because of the cache.
/// Handles must not outlive this object.
///
/// The cache itself is made at the first acquire: a rank whose messages all go
/// eagerly never needs one, and an empty cache still holds ~1.5 KB (its record deque,
/// tree node pool and counters), which thousands of simulated ranks would all pay.
/// The allocator settings caching depends on are applied at construction, before the
/// program allocates the buffers it may send (memory_hooks.hpp).
class CachedRegistration final : public MemoryRegistration {
 public:
  CachedRegistration(fabric::Device& device, regcache::CacheKind kind, const regcache::Limits& limits)
      : device_(device), kind_(kind), limits_(limits), direct_(device) {
    regcache::keep_freed_memory_mapped();
  }
  std::shared_ptr<const fabric::MemoryRegion> acquire(void* addr, std::size_t length) override {
    regcache::RegistrationCache& cache = this->cache();
    regcache::Region* region = cache.acquire(addr, length, kTransferAccess);
    if (region == nullptr) {
      ++cache.counters().fallbacks;
      return direct_.acquire(addr, length);
    }
    return std::make_shared<const View>(cache, *region, addr, length);
  }
  /// The cache's counters (all zero before the first acquire).
  const regcache::Counters& counters() const noexcept {
    static const regcache::Counters kNone{};
    return cache_ ? cache_->counters() : kNone;
  }

 private:
  /// The caller's [addr, addr + length) within a cached region, which may start
  /// earlier (DME rounds to pages; the lazy engine hits inside larger areas): sge()
  /// and remote_addr() must be relative to the caller's buffer. Releases the cache's
  /// reference when the last handle goes.
  class View final : public fabric::MemoryRegion {
   public:
    View(regcache::RegistrationCache& cache, regcache::Region& region, void* addr, std::size_t length)
        : cache_(cache), region_(region), addr_(addr), length_(length) {}
    ~View() override { cache_.release(&region_); }
    void* addr() const noexcept override { return addr_; }
    std::size_t length() const noexcept override { return length_; }
    std::uint32_t lkey() const noexcept override { return region_.mr->lkey(); }
    std::uint32_t rkey() const noexcept override { return region_.mr->rkey(); }
    fabric::Access access() const noexcept override { return region_.access; }

   private:
    regcache::RegistrationCache& cache_;
    regcache::Region& region_;
    void* addr_;
    std::size_t length_;
  };

  regcache::RegistrationCache& cache() {
    if (!cache_) cache_ = regcache::make_cache(kind_, device_, limits_);
    return *cache_;
  }

  fabric::Device& device_;
  const regcache::CacheKind kind_;
  const regcache::Limits limits_;
  DirectRegistration direct_;
  std::unique_ptr<regcache::RegistrationCache> cache_;  ///< made by the first acquire
};

}  // namespace twinfab::mpi
