#include "backends/sim/side_stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace twinfab::sim {

SideStack::~SideStack() {
  if (mapping_ != nullptr) munmap(mapping_, bytes_ + static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
}

void SideStack::trampoline(unsigned high, unsigned low) {
  // makecontext passes int arguments: the object's address comes in two halves.
  auto* self = reinterpret_cast<SideStack*>((std::uintptr_t{high} << 32) | low);
  try {
    (*self->call_)();
  } catch (...) {
    // An exception must not unwind past this frame: the caller's frames are on
    // another stack. run() rethrows it there.
    self->error_ = std::current_exception();
  }
  // Returning resumes uc_link, the caller.
}

void SideStack::run(const std::function<void()>& f) {
#ifdef TWINFAB_SANITIZE
  f();
  return;
#endif
  if (stack_ == nullptr) {
    // With a guard page below it: an overflow faults instead of writing over whatever
    // lies beneath.
    const std::size_t guard = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* mapped =
        mmap(nullptr, bytes_ + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) {
      f();
      return;
    }
    mprotect(mapped, guard, PROT_NONE);
    mapping_ = mapped;
    stack_ = static_cast<char*>(mapped) + guard;
  }
  if (getcontext(&callee_) != 0) {
    f();
    return;
  }
  callee_.uc_stack.ss_sp = stack_;
  callee_.uc_stack.ss_size = bytes_;
  callee_.uc_link = &caller_;
  call_ = &f;
  error_ = nullptr;
  const auto self = reinterpret_cast<std::uintptr_t>(this);
  makecontext(&callee_, reinterpret_cast<void (*)()>(&SideStack::trampoline), 2, static_cast<unsigned>(self >> 32),
              static_cast<unsigned>(self));
  const bool switched = swapcontext(&caller_, &callee_) == 0;
  call_ = nullptr;
  if (!switched) {
    f();
    return;
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace twinfab::sim
