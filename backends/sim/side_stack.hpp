// twinfab simulated fabric: running a rare, deep call on a stack of its own.
//
// A rank runs on its SimGrid actor's stack, and every page that stack ever reaches
// stays resident until the run ends: at 65,536 ranks one page more per rank is 256 MiB.
// A few rare calls go much deeper than the rest of a rank's work; the deepest is
// SimGrid's routing the first time a host sends to another (a recursion over the
// netzones, with vectors on the way), which took a ring's ranks one page deeper (4.2
// KB more per rank at 2,048 ranks). SideStack runs such a call on one shared stack by
// a plain context switch (swapcontext) that SimGrid does not see: the rank stays the
// running actor, nothing is rescheduled and simulated time does not move, so results
// are unchanged. (Running it in maestro through a simcall would also keep it off the
// rank's stack, but the simcall lets other actors run first: collective times moved
// by 0.3 %.)
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <exception>
#include <functional>

namespace twinfab::sim {

class SideStack {
 public:
  /// A stack of `bytes` and a guard page (mapped at the first run(); untouched pages
  /// cost nothing).
  explicit SideStack(std::size_t bytes) noexcept : bytes_(bytes) {}
  ~SideStack();
  SideStack(const SideStack&) = delete;
  SideStack& operator=(const SideStack&) = delete;

  /// Runs `f` on this stack, returns when it has, and rethrows what it threw. Not
  /// reentrant: `f` must not call run() of the same stack. Where the stack cannot be
  /// made (no memory), and in sanitizer builds (AddressSanitizer tracks the stacks it
  /// knows), `f` runs on the caller's stack.
  void run(const std::function<void()>& f);

 private:
  static void trampoline(unsigned high, unsigned low);

  std::size_t bytes_;
  void* mapping_ = nullptr;  ///< the stack and the guard page below it
  void* stack_ = nullptr;
  ucontext_t caller_{};
  ucontext_t callee_{};
  const std::function<void()>* call_ = nullptr;
  std::exception_ptr error_;
};

}  // namespace twinfab::sim
