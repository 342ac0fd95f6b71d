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

/// A spawned agent: a helper that runs beside the rank that spawned it (a progress or
/// helper thread: an OS thread on hardware, a SimGrid actor on the rank's host in the
/// simulator). docs/agents.md has the design; in short:
/// - its body may call every Runtime method of the spawning rank's runtime: now(),
///   wait()/wait_for_completion()/wait_for_event() on CQs of the rank's device
///   contexts (it is woken by their completions as the rank is), sleep_for(), yield(),
///   spawn(). Several actors may wait on one device at once;
/// - it uses CPU time as a thread does: in the simulator a polling wait and
///   sleep_for() occupy a core of the host, shared with the rank and the host's other
///   agents (docs/model.md, "Agents and CPU time"); wait_for_event() does not;
/// - the rank and its agents run one at a time in the simulator, concurrently on
///   hardware: state they share needs std::atomic or a std::mutex, never held across a
///   runtime call (all simulated actors share one OS thread: an actor that blocked
///   while holding it would stop the simulation).
class Agent {
 public:
  /// Every backend's agent joins in its destructor if join() was not called (an agent
  /// is never left running behind its handle); an exception its body threw that no
  /// join() reported is then logged as an error (a destructor cannot throw it).
  virtual ~Agent() = default;
  /// Blocks, through the runtime (the caller's device contexts keep being served in
  /// the simulator; no CPU is used while blocked), until the agent's body returned.
  /// An exception that escaped the body is rethrown here, once. Joining an agent that
  /// was joined returns at once. Joining from the agent's own body throws
  /// fabric::Error(InvalidState) (it would never return).
  virtual void join() = 0;
  /// The name given to spawn().
  virtual const std::string& name() const = 0;
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
  /// Event-driven waiting (ibv_get_cq_event on a completion channel): blocks without
  /// using the CPU until one of `sources` has a completion, or until `deadline`.
  /// Returns Ok at once, without blocking, when one already has one; Ok when one came
  /// while blocked, after the wake-up cost of a completion event (the HCA's interrupt,
  /// the kernel and the scheduler waking the thread); Timeout at `deadline` if none
  /// has any. Never consumes completions; spurious returns are allowed. Nothing else
  /// ends it: not memory being written (the device raises no event for RDMA data).
  /// At least one source is needed. This is how an event-driven helper thread sleeps
  /// (seed 001 sec. 4.2.2): no CPU while idle, a slower wake-up than polling.
  /// Hardware: the CQs' completion channels are armed and the thread sleeps in ppoll();
  /// a CQ without a channel (the kernel refused one) is napped on instead. Simulator:
  /// the caller is suspended and returns `hca.event_latency` (platform key) after the
  /// completion; its host's CPU is free meanwhile.
  /// Throws fabric::Error(InvalidArgument) for no source, a null or foreign source
  /// (as wait()) or a NaN deadline.
  virtual Status wait_for_event(std::span<CompletionQueue* const> sources, double deadline) = 0;
  /// Spends `seconds` of CPU time: the caller computes. The device keeps working
  /// meanwhile. In the simulator this is simulated CPU time on the caller's host: it
  /// takes `seconds` when the caller has a core to itself and longer when the host's
  /// cores are shared with busy agents (docs/model.md, "Agents and CPU time").
  virtual void sleep_for(double seconds) = 0;
  /// Blocks for `seconds` without using the CPU (a thread in nanosleep): nothing but
  /// the time ends it, and the device keeps working meanwhile. What a helper that only
  /// waits to look again does (the asynchronous progress agent while its rank is in
  /// MPI); sleep_for() is a computation instead, which in the simulator takes a share
  /// of a contended core.
  virtual void idle_for(double seconds) = 0;
  /// Records `seconds` of CPU work the caller has just done without the time passing
  /// (the MPI library's own work: matching, headers, its copies; see HostCosts in
  /// fabric/device.hpp). Never blocks, so it may be called anywhere, under an
  /// AgentMutex too. On hardware the work took its real time: nothing to do (the
  /// default). In the simulator the caller owes the time: its next post starts after
  /// it, and its next wait, sleep_for() or idle_for() spends it first as computation
  /// (docs/model.md, "Host software"). Negative or NaN amounts are ignored.
  virtual void charge_cpu(double seconds) { static_cast<void>(seconds); }
  /// Lets other agents run (no simulated time passes).
  virtual void yield() = 0;
  /// Starts an agent running `body` beside the caller (see Agent). `name` is for
  /// debuggers and messages. The agent runs until `body` returns; join it (or destroy
  /// the handle, which joins) before the device contexts it uses are closed.
  /// Throws fabric::Error(InvalidArgument) for an empty `body`.
  virtual std::unique_ptr<Agent> spawn(const std::string& name, std::function<void()> body) = 0;
  /// Whether the caller is one of this runtime's agents rather than the rank itself:
  /// what a lock shared by a rank and an agent that may call back into the rank's
  /// library needs to tell a nested call from a new one (mpi/core/async_progress.hpp).
  /// Hardware: the calling thread is one spawn() started; simulator: the calling actor
  /// is an agent of this runtime.
  virtual bool on_agent() const = 0;

  /// What every runtime does first in wait(), wait_for_completion() and sleep_for():
  /// a NaN deadline or duration compares false with every time, so a wait for it would
  /// never end (the simulator's spun at full CPU with its clock frozen). Throws
  /// fabric::Error(InvalidArgument) naming `where`.
  static void check_time(double value, const char* where);
  /// What every runtime does first in spawn(): throws fabric::Error(InvalidArgument)
  /// for an empty body, naming the agent.
  static void check_agent_body(const std::string& name, const std::function<void()>& body);
};

}  // namespace twinfab::fabric
