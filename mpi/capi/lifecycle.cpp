#include "mpi/capi/lifecycle.hpp"
#include "mpi/capi/window_table.hpp"

#include <fmt/format.h>

#include <memory>

#include "fabric/log.hpp"
#include "mpi/capi/foreign_mpi.hpp"
#include "mpi/capi/rank_host.hpp"
#include "mpi/capi/tools_interface.hpp"

namespace twinfab::mpi::capi {

void acquire_context(RankState& s, const char* function) {
  if (s.context) return;
  if (s.released)
    throw Error(ErrorClass::MPI_ERR_UNSUPPORTED_OPERATION, function,
                "MPI was finalized in this process already (MPI_Finalize, or the last MPI_Session_finalize, "
                "released the rank's resources), and twinfab cannot initialize it again: keep one session (or "
                "the World model) open for as long as the program uses MPI");
  // Before the device opens: whatever it would do with the other library's handles is
  // meaningless (foreign_mpi.hpp).
  if (const auto other = find_foreign_mpi())
    fatal(MPI_ERR_OTHER, fmt::format("{}: {}", function, describe_foreign_mpi(*other)));
  RankHost& host = rank_host();
  try {
    // The program's copy of the library has its own log (under `twinfab sim` too, where
    // the launcher's log is another copy): TWINFAB_LOG_LEVEL=debug must reach the
    // messages of its ranks (the collectives' choices, say).
    fabric::apply_log_level_from_environment();
    RankResources resources = host.open();
    // Control variables the tools interface read (and the program may have written)
    // before start-up are the rank's final configuration.
    // No Config on this frame (the defaults are a static): see Context's constructor.
    static const Config kDefaults{};
    const Config* chosen = config_before_init(s);
    s.set_up(std::make_unique<Context>(resources.device, resources.oob, chosen != nullptr ? *chosen : kDefaults,
                                       chosen != nullptr ? Context::Environment::Applied
                                                         : Context::Environment::Apply));
  } catch (const Error& e) {
    fatal(e.code(), fmt::format("{}: {}", function, e.what()));
  } catch (const std::exception& e) {
    fatal(MPI_ERR_OTHER, fmt::format("{}: {}", function, e.what()));
  }
  ProgramServices* services = host.program_services();
  if (services != nullptr && services->measures_computation()) s.call_observer = services;
  // Started last, held for this call (MPI_Init, MPI_Session_init): entry() lets it in
  // when the call ends (rank_state.hpp).
  if (AsyncProgressAgent* agent = s.context->start_async_progress()) hold_agent(s, agent);
}

bool context_in_use(const RankState& s) { return (s.initialized && !s.finalized) || s.open_sessions() > 0; }

void release_context_if_unused(RankState& s) {
  if (!s.context || context_in_use(s)) return;
  s.drain_bsends();  // buffered messages still in flight are delivered first
  s.reap_detached(true);
  // MPI_T reads the control variables after the end too: kept once the Context is gone.
  const std::shared_ptr<const Config> config = s.ctx().shared_config();
  s.windows.reset();           // windows the program did not free: their engine hooks into the Context
  s.async_progress = nullptr;  // the Context stops it first (held out meanwhile: the rank is in this call)
  s.rank_in_call = false;
  s.context.reset();           // collective: drains the channel, meets every rank
  keep_config_at_finalize(s, *config);
  rank_host().close();
  s.released = true;
  s.call_observer = nullptr;  // what the program does after MPI is not timed, nor held
  s.agent_hold.reset();
}

}  // namespace twinfab::mpi::capi
