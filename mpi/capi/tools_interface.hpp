// twinfab MPI C API: the tools information interface (MPI_T, MPI-3.1 §14.3), the
// per-rank state behind it, and its two hooks into MPI_Init and MPI_Finalize.
//
// MPI_T may be used before MPI_Init and after MPI_Finalize (§14.3.4): MPI_T_init_thread
// makes the rank's RankState when there is none (create_state(), which MPI_Init then
// takes over) and a ToolsState in it. Its functions do not go through entry(), which
// aborts outside MPI_Init .. MPI_Finalize and reports errors to MPI error handlers:
// they return MPI_T error codes and never call a handler (§14.3.9); tools_call() in
// tools_interface.cpp is their boundary.
//
// The control variables are the rank's mpi::Config. Before MPI_Init it lives here
// (`config`): the defaults with the TWINFAB_* environment applied when
// MPI_T_init_thread first runs, then what MPI_T_cvar_write changed; MPI_Init builds the
// rank's Context from exactly that Config, without applying the environment again
// (Context::Environment::Applied), so a write wins over the environment variable.
// Between MPI_Init and MPI_Finalize the Context's config is read; at MPI_Finalize it
// is copied back here, so that reads still work after.
//
// Handles (MPI_T_cvar_handle, MPI_T_pvar_handle, MPI_T_pvar_session) are ids the
// rank hands out from one counter and never reuses, so a freed or made-up handle is
// recognised; MPI_T_enum values name a choice variable. See tools_interface.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "mpi/core/config.hpp"

namespace twinfab::mpi::capi {

class RankState;

/// One rank's MPI_T state (RankState::tools; null until the rank first uses MPI_T
/// or finalizes MPI).
struct ToolsState {
  /// MPI_T_init_thread calls not yet matched by MPI_T_finalize (§14.3.4).
  int initialized = 0;
  /// Before MPI_Init: the Config MPI_Init will use (see the top). After MPI_Finalize:
  /// the one the rank ran with. Not used in between (the Context's is read).
  std::optional<Config> config;
  /// The last id handed out to a handle or session.
  std::uint32_t last_id = 0;
  /// Control variable handles: id -> variable index.
  std::map<std::uint32_t, int> cvar_handles;
  /// Live performance experiment sessions, by id.
  std::set<std::uint32_t> sessions;
  struct PvarHandle {
    std::uint32_t session = 0;
    int index = 0;
    /// For a resettable variable: its value when the handle was allocated or last
    /// reset; a read gives the difference.
    std::uint64_t start = 0;
  };
  /// Performance variable handles by id (ordered: MPI_T_PVAR_ALL_HANDLES goes through
  /// a session's handles in allocation order).
  std::map<std::uint32_t, PvarHandle> pvar_handles;
};

/// MPI_Init: the Config the tools interface holds for the rank's Context (final: the
/// environment is applied already), or null when MPI_T was not used before MPI_Init.
const Config* config_before_init(const RankState& state);

/// MPI_Finalize, after it tore the Context down: keeps its Config (`config`, taken
/// from Context::shared_config() before) for MPI_T reads after MPI_Finalize
/// (performance variables went with the Context). After, not before: the tools state
/// made while every rank still holds its Context was part of the simulator's peak
/// memory per rank.
void keep_config_at_finalize(RankState& state, const Config& config);

}  // namespace twinfab::mpi::capi
