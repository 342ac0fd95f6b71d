#include "tools/twinfab/crash_report.hpp"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace twinfab::tools {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr std::size_t kSignalCount = sizeof kSignals / sizeof kSignals[0];

// The handler's view of the run (a process runs one simulation: one report at a time).
unsigned g_nranks = 0;
std::size_t g_stack_bytes = 0;
CrashLocator g_locate = nullptr;
struct sigaction g_previous[kSignalCount];

const char* describe(int sig) noexcept {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic error, e.g. an integer division by zero)";
    case SIGILL: return "SIGILL (illegal instruction)";
  }
  return "a fatal signal";
}

/// A fault this close to the stack pointer is the stack running into its guard page
/// (a frame or an array too large for the rank's stack).
bool near_stack_pointer(const void* context, std::uintptr_t address) noexcept {
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  const auto sp = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
  constexpr std::uintptr_t kReach = 64 * 1024;
  return address + kReach >= sp && address <= sp + kReach;
#else
  (void)context;
  (void)address;
  return false;
#endif
}

void write_all(const char* text, std::size_t length) noexcept {
  while (length > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, length);
    if (n <= 0) return;
    text += n;
    length -= static_cast<std::size_t>(n);
  }
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) noexcept {
  // Only snprintf into a static buffer and write(2): the process is going down, but
  // the report must not deadlock on a lock the crash left held (malloc's, stdio's).
  static char text[1024];
  const CrashSite site = g_locate != nullptr ? g_locate() : CrashSite{};
  const auto address = reinterpret_cast<std::uintptr_t>(info != nullptr ? info->si_addr : nullptr);
  int n = 0;
  if (site.in_rank) {
    n = std::snprintf(text, sizeof text, "\ntwinfab: rank %u (of %u) crashed: %s at address 0x%llx, in %s\n",
                      site.rank, g_nranks, describe(sig), static_cast<unsigned long long>(address),
                      site.mpi_call != nullptr ? site.mpi_call : "its own code (outside MPI calls)");
  } else {
    n = std::snprintf(text, sizeof text, "\ntwinfab: the simulator crashed outside the ranks: %s at address 0x%llx\n",
                      describe(sig), static_cast<unsigned long long>(address));
  }
  if (n > 0) write_all(text, static_cast<std::size_t>(n) < sizeof text ? static_cast<std::size_t>(n) : sizeof text - 1);
  if (site.in_rank && (sig == SIGSEGV || sig == SIGBUS) && near_stack_pointer(context, address)) {
    n = std::snprintf(text, sizeof text,
                      "twinfab: the address is next to the rank's stack pointer: a stack overflow (each rank's "
                      "stack is %zu KiB). Put large arrays on the heap, or raise the stack, e.g. "
                      "TWINFAB_SIM_STACK_KIB=%zu twinfab sim ...\n",
                      g_stack_bytes / 1024, g_stack_bytes / 1024 * 8);
    if (n > 0) write_all(text, static_cast<std::size_t>(n) < sizeof text ? static_cast<std::size_t>(n) : sizeof text - 1);
  }
  // The default action: the process ends with the signal (status 128 + sig).
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

CrashReport::CrashReport(unsigned nranks, std::size_t stack_bytes, CrashLocator locate) {
  g_nranks = nranks;
  g_stack_bytes = stack_bytes;
  g_locate = locate;
  struct sigaction action {};
  action.sa_sigaction = on_fatal_signal;
  // On the alternate stack SimGrid set up: a rank that overflowed its own stack has
  // none left to run a handler on.
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kSignalCount; ++i) ::sigaction(kSignals[i], &action, &g_previous[i]);
}

CrashReport::~CrashReport() {
  for (std::size_t i = 0; i < kSignalCount; ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  g_locate = nullptr;
}

}  // namespace twinfab::tools
