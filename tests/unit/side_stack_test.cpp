// SideStack (backends/sim/side_stack.hpp): a call runs to completion on the side
// stack, its exceptions reach the caller, and the stack is reused call after call.
#include "backends/sim/side_stack.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

namespace twinfab::sim {
namespace {

// Deep enough to need several pages of stack.
int depth_sum(int n) {
  volatile char frame[256] = {};
  frame[0] = static_cast<char>(n);
  return n == 0 ? 0 : n + depth_sum(n - 1) + frame[0] - static_cast<char>(n);
}

TEST(SideStack, RunsTheCallToTheEndAndReturns) {
  SideStack stack(256 * 1024);
  int result = 0;
  stack.run([&] { result = depth_sum(200); });
  EXPECT_EQ(result, 200 * 201 / 2);
  stack.run([&] { result = depth_sum(10); });  // the same stack again
  EXPECT_EQ(result, 55);
}

TEST(SideStack, TheCallRunsOnAnotherStack) {
#ifdef TWINFAB_SANITIZE
  GTEST_SKIP() << "sanitizer builds run the call on the caller's stack";
#endif
  SideStack stack(256 * 1024);
  volatile char here = 0;
  std::uintptr_t there = 0;
  stack.run([&] {
    volatile char local = 0;
    there = reinterpret_cast<std::uintptr_t>(&local);
  });
  const auto mine = reinterpret_cast<std::uintptr_t>(&here);
  const std::uintptr_t distance = mine > there ? mine - there : there - mine;
  EXPECT_GT(distance, std::uintptr_t{1} << 20) << "the call ran next to the caller's frame";
}

TEST(SideStack, AnExceptionReachesTheCaller) {
  SideStack stack(256 * 1024);
  EXPECT_THROW(stack.run([] { throw std::runtime_error("routing failed"); }), std::runtime_error);
  int after = 0;
  stack.run([&] { after = 1; });  // still usable
  EXPECT_EQ(after, 1);
}

}  // namespace
}  // namespace twinfab::sim
