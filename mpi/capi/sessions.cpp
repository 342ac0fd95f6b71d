// MPI C API: the Sessions model (MPI-4.0 §11.3): MPI_Session_init and _finalize, the
// process set queries, MPI_Group_from_session_pset, MPI_Comm_create_from_group and the
// session error handlers. The sessions are in session_table.hpp; the Context they
// share with the World model comes and goes through lifecycle.hpp.
//
// Where errors go (MPI-4.0 §9.3): a call on a live session reports to the session's
// handler; MPI_Session_init and MPI_Comm_create_from_group to their errhandler
// argument, once it is known to be a valid handler; everything else (an invalid
// session or errhandler handle) is an error without an object: MPI_COMM_WORLD's handler
// in the World model, else the initial handler, MPI_ERRORS_ARE_FATAL.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "mpi/capi/lifecycle.hpp"
#include "mpi/capi/rank_state.hpp"
#include "mpi/capi/session_table.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

/// Errors of a call on `session`: to the session's handler when it is live, else as
/// errors without an object.
auto reporting_to_session(MPI_Session session) {
  return [session](RankState& s, int error_class, std::string_view message) {
    const SessionEntry* e = s.sessions ? s.sessions->find(session) : nullptr;
    if (e == nullptr) return raise(s, MPI_COMM_WORLD, error_class, message);
    return raise_to(s, e->errhandler, session, error_class, message);
  };
}

/// Errors of a call whose errhandler argument `handler` (checked valid) takes them; the
/// function gets `handle` (the null handle: the object was not made).
auto reporting_to(MPI_Errhandler handler, int handle) {
  return [handler, handle](RankState& s, int error_class, std::string_view message) {
    return raise_to(s, handler, handle, error_class, message);
  };
}

/// MPI_ERR_ARG unless `handler` is predefined or a live handler of the wanted kind.
void check_errhandler_kind(const RankState& s, MPI_Errhandler handler, bool for_sessions, const char* where) {
  s.errhandler_function(handler, where);  // MPI_ERR_ARG for null, freed or invalid handles
  if (!is_predefined_errhandler(handler) && s.is_session_errhandler(handler) != for_sessions)
    throw Error(ErrorClass::MPI_ERR_ARG,
                fmt::format("{}(errhandler=0x{:x})", where, static_cast<std::uint32_t>(handler)),
                for_sessions ? "made by MPI_Comm_create_errhandler; a session needs a predefined handler or one of "
                               "MPI_Session_create_errhandler"
                             : "made by MPI_Session_create_errhandler; a communicator needs a predefined handler or "
                               "one of MPI_Comm_create_errhandler");
}

/// The thread level a session asks for in its info ("thread_level"), MPI_THREAD_SINGLE
/// when it does not say. MPI_ERR_INFO_VALUE for a value that names no level.
int requested_thread_level(RankState& s, MPI_Info info, const char* where) {
  if (info == MPI_INFO_NULL) return MPI_THREAD_SINGLE;
  const std::string* value = s.infos.get(info, where).find("thread_level");
  if (value == nullptr) return MPI_THREAD_SINGLE;
  const int level = thread_level_from_name(*value);
  if (level < 0)
    throw Error(ErrorClass::MPI_ERR_INFO_VALUE, fmt::format("{}(info: thread_level=\"{}\")", where, *value),
                "not a thread level (MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED or "
                "MPI_THREAD_MULTIPLE)");
  return level;
}

/// The checked stringtag of MPI_Comm_create_from_group: not null, at most
/// MPI_MAX_STRINGTAG_LEN - 1 characters (MPI_ERR_ARG).
std::string_view checked_stringtag(const char* stringtag, const char* where) {
  if (stringtag == nullptr) throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(stringtag)", where), "null pointer");
  const std::size_t length = strnlen(stringtag, MPI_MAX_STRINGTAG_LEN);
  if (length == MPI_MAX_STRINGTAG_LEN)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(stringtag)", where),
                fmt::format("{} characters; at most MPI_MAX_STRINGTAG_LEN - 1 = {}", std::strlen(stringtag),
                            MPI_MAX_STRINGTAG_LEN - 1));
  return {stringtag, length};
}

/// The live session `session`; MPI_ERR_SESSION else.
SessionEntry& live_session(RankState& s, MPI_Session session, const char* where) {
  if (!s.sessions) s.sessions = std::make_unique<SessionTable>();  // empty: get() says why
  return s.sessions->get(session, where);
}

}  // namespace

extern "C" {

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const char* where = "MPI_Session_init";
  // The handler first: until it is known to be one, errors have no handler but the
  // initial one (or MPI_COMM_WORLD's).
  const int rc = entry_anytime(where, [&](RankState& s) {
    check_errhandler_kind(s, errhandler, true, where);
    return MPI_SUCCESS;
  });
  if (rc != MPI_SUCCESS) return rc;
  return entry_anytime_reporting(where, reporting_to(errhandler, MPI_SESSION_NULL), [&](RankState& s) {
    // Every argument before the Context is made: a refused call takes no part in the
    // collective start-up.
    require_pointer(session, where, "session");
    const int requested = requested_thread_level(s, info, where);
    acquire_context(s, where);  // the first use of MPI on the rank: collective over the job
    if (!s.sessions) s.sessions = std::make_unique<SessionTable>();
    // One thread per rank makes MPI calls; nothing inside is locked (MPI_Init_thread).
    *session = s.sessions->add(errhandler, std::min(requested, MPI_THREAD_FUNNELED), where);
    s.hold_errhandler(errhandler);
    return MPI_SUCCESS;
  });
}

int MPI_Session_finalize(MPI_Session* session) {
  const char* where = "MPI_Session_finalize";
  const MPI_Session handle = session != nullptr ? *session : MPI_SESSION_NULL;
  return entry_reporting(where, reporting_to_session(handle), [&](RankState& s) {
    require_pointer(session, where, "session");
    const MPI_Errhandler handler = live_session(s, handle, where).errhandler;
    s.sessions->remove(handle);
    s.release_errhandler(handler);
    *session = MPI_SESSION_NULL;
    // The rank's last use of MPI: collective over every rank of the job (lifecycle.hpp).
    release_context_if_unused(s);
    return MPI_SUCCESS;
  });
}

int MPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  const char* where = "MPI_Session_get_info";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    const SessionEntry& e = live_session(s, session, where);
    require_pointer(info_used, where, "info_used");
    InfoObject info;
    info.set("thread_level", thread_level_name(e.thread_level));
    *info_used = s.infos.add(std::move(info), where);
    return MPI_SUCCESS;
  });
}

int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  const char* where = "MPI_Session_get_num_psets";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    live_session(s, session, where);
    s.infos.check_hints(info, where);
    require_pointer(npset_names, where, "npset_names");
    *npset_names = pset_count();
    return MPI_SUCCESS;
  });
}

int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len, char* pset_name) {
  const char* where = "MPI_Session_get_nth_pset";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    live_session(s, session, where);
    s.infos.check_hints(info, where);
    if (n < 0 || n >= pset_count())
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(n={})", where, n),
                  fmt::format("no such process set; n must be in [0, {}) (MPI_Session_get_num_psets)", pset_count()));
    require_pointer(pset_len, where, "pset_len");
    if (*pset_len < 0)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(pset_len={})", where, *pset_len), "negative length");
    const std::string_view name = capi::pset_name(n);  // the parameter hides the function
    if (*pset_len > 0) {
      require_pointer(pset_name, where, "pset_name");
      const std::size_t copied = std::min(name.size(), static_cast<std::size_t>(*pset_len - 1));
      std::memcpy(pset_name, name.data(), copied);
      pset_name[copied] = '\0';
    }
    *pset_len = static_cast<int>(name.size() + 1);  // the size needed, terminator included
    return MPI_SUCCESS;
  });
}

int MPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  const char* where = "MPI_Session_get_pset_info";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    live_session(s, session, where);
    const GroupPtr group = pset_group(s.ctx(), pset_name, where);
    require_pointer(info, where, "info");
    InfoObject object;
    object.set("mpi_size", std::to_string(group->size()));
    *info = s.infos.add(std::move(object), where);
    return MPI_SUCCESS;
  });
}

int MPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  const char* where = "MPI_Group_from_session_pset";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    live_session(s, session, where);
    GroupPtr group = pset_group(s.ctx(), pset_name, where);
    require_pointer(newgroup, where, "newgroup");
    *newgroup = s.add_group(std::move(group));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
                               MPI_Comm* newcomm) {
  const char* where = "MPI_Comm_create_from_group";
  const int rc = entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    check_errhandler_kind(s, errhandler, false, where);
    return MPI_SUCCESS;
  });
  if (rc != MPI_SUCCESS) return rc;
  return entry_reporting(where, reporting_to(errhandler, MPI_COMM_NULL), [&](RankState& s) {
    const GroupPtr g = s.group(group, where);
    const std::string_view tag = checked_stringtag(stringtag, where);
    s.infos.check_hints(info, where);
    require_pointer(newcomm, where, "newcomm");
    *newcomm = s.add_comm(s.ctx().comm_create_from_group(g, tag), errhandler);
    return MPI_SUCCESS;
  });
}

int MPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                  MPI_Errhandler* errhandler) {
  const char* where = "MPI_Session_create_errhandler";
  // Allowed before MPI_Session_init (MPI-4.0 §11.4.1): its handler is an argument.
  return entry_anytime(where, [&](RankState& s) {
    require_pointer(reinterpret_cast<const void*>(session_errhandler_fn), where, "session_errhandler_fn");
    require_pointer(errhandler, where, "errhandler");
    *errhandler = s.add_errhandler(session_errhandler_fn, true);
    return MPI_SUCCESS;
  });
}

int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  const char* where = "MPI_Session_set_errhandler";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    SessionEntry& e = live_session(s, session, where);
    check_errhandler_kind(s, errhandler, true, where);
    s.hold_errhandler(errhandler);  // first: the old and the new one may be the same
    s.release_errhandler(std::exchange(e.errhandler, errhandler));
    return MPI_SUCCESS;
  });
}

int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  const char* where = "MPI_Session_get_errhandler";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    const SessionEntry& e = live_session(s, session, where);
    require_pointer(errhandler, where, "errhandler");
    *errhandler = s.new_errhandler_handle(e.errhandler);
    return MPI_SUCCESS;
  });
}

int MPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  const char* where = "MPI_Session_call_errhandler";
  return entry_reporting(where, reporting_to_session(session), [&](RankState& s) {
    const MPI_Errhandler handler = live_session(s, session, where).errhandler;
    // As MPI_Comm_call_errhandler: success once the handler returns, whatever it did
    // with the code; the fatal handlers abort (but for MPI_SUCCESS: nothing to report).
    if (is_predefined_errhandler(handler)) {
      if (handler != MPI_ERRORS_RETURN)
        raise_to(s, handler, session, errorcode, fmt::format("{}(errorcode={})", where, errorcode));
      return MPI_SUCCESS;
    }
    MPI_Session handle = session;
    int code = errorcode;
    s.errhandler_in_use(handler)(&handle, &code);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
