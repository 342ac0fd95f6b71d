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
class CachedRegistration final : public MemoryRegistration {
 public:
  CachedRegistration(fabric::Device& device, std::unique_ptr<regcache::RegistrationCache> cache)
      : direct_(device), cache_(std::move(cache)) {}
  std::shared_ptr<const fabric::MemoryRegion> acquire(void* addr, std::size_t length) override {
    regcache::Region* region = cache_->acquire(addr, length, kTransferAccess);
    if (region == nullptr) {
      ++cache_->counters().fallbacks;
      return direct_.acquire(addr, length);
    }
    return std::make_shared<const View>(*cache_, *region, addr, length);
  }
  regcache::RegistrationCache& cache() noexcept { return *cache_; }
  const regcache::RegistrationCache& cache() const noexcept { return *cache_; }

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

  DirectRegistration direct_;
  std::unique_ptr<regcache::RegistrationCache> cache_;
};

}  // namespace twinfab::mpi
