// twinfab MPI core: asynchronous progress (TWINFAB_ASYNC_PROGRESS=event|poll), an
// agent that progresses a rank's communication while the program computes outside MPI.
//
// Why: MPI progresses only inside MPI calls, so a nonblocking collective or a
// rendezvous started before a computation waits for the next call to move on (issue
// 32: nonblocking collectives overlapped ~0 %). MPICH (MPIR_CVAR_ASYNC_PROGRESS) and
// MVAPICH2 (MV2_ASYNC_PROGRESS) add a progress thread, off by default; so does twinfab,
// as a runtime agent (fabric/runtime.hpp): an OS thread on hardware, an actor on the
// rank's host in the simulator, where its CPU time and its wake-ups are modelled.
//
// The library hold. The rank and the agent never run the library at once: the rank
// holds the hold for the whole of each MPI call (mpi/capi's entry, which brackets
// every call with enter() and leave()), and the agent takes it only while the rank is
// outside MPI, for one progress pass at a time. So the library stays single-threaded
// (MPI_THREAD_FUNNELED), the rank's blocking waits are never robbed of the completions
// they wait for, and the agent needs no lock inside the engine. A user callback the
// agent runs (a user-defined reduction op of a nonblocking collective) runs with the
// hold taken by the agent; MPI calls it makes are nested calls (on_agent()).
//
// The agent's loop: take the hold if it is free, run Context::progress() until it
// finds nothing, let go, and wait for what the channel waits for (event: sleeping on
// completion events, no CPU while idle, paying the platform's event latency; poll: a
// polling wait, which takes CPU from the rank's core), at most
// TWINFAB_ASYNC_PROGRESS_INTERVAL. While the rank is in MPI the agent sleeps that
// interval between looks: the rank progresses itself then.
//
// An error the agent meets (a peer gone) is kept and raised in the rank's next MPI
// call that waits for progress (Context::progress_or_wait); the agent stops.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "fabric/agent_mutex.hpp"
#include "fabric/completion_queue.hpp"
#include "fabric/runtime.hpp"
#include "mpi/core/config.hpp"

namespace twinfab::mpi {

class Context;
class Channel;

class AsyncProgressAgent {
 public:
  /// Spawns the agent (mode Event or Poll) for `context`, whose channel is `channel`.
  /// The hold is taken on return, for the caller: it is inside the library (MPI_Init)
  /// and lets go with leave() when its call ends.
  AsyncProgressAgent(Context& context, Channel& channel, fabric::Runtime& runtime, AsyncProgress mode,
                     double interval_seconds);
  /// Stops the agent and joins it (through the runtime). Called with the hold taken by
  /// the rank (MPI_Finalize), which keeps the agent out of the library meanwhile.
  ~AsyncProgressAgent();
  AsyncProgressAgent(const AsyncProgressAgent&) = delete;
  AsyncProgressAgent& operator=(const AsyncProgressAgent&) = delete;

  /// The rank enters the library (an MPI call begins): waits until the agent's pass
  /// is over, then holds the agent out.
  void enter() { hold_.lock(); }
  /// The rank leaves the library (its MPI call is over): the agent may progress.
  void leave() noexcept { hold_.unlock(); }
  /// Rethrows, once, the error that stopped the agent (an mpi::Error), if any. The
  /// rank calls it inside its call, with the hold taken (Context's waits do).
  void rethrow_error();
  /// Whether the caller is the agent (or another agent of the rank) rather than the
  /// rank: a call made from inside the agent's pass is nested and takes no hold.
  bool on_agent() const { return runtime_.on_agent(); }
  /// Where the library above notes the MPI call in progress (mpi/capi's RankState::
  /// call): the agent's pass names itself there while it holds the library, so the
  /// calls its callbacks make are nested calls. Set once, by the rank, before it
  /// first lets the agent in.
  void set_call_slot(const char** slot) noexcept { call_slot_ = slot; }


 private:
  void run();
  /// One look: a progress pass if the hold is free. False when the rank held it.
  bool pass(bool& found_work);

  Context& context_;
  Channel& channel_;
  fabric::Runtime& runtime_;
  const AsyncProgress mode_;
  const double interval_;
  fabric::AgentMutex hold_;
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;  ///< written by the agent under the hold, read by the rank under it
  std::vector<fabric::CompletionQueue*> sources_;  ///< the agent's copy of the channel's wait set
  double deadline_ = fabric::Runtime::kForever;
  bool memory_ = false;  ///< the wait set asks for Runtime::wait (shared memory)
  std::uint64_t passes_ = 0;  ///< passes that found work (the debug log at the end)
  const char** call_slot_ = nullptr;
  std::unique_ptr<fabric::Agent> agent_;  ///< last: starts once the members above exist
};

}  // namespace twinfab::mpi
