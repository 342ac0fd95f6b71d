#include "backends/sim/rank_stack_arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace twinfab::sim {

namespace {

// The mapping, read by free() on any thread; changed only while no slot is in use.
std::atomic<char*> g_begin{nullptr};
std::atomic<char*> g_end{nullptr};
std::size_t g_slot_bytes = 0;  // a slot: the stack size rounded up to pages
std::size_t g_slots = 0;       // slots the mapping holds
std::size_t g_next = 0;        // the next slot to hand out
std::atomic<std::size_t> g_in_use{0};
// What the armed thread's calloc calls are served for.
std::size_t g_armed_bytes = 0;
std::size_t g_armed_left = 0;
thread_local bool t_armed = false;

void unmap() noexcept {
  char* begin = g_begin.exchange(nullptr);
  char* end = g_end.exchange(nullptr);
  if (begin != nullptr) munmap(begin, static_cast<std::size_t>(end - begin));
  g_slots = 0;
}

}  // namespace

RankStackArena::Armed::Armed(std::size_t count, std::size_t stack_bytes) noexcept {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (count == 0 || stack_bytes == 0 || stack_bytes > SIZE_MAX / 2) return;
  const std::size_t slot = (stack_bytes + page - 1) / page * page;
  if (g_in_use.load() == 0) g_next = 0;  // the previous run's slots are all back
  if (g_begin.load() != nullptr && (slot != g_slot_bytes || count > g_slots - g_next)) {
    if (g_in_use.load() != 0) return;  // still in use and unfit: SimGrid allocates
    unmap();
  }
  if (g_begin.load() == nullptr) {
    if (count > SIZE_MAX / slot) return;
    // MAP_NORESERVE: address space only; a page costs memory once a stack reaches it.
    void* mapped =
        mmap(nullptr, count * slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) return;
    g_slot_bytes = slot;
    g_slots = count;
    g_next = 0;
    g_end.store(static_cast<char*>(mapped) + count * slot);
    g_begin.store(static_cast<char*>(mapped));
  }
  g_armed_bytes = stack_bytes;
  g_armed_left = count;
  t_armed = true;
}

RankStackArena::Armed::~Armed() {
  t_armed = false;
  g_armed_left = 0;
}

void* RankStackArena::take(std::size_t bytes) noexcept {
  if (!t_armed || bytes != g_armed_bytes || g_armed_left == 0 || g_next >= g_slots) return nullptr;
  char* slot = g_begin.load() + g_next * g_slot_bytes;
  ++g_next;
  --g_armed_left;
  g_in_use.fetch_add(1);
  return slot;  // zero: never touched, or given back with MADV_DONTNEED
}

bool RankStackArena::give_back(void* p) noexcept {
  char* const begin = g_begin.load(std::memory_order_acquire);
  if (begin == nullptr) return false;
  char* const at = static_cast<char*>(p);
  if (at < begin || at >= g_end.load(std::memory_order_relaxed)) return false;
  char* const slot = begin + static_cast<std::size_t>(at - begin) / g_slot_bytes * g_slot_bytes;
  // The stack's pages go back to the kernel now (and read as zero if the slot is
  // handed out again, as calloc promises). errno kept: free() does not change it.
  const int saved_errno = errno;
  madvise(slot, g_slot_bytes, MADV_DONTNEED);
  errno = saved_errno;
  g_in_use.fetch_sub(1);
  return true;
}

std::size_t RankStackArena::in_use() noexcept { return g_in_use.load(); }

}  // namespace twinfab::sim
