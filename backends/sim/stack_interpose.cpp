// calloc and free of the process, asking RankStackArena first (rank_stack_arena.hpp:
// why). Linked only into executables (twinfab, and the arena's unit test): a
// definition in an executable comes first in every library's symbol lookup, which is
// what puts SimGrid's stack allocation here. Everything the arena does not serve goes
// to the next calloc and free in the lookup order (dlsym RTLD_NEXT): glibc's, or those
// of an allocator or profiler loaded with LD_PRELOAD (jemalloc, tcmalloc, heaptrack),
// which then sees every free of what it allocated. (Calling glibc's __libc_free
// directly, as this file first did, handed a preloaded allocator's blocks to glibc and
// hid every free from heaptrack.) Sanitizer builds leave calloc and free to the
// sanitizer's interceptors.
#include <dlfcn.h>

#include <atomic>
#include <cstddef>

#include "backends/sim/rank_stack_arena.hpp"

#ifndef TWINFAB_SANITIZE

extern "C" {
void* __libc_calloc(std::size_t count, std::size_t size) noexcept;
void __libc_free(void* p) noexcept;
}

namespace {

using CallocFn = void* (*)(std::size_t, std::size_t);
using FreeFn = void (*)(void*);

std::atomic<CallocFn> next_calloc{nullptr};
std::atomic<FreeFn> next_free{nullptr};

// dlsym may ask calloc for a few bytes while it looks up the next calloc (glibc keeps
// its dlerror state there): those come from here, zeroed, and are never given back.
alignas(std::max_align_t) char bootstrap[4096];
std::atomic<std::size_t> bootstrap_used{0};
thread_local bool resolving = false;

void* bootstrap_calloc(std::size_t bytes) noexcept {
  constexpr std::size_t align = alignof(std::max_align_t);
  const std::size_t rounded = (bytes + align - 1) / align * align;
  const std::size_t at = bootstrap_used.fetch_add(rounded, std::memory_order_relaxed);
  return at + rounded <= sizeof bootstrap ? bootstrap + at : nullptr;
}

bool in_bootstrap(const void* p) noexcept {
  const char* c = static_cast<const char*>(p);
  return c >= bootstrap && c < bootstrap + sizeof bootstrap;
}

// Both from the same lookup, so that what one allocates the other frees. Threads that
// race here store the same pointers.
void resolve() noexcept {
  resolving = true;
  void* c = dlsym(RTLD_NEXT, "calloc");
  void* f = dlsym(RTLD_NEXT, "free");
  resolving = false;
  if (c == nullptr || f == nullptr) {
    c = reinterpret_cast<void*>(&__libc_calloc);
    f = reinterpret_cast<void*>(&__libc_free);
  }
  next_free.store(reinterpret_cast<FreeFn>(f), std::memory_order_release);
  next_calloc.store(reinterpret_cast<CallocFn>(c), std::memory_order_release);
}

}  // namespace

extern "C" {

// noexcept as glibc declares them (__THROW), should <cstdlib> come first.
void* calloc(std::size_t count, std::size_t size) noexcept {
  std::size_t bytes = 0;
  const bool overflow = __builtin_mul_overflow(count, size, &bytes);
  if (!overflow)
    if (void* slot = twinfab::sim::RankStackArena::take(bytes)) return slot;
  CallocFn next = next_calloc.load(std::memory_order_acquire);
  if (next == nullptr) {
    if (resolving) return overflow ? nullptr : bootstrap_calloc(bytes);
    resolve();
    next = next_calloc.load(std::memory_order_acquire);
  }
  return next(count, size);
}

void free(void* p) noexcept {
  if (p == nullptr || in_bootstrap(p) || twinfab::sim::RankStackArena::give_back(p)) return;
  FreeFn next = next_free.load(std::memory_order_acquire);
  if (next == nullptr) {
    if (resolving) return;  // freed inside dlsym before we know whose it is: kept
    resolve();
    next = next_free.load(std::memory_order_acquire);
  }
  next(p);
}

}  // extern "C"

#endif
