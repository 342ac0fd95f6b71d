// The interposed unmap calls and the process-wide registry of caches they notify.
// See memory_hooks.hpp for the design, the allocator decision and the exception to
// ARCHITECTURE rule 1 that the registry is.
#include "mpi/regcache/memory_hooks.hpp"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <mutex>
#include <vector>

namespace twinfab::mpi::regcache {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<InvalidationTarget*> targets;
  bool mallopt_done = false;
};

// Never destroyed (see header): a hook during static destruction must find it valid.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::atomic<std::size_t> target_count{0};  // lock-free fast path: no cache, no work
std::atomic<std::uint64_t> notification_count{0};
thread_local bool in_notify = false;       // re-entrance guard

void keep_freed_memory_mapped_locked(Registry& r) {
  if (r.mallopt_done) return;
  // MVAPICH2's choice: keep freed memory mapped, so cached registrations of heap
  // buffers stay valid (glibc's internal munmap/brk bypass the hooks).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  r.mallopt_done = true;
}

}  // namespace

void keep_freed_memory_mapped() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  keep_freed_memory_mapped_locked(r);
}

void add_invalidation_target(InvalidationTarget* target) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  keep_freed_memory_mapped_locked(r);
  r.targets.push_back(target);
  target_count.store(r.targets.size(), std::memory_order_release);
}

void remove_invalidation_target(InvalidationTarget* target) noexcept {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = std::find(r.targets.begin(), r.targets.end(), target);
  if (it != r.targets.end()) r.targets.erase(it);
  target_count.store(r.targets.size(), std::memory_order_release);
}

void notify_unmapped(const void* addr, std::size_t length) noexcept {
  if (length == 0 || target_count.load(std::memory_order_acquire) == 0 || in_notify) return;
  const auto start = reinterpret_cast<std::uintptr_t>(addr);
  const std::uintptr_t end = start + length < start ? UINTPTR_MAX : start + length;
  in_notify = true;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    for (InvalidationTarget* t : r.targets) t->invalidate(start, end);
    if (!r.targets.empty()) notification_count.fetch_add(1, std::memory_order_relaxed);
  }
  in_notify = false;
}

std::uint64_t notifications() noexcept { return notification_count.load(std::memory_order_relaxed); }

}  // namespace twinfab::mpi::regcache

// ---- the interposed symbols -------------------------------------------------------
//
// Each resolves libc's definition once with dlsym(RTLD_NEXT). dlsym may itself
// allocate or unmap; while a resolution is in progress on this thread (or if it
// fails), munmap/mremap/madvise go straight to the system call, which is what libc
// does too. brk/sbrk cannot (libc caches the break), so they fail with ENOMEM then,
// which no dlsym implementation provokes.

namespace {

thread_local bool resolving = false;

template <class Fn>
Fn resolve(std::atomic<Fn>& slot, const char* name) {
  Fn fn = slot.load(std::memory_order_acquire);
  if (fn != nullptr || resolving) return fn;
  resolving = true;
  fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  resolving = false;
  slot.store(fn, std::memory_order_release);
  return fn;
}

using MunmapFn = int (*)(void*, size_t);
using MremapFn = void* (*)(void*, size_t, size_t, int, ...);
using MadviseFn = int (*)(void*, size_t, int);
using BrkFn = int (*)(void*);
using SbrkFn = void* (*)(intptr_t);

std::atomic<MunmapFn> real_munmap{nullptr};
std::atomic<MremapFn> real_mremap{nullptr};
std::atomic<MadviseFn> real_madvise{nullptr};
std::atomic<BrkFn> real_brk{nullptr};
std::atomic<SbrkFn> real_sbrk{nullptr};

void* current_break() {
  // sbrk(0) through libc reads its cached break without changing anything.
  SbrkFn fn = resolve(real_sbrk, "sbrk");
  return fn != nullptr ? fn(0) : nullptr;
}

}  // namespace

namespace twinfab::mpi::regcache {

int unmap_unobserved(void* addr, std::size_t length) noexcept {
  if (MunmapFn fn = resolve(real_munmap, "munmap")) return fn(addr, length);
  return static_cast<int>(syscall(SYS_munmap, addr, length));
}

}  // namespace twinfab::mpi::regcache

using twinfab::mpi::regcache::notify_unmapped;
using twinfab::mpi::regcache::unmap_unobserved;

extern "C" {

int munmap(void* addr, size_t length) noexcept {
  notify_unmapped(addr, length);
  return unmap_unobserved(addr, length);
}

void* mremap(void* old_address, size_t old_size, size_t new_size, int flags, ...) noexcept {
  void* new_address = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list args;
    va_start(args, flags);
    new_address = va_arg(args, void*);
    va_end(args);
  }
  // Moving or shrinking: the old range's pages are no longer where a registration of
  // it points. Conservatively the whole old range (a grow in place keeps them, but
  // whether it moves is only known afterwards).
  notify_unmapped(old_address, old_size);
  if (flags & MREMAP_FIXED) notify_unmapped(new_address, new_size);  // replaced mapping
  if (MremapFn fn = resolve(real_mremap, "mremap")) return fn(old_address, old_size, new_size, flags, new_address);
  return reinterpret_cast<void*>(syscall(SYS_mremap, old_address, old_size, new_size, flags, new_address));
}

int madvise(void* addr, size_t length, int advice) noexcept {
  // These drop the pages' contents: the next touch maps fresh pages.
  if (advice == MADV_DONTNEED || advice == MADV_REMOVE
#ifdef MADV_FREE
      || advice == MADV_FREE
#endif
  )
    notify_unmapped(addr, length);
  if (MadviseFn fn = resolve(real_madvise, "madvise")) return fn(addr, length, advice);
  return static_cast<int>(syscall(SYS_madvise, addr, length, advice));
}

int brk(void* addr) noexcept {
  auto* old_break = static_cast<char*>(current_break());
  if (old_break != nullptr && static_cast<char*>(addr) < old_break)
    notify_unmapped(addr, static_cast<size_t>(old_break - static_cast<char*>(addr)));
  if (BrkFn fn = resolve(real_brk, "brk")) return fn(addr);
  errno = ENOMEM;
  return -1;
}

void* sbrk(intptr_t increment) noexcept {
  SbrkFn fn = resolve(real_sbrk, "sbrk");
  if (fn == nullptr) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  if (increment < 0) {
    auto* old_break = static_cast<char*>(fn(0));
    notify_unmapped(old_break + increment, static_cast<size_t>(-increment));
  }
  return fn(increment);
}

}  // extern "C"
