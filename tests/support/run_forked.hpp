// Runs a test body in a forked child process.
//
// SimGrid keeps process-wide state and builds one platform per process, so every test
// that simulates gets a fresh process, whatever order gtest runs them in: the binary
// works both under ctest (a process per test) and run directly. A failure, skip or
// crash in the child is reported on the parent's test.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <new>
#include <functional>
#include <type_traits>

namespace twinfab::testing {

inline constexpr int kForkedChildSkipped = 77;

inline void run_forked(const std::function<void()>& body) {
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0) << "fork failed";
  if (pid == 0) {
    try {
      body();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "exception: " << e.what();
    }
    int code = ::testing::Test::HasFailure() ? 1 : ::testing::Test::IsSkipped() ? kForkedChildSkipped : 0;
    std::fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the test body crashed (signal " << WTERMSIG(status) << ")";
  if (WEXITSTATUS(status) == kForkedChildSkipped) GTEST_SKIP() << "skipped in the child (reason above)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the test body failed (details above)";
}

/// run_forked() for a body that measures: `body` fills a T (trivially copyable) in the
/// child, which comes back through a shared anonymous mapping. A failed or crashed
/// child is reported as run_forked() reports it, and T's value-initialized state is
/// returned.
template <class T>
T run_forked_result(const std::function<void(T&)>& body) {
  static_assert(std::is_trivially_copyable_v<T>, "the result crosses processes as bytes");
  void* memory = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  EXPECT_NE(memory, MAP_FAILED) << "mmap of the result failed";
  if (memory == MAP_FAILED) return T{};
  T* shared = new (memory) T{};
  run_forked([&] { body(*shared); });
  const T result = *shared;
  munmap(memory, sizeof(T));
  return result;
}

}  // namespace twinfab::testing
