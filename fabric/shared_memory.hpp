// twinfab fabric contract: memory shared by the ranks of one host, what a
// shared-memory channel is made of (docs/shm.md).
//
// Ranks that share a host need not cross the HCA: they can place data in memory the
// other maps (MPICH's Nemesis queues, Open MPI's vader/sm) and, for large messages,
// copy straight from the other process's memory (Linux's cross-memory attach,
// process_vm_readv: one copy instead of two). The contract gives the pieces, the
// channel (mpi/channels/shm_channel.hpp) the protocol:
//  - segments: a rank creates one, publishes its name (an OOB blob), the ranks of its
//    host attach it; each sees the same bytes at an address of its own, so what is
//    kept in a segment is offsets, never pointers;
//  - timed copies: copy() is how data enters and leaves a segment. On hardware it is a
//    memcpy and costs what it costs; in the simulator it is charged as CPU time of the
//    caller (platform keys host.memcpy_bandwidth and host.shm_message_cost,
//    docs/platforms.md), so a simulated shared-memory message costs what a copy does;
//  - peers (SharedPeer): another rank of this host by its identity() blob: read() and
//    write() copy between this process's memory and that rank's (a single copy; on
//    hardware CMA, which the kernel may refuse: single_copy() says whether it works),
//    notify() wakes that rank's Runtime::wait() (a doorbell: the simulator suspends a
//    waiting rank, which must be resumed when data lands in a segment; a hardware
//    wait() looks at memory by itself, so there it does nothing).
//
// Waiting: a rank that waits for a segment to change uses Runtime::wait() (not
// wait_for_completion(), which does not end for memory) and relies on its peers'
// notify() after each change it must see.
//
// Not thread-safe; one per device context (one rank), used by that rank's progress.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fabric/status.hpp"

namespace twinfab::fabric {

/// A segment of memory mapped by the ranks of one host.
class SharedSegment {
 public:
  /// Unmaps it (in this process). The creator's destruction also removes the name.
  virtual ~SharedSegment() = default;
  /// This rank's view of the segment: zero-filled when created, 64-byte aligned.
  virtual std::span<std::byte> bytes() noexcept = 0;
  /// What SharedMemory::attach takes, on another rank of this host, until unlink().
  virtual std::span<const std::byte> name() const noexcept = 0;
  /// Removes the name (POSIX shm_unlink): no rank can attach any more, the mappings
  /// stay. The creator calls it once every rank that needs the segment has it, so
  /// that a job that crashes later leaves nothing in /dev/shm. Idempotent.
  virtual void unlink() noexcept = 0;
};

/// Another rank of this host.
class SharedPeer {
 public:
  virtual ~SharedPeer() = default;
  /// Copies `length` bytes at address `remote` of the peer's memory into `local`, in
  /// one copy, charged as copy() is. Ok, or the failure: ProtectionError for an
  /// address the peer has not mapped, IoError when the peer is gone or the kernel
  /// refuses (SharedMemory::single_copy() false), with last_error() saying why.
  virtual Status read(void* local, std::uint64_t remote, std::size_t length) = 0;
  /// The same the other way: `length` bytes of `local` to address `remote` of the peer.
  virtual Status write(std::uint64_t remote, const void* local, std::size_t length) = 0;
  /// Wakes the peer's Runtime::wait() if it is blocked in one: call it after a change
  /// to shared memory the peer waits for.
  virtual void notify() = 0;
  /// What the last failed read() or write() said (for error messages).
  virtual const std::string& last_error() const noexcept = 0;
};

/// One rank's access to its host's shared memory. Device::shared_memory().
class SharedMemory {
 public:
  virtual ~SharedMemory() = default;
  /// A new zero-filled segment of `bytes` (> 0). Throws fabric::Error with the cause
  /// (NoResource: no space, e.g. a full /dev/shm; IoError: permission and others) and
  /// leaves nothing behind.
  virtual std::unique_ptr<SharedSegment> create(std::size_t bytes) = 0;
  /// Maps the segment another rank of this host created and named `name`. Throws
  /// fabric::Error(NotFound) for a name that is unknown or unlinked,
  /// (InvalidArgument) for a malformed one.
  virtual std::unique_ptr<SharedSegment> attach(std::span<const std::byte> name) = 0;
  /// This rank, for SharedMemory::peer() on the other ranks of its host (an OOB blob).
  virtual std::vector<std::byte> identity() const = 0;
  /// A rank of this host from its identity(). Throws fabric::Error(InvalidArgument)
  /// for a malformed identity, or one of another host or backend.
  virtual std::unique_ptr<SharedPeer> peer(std::span<const std::byte> identity) = 0;
  /// Copies `length` bytes between memory this rank can reach (its own, a mapped
  /// segment); the ranges must not overlap. Charged as described at the top.
  virtual void copy(void* to, const void* from, std::size_t length) = 0;
  /// Whether SharedPeer::read() and write() work between the ranks of this host (CMA
  /// allowed by the kernel: same user, ptrace permission; always in the simulator).
  virtual bool single_copy() const noexcept = 0;
  /// Charges a copy of `length` bytes that the caller makes itself, out of a segment
  /// (what copy() charges, without copying): a receiver that hands data in a segment
  /// straight to its consumer. Nothing on hardware.
  virtual void charge_copy(std::size_t length) = 0;
};

}  // namespace twinfab::fabric
