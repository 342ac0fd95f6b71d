// Internal: the CPU hint of a busy-wait loop (x86 `pause`, arm64 `yield`): it tells the
// core, or a hyperthread sibling, that this thread is spinning.
#pragma once

namespace twinfab::verbs {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace twinfab::verbs
