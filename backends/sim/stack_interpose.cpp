// calloc and free of the process, asking RankStackArena first (rank_stack_arena.hpp:
// why). Linked only into executables (twinfab, and the arena's unit test): a
// definition in an executable comes first in every library's symbol lookup, which is
// what puts SimGrid's stack allocation here. Everything the arena does not serve goes
// to glibc's own entry points, so every other allocation is glibc's, unchanged.
// Sanitizer builds leave calloc and free to the sanitizer's interceptors.
#include <cstddef>

#include "backends/sim/rank_stack_arena.hpp"

#ifndef TWINFAB_SANITIZE

extern "C" {

void* __libc_calloc(std::size_t count, std::size_t size) noexcept;
void __libc_free(void* p) noexcept;

// noexcept as glibc declares them (__THROW), should <cstdlib> come first.
void* calloc(std::size_t count, std::size_t size) noexcept {
  std::size_t bytes = 0;
  if (!__builtin_mul_overflow(count, size, &bytes))
    if (void* slot = twinfab::sim::RankStackArena::take(bytes)) return slot;
  return __libc_calloc(count, size);
}

void free(void* p) noexcept {
  if (p == nullptr || twinfab::sim::RankStackArena::give_back(p)) return;
  __libc_free(p);
}

}  // extern "C"

#endif
