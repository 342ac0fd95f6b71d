// Benchmarks: one measurement in a child process.
//
// A SimGrid platform is built once per process, and a process's peak resident set
// only grows, so each run of the simulator that a benchmark compares is made in its
// own child: a fresh platform and a clean peak-RSS figure. The child's result (a
// trivially copyable struct) comes back through a pipe.
#pragma once

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace twinfab::bench {

/// Runs `measure` in a forked child and returns its result. When the child fails
/// (an exception, a crash, a nonzero exit), prints "<program>: the <what> failed" to
/// stderr and exits 1.
template <class Result, class Measure>
Result in_child(const char* program, const std::string& what, Measure measure) {
  static_assert(std::is_trivially_copyable_v<Result>, "the result crosses a pipe as bytes");
  std::fflush(stdout);  // the child must not print the parent's buffered text again
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) std::exit(2);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    try {
      const Result r = measure();
      if (write(fds[1], &r, sizeof r) != sizeof r) _exit(3);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: {}: {}\n", program, what, e.what());
      _exit(4);
    }
    _exit(0);
  }
  close(fds[1]);
  Result r{};
  const bool ok = read(fds[0], &r, sizeof r) == sizeof r;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "{}: the {} failed\n", program, what);
    std::exit(1);
  }
  return r;
}

}  // namespace twinfab::bench
