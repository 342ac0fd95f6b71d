// twinfab MPI regcache: memory hooks that tell registration caches when memory goes.
//
// A cached registration must never be used after the memory behind it was unmapped
// and the address reused (the new pages are not the pinned ones: the HCA would move
// the old contents). memory_hooks.cpp interposes the calls that unmap or shrink
// memory, the way UCX's memory hooks (ucm) do by symbol interposition:
//
//   munmap, mremap (the old range), madvise(MADV_DONTNEED / MADV_FREE / MADV_REMOVE),
//   brk / sbrk when they shrink the heap,
//
// and calls notify_unmapped() *before* forwarding to libc (found with
// dlsym(RTLD_NEXT)); every registered cache then drops the overlapping regions.
//
// The allocator path: glibc's free() of an mmapped chunk and its heap trimming call
// libc's internal munmap/brk, which interposition cannot see. Instead of hooking
// free/realloc (which UCX does with malloc hooks and a great deal of care), twinfab
// does what MVAPICH2 does: when the first cache is registered, mallopt(M_MMAP_MAX, 0)
// and mallopt(M_TRIM_THRESHOLD, -1), so malloc never returns memory to the system;
// a freed buffer stays mapped (same pages), and a registration of it stays valid
// when malloc hands the address out again. Limits: chunks malloc mmapped before the
// first cache existed can still be unmapped unseen; the process keeps its peak heap.
//
// EXCEPTION to ARCHITECTURE rule 1 (no mutable globals in mpi/): the list of caches
// to notify is process-wide, because memory is. All simulated ranks share one
// address space, so an munmap must reach every rank's cache. The registry is kept
// minimal: a list of targets under a mutex; a thread-local re-entrance guard (a hook
// fired while notifying, e.g. by a free inside a cache, is forwarded without
// notifying); and it is never destroyed (allocated once, leaked on purpose), so a
// hook fired during static destruction finds a valid, possibly empty, list.
#pragma once

#include <cstddef>
#include <cstdint>

namespace twinfab::mpi::regcache {

class InvalidationTarget {
 public:
  virtual ~InvalidationTarget() = default;
  /// [start, end) is going away. Called with the registry locked; must not block, or
  /// call into a fabric device. noexcept: a hook cannot report errors.
  virtual void invalidate(std::uintptr_t start, std::uintptr_t end) noexcept = 0;
};

/// Applies the mallopt settings above (once per process; later calls do nothing).
/// Whoever will create caches calls it before the buffers they may cache are
/// allocated: a cache made later cannot see chunks malloc mmapped before.
void keep_freed_memory_mapped();

/// Adds / removes a target (a cache does this in its constructor and destructor).
/// The first add also applies the mallopt settings above.
void add_invalidation_target(InvalidationTarget* target);
void remove_invalidation_target(InvalidationTarget* target) noexcept;

/// Tells every target that [addr, addr + length) goes away. The hooks call it; tests
/// and code that releases memory by other means (a custom allocator) may too.
void notify_unmapped(const void* addr, std::size_t length) noexcept;

/// Number of notify_unmapped calls that reached at least one target (tests).
std::uint64_t notifications() noexcept;

/// munmap without notifying the targets, for memory no cache can hold a registration
/// of (the MPI channel's own packet buffers, registered directly): with thousands of
/// simulated ranks in one process, every notification visits every rank's cache.
int unmap_unobserved(void* addr, std::size_t length) noexcept;

}  // namespace twinfab::mpi::regcache
