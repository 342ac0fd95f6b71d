// twinfab fabric contract: a registered memory region.
//
// Created by Device::register_memory; destroying it deregisters. Bounds and access
// flags are enforced by the device: a remote access outside [addr, addr+length) or
// without the right flag completes with WcStatus::RemoteAccessError at the initiator
// and moves its QP to the error state; a bad lkey completes with LocalProtectionError
// (some devices, rxe and siw among them, report LocalQpOperationError instead).
#pragma once

#include <cstddef>
#include <cstdint>

#include "fabric/types.hpp"

namespace twinfab::fabric {

class MemoryRegion {
 public:
  virtual ~MemoryRegion() = default;
  virtual void* addr() const noexcept = 0;
  virtual size_t length() const noexcept = 0;
  virtual uint32_t lkey() const noexcept = 0;
  virtual uint32_t rkey() const noexcept = 0;
  virtual Access access() const noexcept = 0;

  /// An SGE over [addr() + offset, +length) with this region's lkey.
  Sge sge(size_t offset, uint32_t len) const noexcept {
    return Sge{reinterpret_cast<uint64_t>(addr()) + offset, len, lkey()};
  }
  uint64_t remote_addr(size_t offset = 0) const noexcept { return reinterpret_cast<uint64_t>(addr()) + offset; }
};

}  // namespace twinfab::fabric
