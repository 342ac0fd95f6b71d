// twinfab MPI C API: the rank's windows (MPI_Win handles) and its one-sided engine.
//
// Made at the rank's first window and released before its Context (lifecycle.cpp):
// the engine (mpi/rma/rma_engine.hpp) hooks into the Context's progress. Handles are
// kWinBase + an index, never reused, so a freed window's handle stays invalid.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi/capi/mpi.h"
#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::capi {

inline constexpr std::uint32_t kWinBase = 0xa0000000;

struct WindowEntry {
  rma::Window* window = nullptr;  ///< null: freed
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
};

struct WindowTable {
  explicit WindowTable(Context& context) : engine(context) {}
  rma::RmaEngine engine;
  std::vector<WindowEntry> entries;
};

class RankState;
/// MPI_ERR_WIN ("<where>(win)") unless `win` is a live window of the rank (rma.cpp):
/// what the attribute functions check of a window.
void check_window(RankState& s, MPI_Win win, const char* where);

}  // namespace twinfab::mpi::capi
