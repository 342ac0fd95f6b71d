// Internal: shared memory between the processes of one host, for the hardware backend
// (fabric/shared_memory.hpp): POSIX shared memory for segments, Linux's cross-memory
// attach (process_vm_readv/writev) for single copies between processes.
//
// Segments are named "/twinfab-<uid>-<pid>-<n>" (pid: the creator). The creator
// unlinks its segment when it is destroyed, or earlier through unlink(); a job that
// crashed leaves its segments behind, so create() first removes this user's segments
// whose creator is no longer running (kill(pid, 0) says ESRCH), as Open MPI's vader
// cleans up its backing files. Space is reserved with posix_fallocate: on a full
// /dev/shm, create() fails with NoResource instead of the process dying of SIGBUS at
// the first touch of an unbacked page.
//
// Single copies need ptrace permission over the peer (same user; Yama's
// kernel.yama.ptrace_scope 0, or 1 with PR_SET_PTRACER_ANY, which this object sets as
// Open MPI does; CAP_SYS_PTRACE otherwise): single_copy() says whether the kernel
// allows them, decided once from the Yama setting and a probe of process_vm_readv.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fabric/shared_memory.hpp"

namespace twinfab::verbs {

class HostSharedMemory final : public fabric::SharedMemory {
 public:
  HostSharedMemory();

  std::unique_ptr<fabric::SharedSegment> create(std::size_t bytes) override;
  std::unique_ptr<fabric::SharedSegment> attach(std::span<const std::byte> name) override;
  std::vector<std::byte> identity() const override;
  std::unique_ptr<fabric::SharedPeer> peer(std::span<const std::byte> identity) override;
  void copy(void* to, const void* from, std::size_t length) override;
  bool single_copy() const noexcept override { return single_copy_; }
  void charge_copy(std::size_t) override {}

  /// Removes this user's twinfab segments whose creator is gone; returns how many.
  static std::size_t remove_stale_segments();

 private:
  bool single_copy_ = false;
  std::uint64_t host_id_ = 0;  ///< a hash of the host name: an identity from elsewhere is refused
  unsigned created_ = 0;
};

}  // namespace twinfab::verbs
