// Internal: a memory region registered with ibv_reg_mr.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "fabric/memory_region.hpp"

namespace twinfab::verbs {

/// ibv_access_flags for a contract access set. Local read is implicit in verbs too.
int to_ibv_access(fabric::Access access) noexcept;

class VerbsMemoryRegion final : public fabric::MemoryRegion {
 public:
  /// Validates the range and flags, then registers. Throws fabric::Error:
  /// InvalidArgument for a null/empty/wrapping range, one above `max_mr_size`, remote
  /// write or atomic access without local write (verbs requires it), or memory that is
  /// not mapped; NoResource when the locked-memory limit is hit.
  static std::unique_ptr<VerbsMemoryRegion> create(ibv_pd* pd, void* addr, size_t length, fabric::Access access,
                                                   uint64_t max_mr_size);
  ~VerbsMemoryRegion() override;
  VerbsMemoryRegion(const VerbsMemoryRegion&) = delete;
  VerbsMemoryRegion& operator=(const VerbsMemoryRegion&) = delete;

  void* addr() const noexcept override { return addr_; }
  size_t length() const noexcept override { return length_; }
  uint32_t lkey() const noexcept override { return mr_->lkey; }
  uint32_t rkey() const noexcept override { return mr_->rkey; }
  fabric::Access access() const noexcept override { return access_; }

 private:
  VerbsMemoryRegion(ibv_mr* mr, void* addr, size_t length, fabric::Access access) noexcept
      : mr_(mr), addr_(addr), length_(length), access_(access) {}

  ibv_mr* mr_;
  void* addr_;
  size_t length_;
  fabric::Access access_;
};

}  // namespace twinfab::verbs
