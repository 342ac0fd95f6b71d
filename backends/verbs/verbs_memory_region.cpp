#include "backends/verbs/verbs_memory_region.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>

#include "backends/verbs/verbs_errno.hpp"
#include "fabric/error.hpp"

namespace twinfab::verbs {

using fabric::Access;

int to_ibv_access(Access access) noexcept {
  int flags = 0;
  if (fabric::has(access, Access::LocalWrite)) flags |= IBV_ACCESS_LOCAL_WRITE;
  if (fabric::has(access, Access::RemoteWrite)) flags |= IBV_ACCESS_REMOTE_WRITE;
  if (fabric::has(access, Access::RemoteRead)) flags |= IBV_ACCESS_REMOTE_READ;
  if (fabric::has(access, Access::RemoteAtomic)) flags |= IBV_ACCESS_REMOTE_ATOMIC;
  return flags;
}

std::unique_ptr<VerbsMemoryRegion> VerbsMemoryRegion::create(ibv_pd* pd, void* addr, size_t length, Access access,
                                                             uint64_t max_mr_size) {
  using fabric::Error;
  using fabric::Status;
  if (addr == nullptr) throw Error(Status::InvalidArgument, "register_memory: address is null");
  if (length == 0) throw Error(Status::InvalidArgument, "register_memory: length is 0");
  const auto start = reinterpret_cast<uintptr_t>(addr);
  if (start + length < start) {
    throw Error(Status::InvalidArgument,
                fmt::format("register_memory: [{:#x}, +{}) wraps around the address space", start, length));
  }
  if (length > max_mr_size) {
    throw Error(Status::InvalidArgument,
                fmt::format("register_memory: {} bytes is more than the device's max_mr_size {}", length, max_mr_size));
  }
  fabric::check_access(access);
  ibv_mr* mr = ibv_reg_mr(pd, addr, length, to_ibv_access(access));
  if (mr == nullptr) {
    const int err = errno;
    const char* hint = "";
    if (err == ENOMEM || err == EAGAIN) {
      hint = "the locked-memory limit was hit: raise it (`ulimit -l unlimited`, or LimitMEMLOCK= for services)";
    } else if (err == EFAULT) {
      hint = "the range is not mapped memory of this process";
    }
    throw_errno(fmt::format("ibv_reg_mr({:#x}, {})", start, length), err, hint);
  }
  return std::unique_ptr<VerbsMemoryRegion>(new VerbsMemoryRegion(mr, addr, length, access));
}

VerbsMemoryRegion::~VerbsMemoryRegion() { ibv_dereg_mr(mr_); }

}  // namespace twinfab::verbs
