// What `twinfab sim` says when a rank crashes the process (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL): every rank is an actor of one process, so without this the user gets the
// shell's bare "Segmentation fault" and no idea which rank, where, or why.
//
// The report names the rank, the signal and its address, the MPI call the rank was in
// (or that it was in its own code), and, when the faulting address lies within reach
// of the rank's stack pointer, that it is a stack overflow and which variable raises
// the stack (TWINFAB_SIM_STACK_KIB). Then the signal's default action ends the process,
// so the exit status is still the shell's 128 + signal.
//
// It replaces SimGrid's own handler (whose advice, --cfg=contexts/stack-size, is not
// how twinfab sets the stack) for as long as the returned guard lives.
#pragma once

#include <cstddef>

namespace twinfab::tools {

/// Where the crashing code was: filled by the launcher from the running actor.
struct CrashSite {
  bool in_rank = false;         ///< false: the simulator's own code (maestro)
  unsigned rank = 0;
  const char* mpi_call = nullptr;  ///< the MPI function in progress, if any
};

/// Looks up the current rank; called inside the signal handler, so it may only read
/// memory (no allocation, no locks).
using CrashLocator = CrashSite (*)() noexcept;

class CrashReport {
 public:
  /// Installs the handlers; `stack_bytes` is each rank's stack size (for the hint).
  CrashReport(unsigned nranks, std::size_t stack_bytes, CrashLocator locate);
  ~CrashReport();  ///< restores the previous handlers
  CrashReport(const CrashReport&) = delete;
  CrashReport& operator=(const CrashReport&) = delete;
};

}  // namespace twinfab::tools
