// twinfab fabric contract: the runtime, the only place where anything waits.
//
// On hardware it is the steady clock and OS threads; in the simulator it is simulated
// time and SimGrid actors. Code above fabric/ (mpi/) never sleeps, reads clocks or
// starts threads itself: it asks the runtime, so the same code runs on both.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include "fabric/status.hpp"

namespace twinfab::fabric {

class CompletionQueue;

/// A spawned agent (progress or helper thread on hardware, an actor in simulation).
class Agent {
 public:
  virtual ~Agent() = default;
  /// Blocks (through the runtime) until the agent's body returned.
  virtual void join() = 0;
};

class Runtime {
 public:
  static constexpr double kForever = std::numeric_limits<double>::infinity();

  virtual ~Runtime() = default;
  /// Seconds since an arbitrary origin: simulated time, or a steady clock.
  virtual double now() const = 0;
  /// Blocks until one of `sources` may have a completion, or until the device placed
  /// data in local memory (so pollers of memory re-check), or until `deadline`
  /// (absolute, in now()'s clock). Returns Ok (something may be ready; spurious
  /// returns are allowed) or Timeout. Never consumes completions.
  /// A hardware runtime cannot see memory being written, so with no sources it returns
  /// promptly (after a short spin) rather than at the deadline; the simulator returns
  /// exactly when an RDMA write or atomic landed in this rank's memory. Either way the
  /// idiom `while (!memory_changed()) runtime.wait({}, deadline);` works.
  /// `sources` are CQs of this runtime's backend (in the simulator, of the calling
  /// rank's device contexts, the only ones whose completions wake it); a null or
  /// foreign source throws fabric::Error(InvalidArgument), as does a NaN deadline.
  virtual Status wait(std::span<CompletionQueue* const> sources, double deadline) = 0;
  /// Like wait(), for a caller that never polls memory (its progress comes only from
  /// completions, as MPI's does): returns Ok when one of `sources` may have a
  /// completion, Timeout at `deadline`, and not because memory may have been written.
  /// A hardware runtime then spins on the CQs without the periodic memory recheck, the
  /// simulator does not wake the caller for RDMA data landing in its memory. Spurious
  /// returns are still allowed.
  virtual Status wait_for_completion(std::span<CompletionQueue* const> sources, double deadline) = 0;
  /// Spends `seconds` (of simulated CPU time in the simulator). The device keeps
  /// working meanwhile.
  virtual void sleep_for(double seconds) = 0;
  /// Lets other agents run.
  virtual void yield() = 0;
  /// Starts an agent running `body` beside the caller.
  virtual std::unique_ptr<Agent> spawn(const std::string& name, std::function<void()> body) = 0;

  /// What every runtime does first in wait(), wait_for_completion() and sleep_for():
  /// a NaN deadline or duration compares false with every time, so a wait for it would
  /// never end (the simulator's spun at full CPU with its clock frozen). Throws
  /// fabric::Error(InvalidArgument) naming `where`.
  static void check_time(double value, const char* where);
};

}  // namespace twinfab::fabric
