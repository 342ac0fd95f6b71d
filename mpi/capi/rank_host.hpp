// twinfab MPI C API: where a rank's fabric comes from.
//
// The C API (mpi.h) has no handle through which a program could name its device,
// so MPI_Init asks the process's RankHost for the calling rank's device and
// out-of-band exchange, and keeps the rank's MPI state in the slot the host gives
// it. Two hosts exist:
//
//  - the simulator launcher (`twinfab sim -n N ./prog`) runs every rank as a SimGrid
//    actor in one process; it installs its host before any rank starts, and its
//    state_slot() is per actor;
//  - on hardware, with no host installed, default_rank_host() is used: one rank per
//    process, started by a PMIx process manager (mpirun, srun --mpi=pmix), device
//    opened through the verbs backend, connection data exchanged through PMIx.
//
// This header is the whole contract between mpi/capi and the launchers; mpi/capi
// itself still sees only fabric/ (ARCHITECTURE rule 1: the host pointer is written
// once, before any rank runs, and is never a per-rank variable).
#pragma once

#include <string_view>

#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"

namespace twinfab::mpi::capi {

/// What sees the rank's outermost MPI calls begin and end (RankState::observer): the
/// host's measure of the program's computation (ProgramServices), the asynchronous
/// progress agent's hold (rank_state.hpp), or both. Called only for a call that is no
/// other's nested call: MPI calls made by a user-defined operation are part of the call
/// that runs it.
class CallObserver {
 public:
  virtual ~CallObserver() = default;
  /// The computation since mpi_call_ends() is over: the host may spend it as the
  /// rank's time (and so block the rank) before the MPI call proceeds.
  virtual void mpi_call_begins() {}
  /// The program computes again from here.
  virtual void mpi_call_ends() {}
};

/// What the program's own calls of a few libc functions go through (twinfab-mpicc links
/// them with `-Wl,--wrap=...` to the wrappers in program_wrappers.cpp), for a host that
/// runs several ranks in one process. SMPI does the same for the same functions.
class ProgramServices : public CallObserver {
 public:
  virtual ~ProgramServices() = default;
  /// The calling rank's clock in seconds: gettimeofday, clock_gettime and time read it.
  virtual double now() = 0;
  /// Spends `seconds` of the calling rank's time: sleep, usleep and nanosleep.
  virtual void sleep_for(double seconds) = 0;
  /// Around each getopt/getopt_long/getopt_long_only call of the calling rank: libc
  /// keeps one parsing position per process (optind, optarg, optopt and its own
  /// cursor), which before_getopt() makes the rank's own and after_getopt() takes back.
  virtual void before_getopt() = 0;
  virtual void after_getopt() = 0;

  /// Whether the host turns the program's computation between MPI calls into the
  /// calling rank's time (`twinfab sim --simulate-computation`, SMPI's
  /// smpi/simulate-computation). MPI_Init asks once per rank; when it says yes, every
  /// MPI call of the rank calls mpi_call_begins() on entry and mpi_call_ends() before it
  /// returns (the outermost call only: MPI calls made by a user-defined operation are
  /// part of the call that runs it), and MPI_Init ends with mpi_call_ends().
  virtual bool measures_computation() noexcept { return false; }
};

/// What MPI_Init gets for the calling rank. Both stay valid until RankHost::close().
struct RankResources {
  fabric::Device& device;
  fabric::OobExchange& oob;
};

class RankHost {
 public:
  virtual ~RankHost() = default;

  /// The calling rank's slot for its C-API state: nullptr until MPI_Init stores it.
  /// One slot per rank: per actor in the simulator, per process on hardware.
  virtual void*& state_slot() = 0;
  /// Opens the calling rank's device and out-of-band exchange (the first of MPI_Init /
  /// MPI_Session_init calls it, once per rank: after close(), MPI does not start again). Throws fabric::Error with a message that says what to do when
  /// that is impossible (no device, not started by a process manager, ...).
  virtual RankResources open() = 0;
  /// Releases what open() gave (the last of MPI_Finalize / MPI_Session_finalize, after
  /// the rank's Context is gone).
  virtual void close() = 0;
  /// Ends the whole job with exit status `code` after printing "twinfab: <message>"
  /// (MPI_Abort, MPI_ERRORS_ARE_FATAL). `message` already names the rank where it is
  /// known (fatal() adds "rank N: "): the host adds no prefix of its own. Does not return.
  [[noreturn]] virtual void abort(int code, std::string_view message) = 0;
  /// For diagnostics: "simulator", "pmix", ...
  virtual std::string_view name() const noexcept = 0;
  /// Whether MPI_Wtime reads one clock shared by every rank of the job, so that times
  /// taken on different ranks compare (MPI_WTIME_IS_GLOBAL). True only when that is
  /// so: the simulator's ranks all read the simulated time; processes on hardware read
  /// their own node's clock, which nothing synchronizes.
  virtual bool clock_is_global() const noexcept { return false; }
  /// The services the program's libc calls go through while the caller is a rank of
  /// this host; nullptr (hardware: one rank per process, or a caller that is no rank):
  /// the real libc functions.
  virtual ProgramServices* program_services() noexcept { return nullptr; }
};

/// Installs the host the C API uses from now on (nullptr: back to the default).
/// Call before any rank runs; not synchronised.
void install_rank_host(RankHost* host) noexcept;
/// The installed host, or default_rank_host() when none is installed.
RankHost& rank_host();
/// The hardware start-up host (PMIx + verbs); defined by the layer that links the
/// backends into the C library, not by mpi/capi.
RankHost& default_rank_host();

/// What a launcher learns when a rank's program has returned (end_rank()).
struct RankOutcome {
  bool initialized = false;  ///< called MPI_Init or MPI_Init_thread
  bool finalized = false;    ///< called MPI_Finalize
  int open_sessions = 0;     ///< sessions of MPI_Session_init not finalized
  /// Whether the rank left MPI unfinished, which the launcher reports as a failed job:
  /// MPI_Init without MPI_Finalize, or a session without MPI_Session_finalize.
  bool unfinished() const noexcept { return (initialized && !finalized) || open_sessions > 0; }
};
/// For launchers, on the rank's own actor/thread after its program returned: whether
/// it initialized and finalized MPI, and how many sessions it left open. Releases the
/// rank's C-API state and clears its slot when that is safe (the rank's Context was
/// released by its last MPI_Finalize / MPI_Session_finalize, or never made); a rank
/// that left MPI unfinished keeps its Context (destroying it is collective), and the
/// launcher must end the job.
RankOutcome end_rank() noexcept;
/// For launchers, when a job deadlocked: the MPI function (e.g. "MPI_Recv") the rank
/// whose C-API state is `state` (the contents of its state_slot()) was blocked in, or
/// nullptr when it was in none.
const char* call_in_progress(const void* state) noexcept;

}  // namespace twinfab::mpi::capi
