// twinfab MPI C API: a rank's sessions (MPI_Session_init) and the process sets they
// show (MPI-4.0 §11.3).
//
// A session is a handle with an error handler and a thread level; what it gives access
// to (the device, the connections) is the rank's one Context, shared with the World
// model and the other sessions (lifecycle.hpp). The table lives in RankState::sessions,
// made at the rank's first MPI_Session_init. Handles are kSessionBase + an index; slots
// are never reused, so a finalized session's handle stays invalid (MPI_ERR_SESSION).
//
// Process sets: the two MPI-4.0 requires, "mpi://WORLD" (every rank of the job, in
// MPI_COMM_WORLD's order) and "mpi://SELF" (the caller). The process manager defines
// no others here. Names compare without regard to case, as in MPICH (whose own test
// asks for "mpi://self"; URI schemes are case-insensitive too).
#pragma once

#include <string_view>
#include <vector>

#include "mpi/capi/rank_state.hpp"

namespace twinfab::mpi::capi {

struct SessionEntry {
  bool live = false;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;  ///< held (RankState::hold_errhandler)
  int thread_level = MPI_THREAD_SINGLE;              ///< provided
};

class SessionTable {
 public:
  /// A new live session using `errhandler` (which the caller holds for it).
  MPI_Session add(MPI_Errhandler errhandler, int thread_level, const char* where);
  /// The live session behind `handle`; MPI_ERR_SESSION for MPI_SESSION_NULL, a
  /// finalized or an invalid handle, naming `where`.
  SessionEntry& get(MPI_Session handle, const char* where);
  /// The live session behind `handle`, or null.
  SessionEntry* find(MPI_Session handle);
  /// Ends a live session (the caller lets go of its error handler).
  void remove(MPI_Session handle);
  /// Sessions added and not removed.
  int open() const noexcept { return open_; }

 private:
  std::vector<SessionEntry> entries_;
  int open_ = 0;
};

// ---- process sets
/// How many process sets a session shows (2).
int pset_count() noexcept;
/// The name of process set `n`, 0 <= n < pset_count().
std::string_view pset_name(int n) noexcept;
/// The group of process set `name` (the caller's rank in it set); MPI_ERR_ARG for a
/// null, too long (MPI_MAX_PSET_NAME_LEN) or unknown name.
GroupPtr pset_group(const Context& context, const char* name, const char* where);

/// MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE by their names, as the "thread_level" info
/// key has them; -1 for another text.
int thread_level_from_name(std::string_view name) noexcept;
std::string_view thread_level_name(int level) noexcept;

}  // namespace twinfab::mpi::capi
