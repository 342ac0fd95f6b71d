// twinfab MPI pt2pt: how rendezvous transfers get user buffers registered.
//
// A small interface so that the registration cache of seed 000 §III.H.2 (a later
// issue) can slot in: acquire() returns a shared handle, and dropping the last copy
// is the release. The cache will hand out aliases of a cached region whose deleter
// only drops a reference; DirectRegistration registers and deregisters around
// every transfer, the baseline the seed measures against.
#pragma once

#include <cstddef>
#include <memory>

#include "fabric/device.hpp"

namespace twinfab::mpi {

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
    return device_.register_memory(addr, length,
                                   fabric::Access::LocalWrite | fabric::Access::RemoteWrite |
                                       fabric::Access::RemoteRead);
  }

 private:
  fabric::Device& device_;
};

}  // namespace twinfab::mpi
