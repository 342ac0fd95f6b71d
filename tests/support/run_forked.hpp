// Runs a test body in a forked child process.
//
// SimGrid keeps process-wide state and builds one platform per process, so every test
// that simulates gets a fresh process, whatever order gtest runs them in: the binary
// works both under ctest (a process per test) and run directly. A failure, skip or
// crash in the child is reported on the parent's test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <functional>

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

}  // namespace twinfab::testing
