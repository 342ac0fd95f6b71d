// MPI C API: start-up and shut-down, version and error queries, user error classes and
// codes, error handlers.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "fabric/error.hpp"
#include "mpi/capi/attributes.hpp"
#include "mpi/capi/lifecycle.hpp"
#include "mpi/capi/rank_host.hpp"
#include "mpi/capi/rank_state.hpp"
#include "mpi/capi/tools_interface.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

/// Copies `text` into a C buffer of `capacity` bytes (NUL-terminated, truncated).
void copy_out(std::string_view text, char* out, int* resultlen, std::size_t capacity) {
  const std::size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  *resultlen = static_cast<int>(n);
}

int init(const char* function) {
  RankState* const existing = current_state();
  if (existing != nullptr && (existing->initialized || existing->finalized))
    fatal(MPI_ERR_OTHER, existing->finalized ? fmt::format("{} called after MPI_Finalize", function)
                                             : fmt::format("{} called twice (MPI is already initialized)", function));
  // The state may exist already, made by a call allowed before MPI_Init (the tools
  // interface, the info calls) or by MPI_Session_init; MPI_Init then takes it over, and
  // shares the sessions' Context when they have made it (lifecycle.hpp).
  RankState* const state = existing != nullptr ? existing : create_state();
  // The sessions' asynchronous progress agent, if any, stays out as for any call; one
  // made here starts held for this call (rank_state.hpp).
  if (state->async_progress != nullptr) enter_with_agent(state);
  // With the sessions' Context, the program's computation is measured already: this
  // call ends it as any MPI call does.
  if (state->call_observer != nullptr) state->call_observer->mpi_call_begins();
  try {
    acquire_context(*state, function);
  } catch (const Error& e) {  // released by the last MPI_Session_finalize
    fatal(e.code(), e.what());
  }
  state->open_world();
  if (state->call_observer != nullptr) state->call_observer->mpi_call_ends();  // the program computes from here on
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Init(int*, char***) { return init("MPI_Init"); }

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (provided == nullptr) fatal(MPI_ERR_ARG, "MPI_Init_thread(provided): null pointer");
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    fatal(MPI_ERR_ARG, fmt::format("MPI_Init_thread(required={}): not a thread level (MPI_THREAD_SINGLE ... "
                                   "MPI_THREAD_MULTIPLE)",
                                   required));
  (void)argc;
  (void)argv;
  const int rc = init("MPI_Init_thread");
  // One thread per rank makes MPI calls; nothing inside is locked.
  *provided = std::min(required, MPI_THREAD_FUNNELED);
  current_state()->thread_level = *provided;
  return rc;
}

int MPI_Query_thread(int* provided) {
  return entry("MPI_Query_thread", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(provided, "MPI_Query_thread", "provided");
    *provided = s.thread_level;
    return MPI_SUCCESS;
  });
}

int MPI_Is_thread_main(int* flag) {
  return entry("MPI_Is_thread_main", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(flag, "MPI_Is_thread_main", "flag");
    *flag = std::this_thread::get_id() == s.main_thread ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Initialized(int* flag) {
  if (flag == nullptr) fatal(MPI_ERR_ARG, "MPI_Initialized(flag): null pointer");
  RankState* state = current_state();
  *flag = state != nullptr && state->initialized ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  if (flag == nullptr) fatal(MPI_ERR_ARG, "MPI_Finalized(flag): null pointer");
  RankState* state = current_state();
  *flag = state != nullptr && state->finalized ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  RankState* const state = current_state();
  if (state != nullptr && state->active() && !state->initialized)
    fatal(MPI_ERR_OTHER, "MPI_Finalize called without MPI_Init (only sessions are open: end them with "
                         "MPI_Session_finalize)");
  if (state != nullptr && state->active() && state->finalized)
    fatal(MPI_ERR_OTHER, "MPI_Finalize called twice (sessions still open keep MPI running)");
  return entry("MPI_Finalize", MPI_COMM_WORLD, [](RankState& s) {
    // MPI-3.1 §8.7.1: first of all, MPI_COMM_SELF's attributes are deleted as if it
    // were freed (libraries hook their clean-up to that, and may still call MPI:
    // MPI_Finalized says 0 meanwhile). Then MPI_COMM_WORLD's, as MPICH does; other
    // communicators the program did not free keep theirs (no callback runs). A
    // callback that fails makes MPI_Finalize fail with its code, MPI still initialized.
    delete_all_attributes(s, Object::comm(MPI_COMM_SELF), "MPI_Finalize");
    delete_all_attributes(s, Object::comm(MPI_COMM_WORLD), "MPI_Finalize");
    s.close_world();  // MPI_COMM_WORLD and MPI_COMM_SELF go; MPI_Finalized says 1
    // Unless sessions are still open (they keep the Context, and the last
    // MPI_Session_finalize releases it): collective, drains the channel, meets every
    // rank (lifecycle.hpp).
    release_context_if_unused(s);
    return MPI_SUCCESS;
  });
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;  // the whole job ends, whatever the communicator
  // fatal() names the rank ("rank 1: MPI_Abort(errorcode=42) called").
  fatal(errorcode, fmt::format("MPI_Abort(errorcode={}) called", errorcode));
}

double MPI_Wtime(void) {
  double t = 0;
  entry("MPI_Wtime", MPI_COMM_WORLD, [&](RankState& s) {
    // The program's clock where the host has one (the simulator: reading it costs the
    // rank a little time, so a loop on MPI_Wtime ends), else the fabric runtime's.
    ProgramServices* services = rank_host().program_services();
    t = services != nullptr ? services->now() : s.ctx().runtime().now();
    return MPI_SUCCESS;
  });
  return t;
}

double MPI_Wtick(void) {
  entry("MPI_Wtick", MPI_COMM_WORLD, [](RankState&) { return MPI_SUCCESS; });
  return 1e-9;
}

int MPI_Pcontrol(const int level, ...) {
  // MPI-3.1 §14.2.4: a hook for profiling tools; the library itself ignores it.
  static_cast<void>(level);
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  if (version == nullptr || subversion == nullptr) fatal(MPI_ERR_ARG, "MPI_Get_version: null pointer");
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char* version, int* resultlen) {
  if (version == nullptr || resultlen == nullptr) fatal(MPI_ERR_ARG, "MPI_Get_library_version: null pointer");
  copy_out("twinfab MPI 0.1 (MPI 3.1 subset over the twinfab fabric: simulated or verbs)", version, resultlen,
           MPI_MAX_LIBRARY_VERSION_STRING);
  return MPI_SUCCESS;
}

int MPI_Get_processor_name(char* name, int* resultlen) {
  return entry("MPI_Get_processor_name", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(name, "MPI_Get_processor_name", "name");
    require_pointer(resultlen, "MPI_Get_processor_name", "resultlen");
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    // In the simulator every rank is in this process: say which host it simulates.
    const std::string text = rank_host().name() == "simulator"
                                 ? fmt::format("{} (simulated, rank {})", host, s.ctx().world().rank())
                                 : std::string(host);
    copy_out(text, name, resultlen, MPI_MAX_PROCESSOR_NAME);
    return MPI_SUCCESS;
  });
}

namespace {

/// The predefined error codes are the classes (MPICH's values), MPI_ERR_LASTCODE
/// excluded (a bound, not a class); the others are those the rank added
/// (MPI_Add_error_class, MPI_Add_error_code).
bool is_error_code(int code) {
  if (code == MPI_ERR_LASTCODE) return false;
  if (code == MPI_ERR_UNKNOWN || error_class_from_int(code) != ErrorClass::MPI_ERR_UNKNOWN) return true;
  const RankState* state = current_state();
  return state != nullptr && state->active() && state->user_error(code) != nullptr;
}

/// The user-defined class or code `code`, or null (before MPI_Init, after
/// MPI_Finalize, or a predefined one).
const UserErrorCode* user_error(int code) {
  const RankState* state = current_state();
  return state != nullptr && state->active() ? state->user_error(code) : nullptr;
}

/// MPI_ERR_ARG for a value that is no error code (Open MPI's class), through
/// MPI_COMM_WORLD's handler between MPI_Init and MPI_Finalize; fatal outside, where
/// there is no handler (these two functions may be called there).
int refuse_error_code(const char* where, int code) {
  const std::string what = fmt::format("{}(errorcode={})", where, code);
  RankState* state = current_state();
  if (state == nullptr || !state->active()) fatal(MPI_ERR_ARG, what + ": not an error code");
  return entry(where, MPI_COMM_WORLD, [&](RankState&) -> int {
    throw Error(ErrorClass::MPI_ERR_ARG, what, "not an error code");
  });
}

}  // namespace

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (string == nullptr || resultlen == nullptr) fatal(MPI_ERR_ARG, "MPI_Error_string: null pointer");
  if (!is_error_code(errorcode)) return refuse_error_code("MPI_Error_string", errorcode);
  // A user-defined one without MPI_Add_error_string has an empty text (MPI-3.1 §8.5).
  const UserErrorCode* user = user_error(errorcode);
  copy_out(user != nullptr ? std::string_view(user->text) : error_string(error_class_from_int(errorcode)), string,
           resultlen, MPI_MAX_ERROR_STRING);
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  if (errorclass == nullptr) fatal(MPI_ERR_ARG, "MPI_Error_class(errorclass): null pointer");
  if (!is_error_code(errorcode)) return refuse_error_code("MPI_Error_class", errorcode);
  const UserErrorCode* user = user_error(errorcode);
  *errorclass = user != nullptr ? user->error_class : static_cast<int>(error_class_from_int(errorcode));
  return MPI_SUCCESS;
}

int MPI_Add_error_class(int* errorclass) {
  return entry("MPI_Add_error_class", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(errorclass, "MPI_Add_error_class", "errorclass");
    *errorclass = s.add_error_class("MPI_Add_error_class");
    return MPI_SUCCESS;
  });
}

int MPI_Add_error_code(int errorclass, int* errorcode) {
  return entry("MPI_Add_error_code", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(errorcode, "MPI_Add_error_code", "errorcode");
    *errorcode = s.add_error_code(errorclass, "MPI_Add_error_code");
    return MPI_SUCCESS;
  });
}

int MPI_Add_error_string(int errorcode, const char* string) {
  return entry("MPI_Add_error_string", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(string, "MPI_Add_error_string", "string");
    s.set_error_string(errorcode, string, "MPI_Add_error_string");
    return MPI_SUCCESS;
  });
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn, MPI_Errhandler* errhandler) {
  return entry("MPI_Comm_create_errhandler", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(reinterpret_cast<const void*>(comm_errhandler_fn), "MPI_Comm_create_errhandler",
                    "comm_errhandler_fn");
    require_pointer(errhandler, "MPI_Comm_create_errhandler", "errhandler");
    *errhandler = s.add_errhandler(comm_errhandler_fn);
    return MPI_SUCCESS;
  });
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return entry("MPI_Comm_set_errhandler", comm, [&](RankState& s) {
    s.set_errhandler(comm, errhandler, "MPI_Comm_set_errhandler");
    return MPI_SUCCESS;
  });
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return entry("MPI_Comm_get_errhandler", comm, [&](RankState& s) {
    s.comm_entry(comm, "MPI_Comm_get_errhandler");  // MPI_ERR_COMM before MPI_ERR_ARG
    require_pointer(errhandler, "MPI_Comm_get_errhandler", "errhandler");
    *errhandler = s.get_errhandler(comm, "MPI_Comm_get_errhandler");
    return MPI_SUCCESS;
  });
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  return entry("MPI_Comm_call_errhandler", comm, [&](RankState& s) {
    const MPI_Errhandler handler = s.comm_entry(comm, "MPI_Comm_call_errhandler").errhandler;
    if (handler == MPI_ERRORS_RETURN) return MPI_SUCCESS;  // MPICH and Open MPI return success
    if (is_predefined_errhandler(handler)) {  // MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT
      if (errorcode == MPI_SUCCESS) return MPI_SUCCESS;  // nothing to report
      raise_to(s, handler, comm, errorcode, fmt::format("MPI_Comm_call_errhandler(errorcode={})", errorcode));
    }
    // Copies, as raise() makes; the function is called whatever the code.
    MPI_Comm handle = comm;
    int code = errorcode;
    s.errhandler_in_use(handler)(&handle, &code);
    return MPI_SUCCESS;
  });
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  // Allowed at any time (MPI-4.0 §11.4.1), as the session handlers it frees are made.
  return entry_anytime("MPI_Errhandler_free", [&](RankState& s) {
    require_pointer(errhandler, "MPI_Errhandler_free", "errhandler");
    s.free_errhandler(*errhandler, "MPI_Errhandler_free");
    return MPI_SUCCESS;
  });
}

}  // extern "C"
