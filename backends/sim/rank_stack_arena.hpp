// Internal: the simulated ranks' stacks, when they run without guard pages, carved out
// of one memory mapping.
//
// SimGrid gives each actor a stack of contexts/stack-size bytes. With guard pages it
// takes it with posix_memalign (page-aligned; the allocator's header lands in the page
// below the guard, which small objects share) and mprotects the guard: two more kernel
// mappings per rank, which vm.max_map_count caps (simulation.cpp: fit_stack_guards).
// Without guard pages it takes it with calloc from the heap's top, where the chunk
// header, the clearing of the old top and the heap objects allocated between two
// stacks cost a rank 7.4 KB more (measured 2026-12-07, the ring of 20 iterations on
// fat-tree-4096: 16,384 ranks 629 MiB with guards, 749 MiB without; 2,048 ranks with a
// page map: 3 resident pages at each stack instead of 2, and a heap 5 MB larger).
//
// So when the ranks run without guards their stacks come from here: page-aligned
// slots of one MAP_NORESERVE mapping (a single kernel mapping however many ranks),
// no allocator header, only the pages a rank's stack reaches resident. SimGrid has no
// hook for where its stacks go; the twinfab executable interposes calloc and free
// (stack_interpose.cpp), which ask this arena first. Where nothing interposes them
// (the Python module, sanitizer builds, the tests that do not link the interposer)
// the arena is armed but never asked, and SimGrid's calloc serves as before.
#pragma once

#include <cstddef>

namespace twinfab::sim {

class RankStackArena {
 public:
  /// While an Armed lives, the calling thread's calloc calls for exactly
  /// `stack_bytes` (SimGrid creating the stacks of the ranks about to start), at most
  /// `count` of them, are served from the arena. Slots given back are unmapped
  /// (MADV_DONTNEED) at once, and the arena is reused by the next run once every
  /// slot is back. Arming fails quietly (nothing is served) when the mapping cannot
  /// be made, or when a previous run's slots are still in use and too few.
  class Armed {
   public:
    Armed(std::size_t count, std::size_t stack_bytes) noexcept;
    ~Armed();
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;
  };

  /// For the interposed calloc: a zeroed, page-aligned slot when this thread is
  /// armed, `bytes` is the armed size and a slot is left; otherwise nullptr.
  static void* take(std::size_t bytes) noexcept;
  /// For the interposed free: whether `p` is a slot (then it is given back). Safe
  /// from any thread.
  static bool give_back(void* p) noexcept;
  /// Slots taken and not given back.
  static std::size_t in_use() noexcept;
};

}  // namespace twinfab::sim
