// MPI C API: the tools information interface (MPI_T; tools_interface.hpp says how it
// lives in a rank, tools_tables.hpp what it lists).
//
// Error codes (§14.3.9), checked in this order so that a refused call changes nothing:
// MPI_T_ERR_NOT_INITIALIZED outside MPI_T_init_thread .. MPI_T_finalize; then the
// session (MPI_T_ERR_INVALID_SESSION), the index (MPI_T_ERR_INVALID_INDEX) or handle
// (MPI_T_ERR_INVALID_HANDLE, also for a handle of another session), null pointers the
// call needs (MPI_T_ERR_INVALID), and last what the variable allows.
#include "mpi/capi/tools_interface.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <string_view>

#include "mpi/capi/rank_state.hpp"
#include "mpi/capi/tools_tables.hpp"
#include "mpi/core/config_variables.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi::capi {

const Config* config_before_init(const RankState& state) {
  return state.tools != nullptr && state.tools->config ? &*state.tools->config : nullptr;
}

void keep_config_at_finalize(RankState& state, const Config& config) {
  if (state.tools == nullptr) state.tools = std::make_unique<ToolsState>();
  state.tools->config = config;
}

namespace {

// ---- handles: a kind in bits 32-39 above the id (or, for an enumeration, the
// control variable's index), as a pointer value that is never dereferenced. The kinds
// keep a handle of one type passed (cast) as another from being taken for it.
static_assert(sizeof(void*) == 8, "MPI_T handles carry a 32-bit id and a kind in a pointer");
constexpr std::uintptr_t kEnumKind = 0x5e;
constexpr std::uintptr_t kCvarKind = 0x6c;
constexpr std::uintptr_t kPvarKind = 0x6d;
constexpr std::uintptr_t kSessionKind = 0x6e;

template <class Handle>
Handle make_handle(std::uintptr_t kind, std::uint32_t id) {
  return reinterpret_cast<Handle>((kind << 32) | id);
}

/// The id in `handle` when it has kind `kind` (0 otherwise: no id is 0).
template <class Handle>
std::uint32_t id_of(Handle handle, std::uintptr_t kind) {
  const auto bits = reinterpret_cast<std::uintptr_t>(handle);
  return (bits >> 32) == kind ? static_cast<std::uint32_t>(bits) : 0;
}

/// A new id for a handle or session; 0 when the 2^32 - 1 ids are spent (never reused).
std::uint32_t new_id(ToolsState& t) { return t.last_id == std::numeric_limits<std::uint32_t>::max() ? 0 : ++t.last_id; }

// ---- where the rank is: the control variables' home and whether counters exist.
enum class Phase { BeforeInit, Running, Finalized };

Phase phase(const RankState& s) {
  // The rank's Context runs from the first MPI_Init / MPI_Session_init to the last
  // MPI_Finalize / MPI_Session_finalize (lifecycle.hpp), whichever model made it.
  if (s.context != nullptr) return Phase::Running;
  return s.released ? Phase::Finalized : Phase::BeforeInit;
}

const Config& current_config(const RankState& s, const ToolsState& t) {
  return phase(s) == Phase::Running ? s.context->config() : *t.config;
}

/// The boundary of every MPI_T function but MPI_T_init_thread: MPI_T_ERR_NOT_INITIALIZED
/// unless MPI_T is initialized; exceptions become codes (MPI_T_ERR_MEMORY for an
/// allocation that failed, MPI_T_ERR_INVALID for anything else), never an MPI error
/// handler. Exceptions that are not std::exceptions (the runtime unwinding the rank)
/// pass through, as in entry().
template <class Body>
int tools_call(Body&& body) {
  RankState* s = current_state();
  if (s == nullptr || s->tools == nullptr || s->tools->initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
  try {
    return body(*s, *s->tools);
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  } catch (const std::exception&) {
    return MPI_T_ERR_INVALID;
  }
}

/// A string out by the convention of §14.3.3: `*len` in is the buffer's size, out the
/// string's length + 1; the string goes in, truncated, unless the buffer is null or its
/// size 0; a null `len` returns nothing (the buffer is ignored).
void put_string(std::string_view text, char* buffer, int* len) {
  if (len == nullptr) return;
  if (buffer != nullptr && *len > 0) {
    const std::size_t n = std::min(text.size(), static_cast<std::size_t>(*len) - 1);
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  *len = static_cast<int>(text.size()) + 1;
}

template <class T>
void put(T* out, T value) {
  if (out != nullptr) *out = value;
}

bool valid_cvar_index(int index) {
  return index >= 0 && static_cast<std::size_t>(index) < config_variables().size();
}
bool valid_pvar_index(int index) {
  return index >= 0 && static_cast<std::size_t>(index) < tools::performance_variables().size();
}
bool valid_category_index(int index) {
  return index >= 0 && static_cast<std::size_t>(index) < tools::categories().size();
}

/// The control variable a valid enumeration handle names, or nullptr.
const ConfigVariable* enumeration(MPI_T_enum handle) {
  const auto bits = reinterpret_cast<std::uintptr_t>(handle);
  if ((bits >> 32) != kEnumKind) return nullptr;
  const auto index = static_cast<std::uint32_t>(bits);
  const auto variables = config_variables();
  if (index >= variables.size() || variables[index].kind != ConfigVariableKind::Choice) return nullptr;
  return &variables[index];
}

/// The variable index behind a live control variable handle, or -1.
int cvar_of(const ToolsState& t, MPI_T_cvar_handle handle) {
  const auto it = t.cvar_handles.find(id_of(handle, kCvarKind));
  return it == t.cvar_handles.end() ? -1 : it->second;
}

/// The live session `session` names, or 0.
std::uint32_t session_of(const ToolsState& t, MPI_T_pvar_session session) {
  const std::uint32_t id = id_of(session, kSessionKind);
  return t.sessions.count(id) != 0 ? id : 0;
}

/// The live performance variable handle of `session` that `handle` names, or null.
ToolsState::PvarHandle* pvar_of(ToolsState& t, std::uint32_t session, MPI_T_pvar_handle handle) {
  const auto it = t.pvar_handles.find(id_of(handle, kPvarKind));
  return it == t.pvar_handles.end() || it->second.session != session ? nullptr : &it->second;
}

/// Frees every handle of `session` (MPI_T_pvar_session_free, MPI_T_finalize).
void free_session_handles(ToolsState& t, std::uint32_t session) {
  std::erase_if(t.pvar_handles, [session](const auto& entry) { return entry.second.session == session; });
}

/// A category's list out (MPI_T_category_get_cvars and the like).
int put_indices(int cat_index, int len, int indices[], std::vector<int> tools::Category::*list) {
  if (!valid_category_index(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  const std::vector<int>& all = tools::categories()[static_cast<std::size_t>(cat_index)].*list;
  std::copy_n(all.begin(), std::min(all.size(), static_cast<std::size_t>(len)), indices);
  return MPI_SUCCESS;
}

/// The value a performance variable handle reads now (the Context must be running).
std::uint64_t pvar_value(const RankState& s, const ToolsState::PvarHandle& h) {
  const tools::PerformanceVariable& v = tools::performance_variables()[static_cast<std::size_t>(h.index)];
  const std::uint64_t now = v.read(*s.context);
  // Unsigned difference: exact as long as the counter did not wrap 2^64 since.
  return tools::resettable(v) ? now - h.start : now;
}

/// MPI_T_pvar_start and MPI_T_pvar_stop: every variable is continuous, so one handle
/// is refused and MPI_T_PVAR_ALL_HANDLES has nothing to do (§14.3.7: continuous
/// variables are ignored there).
int start_or_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return tools_call([&](RankState&, ToolsState& t) {
    const std::uint32_t sid = session_of(t, session);
    if (sid == 0) return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
    if (pvar_of(t, sid, handle) == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_PVAR_NO_STARTSTOP;
  });
}

}  // namespace

}  // namespace twinfab::mpi::capi

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

extern "C" {

// ---------------------------------------------------------------- init, finalize

int MPI_T_init_thread(int required, int* provided) {
  if (provided == nullptr || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return MPI_T_ERR_INVALID;
  try {
    RankState* s = current_state();
    if (s == nullptr) s = create_state();  // MPI_Init takes it over
    if (s->tools == nullptr) s->tools = std::make_unique<ToolsState>();
    ToolsState& t = *s->tools;
    // Before MPI_Init the control variables start as MPI_Init would make them. A
    // value MPI_Init would refuse leaves the interface uninitialized: there is no
    // configuration to show. (After MPI_Finalize the config is there already:
    // keep_config_at_finalize; the test only keeps current_config() safe.)
    if (phase(*s) != Phase::Running && !t.config) {
      try {
        t.config = apply_environment(Config{});
      } catch (const Error&) {
        return MPI_T_ERR_CANNOT_INIT;
      }
    }
    ++t.initialized;
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
  // One thread per rank calls MPI, as for MPI_Init_thread.
  *provided = std::min(required, MPI_THREAD_FUNNELED);
  return MPI_SUCCESS;
}

int MPI_T_finalize(void) {
  return tools_call([](RankState&, ToolsState& t) {
    // The last one ends every session and handle (the control variables' values stay:
    // they are the library's, and a later MPI_T_init_thread shows them again).
    if (--t.initialized == 0) {
      t.cvar_handles.clear();
      t.pvar_handles.clear();
      t.sessions.clear();
    }
    return MPI_SUCCESS;
  });
}

// ---------------------------------------------------------------- enumerations

int MPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  return tools_call([&](RankState&, ToolsState&) {
    const ConfigVariable* v = enumeration(enumtype);
    if (v == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    put(num, static_cast<int>(v->choices.size()));
    put_string(v->name, name, name_len);  // the enumeration is named as its variable
    return MPI_SUCCESS;
  });
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  return tools_call([&](RankState&, ToolsState&) {
    const ConfigVariable* v = enumeration(enumtype);
    if (v == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || static_cast<std::size_t>(index) >= v->choices.size()) return MPI_T_ERR_INVALID_ITEM;
    put(value, index);  // a choice's value is its word's index
    put_string(v->choices[static_cast<std::size_t>(index)], name, name_len);
    return MPI_SUCCESS;
  });
}

// ---------------------------------------------------------------- control variables

int MPI_T_cvar_get_num(int* num_cvar) {
  return tools_call([&](RankState&, ToolsState&) {
    if (num_cvar == nullptr) return MPI_T_ERR_INVALID;
    *num_cvar = static_cast<int>(config_variables().size());
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                        MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  return tools_call([&](RankState&, ToolsState&) {
    if (!valid_cvar_index(cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const ConfigVariable& v = config_variables()[static_cast<std::size_t>(cvar_index)];
    put_string(v.name, name, name_len);
    put(verbosity, static_cast<int>(MPI_T_VERBOSITY_TUNER_BASIC));
    put(datatype, tools::datatype_of(v));
    put(enumtype, v.kind == ConfigVariableKind::Choice
                      ? make_handle<MPI_T_enum>(kEnumKind, static_cast<std::uint32_t>(cvar_index))
                      : MPI_T_ENUM_NULL);
    put_string(v.description, desc, desc_len);
    put(bind, static_cast<int>(MPI_T_BIND_NO_OBJECT));
    // Every rank must run with the same configuration.
    put(scope, static_cast<int>(MPI_T_SCOPE_ALL_EQ));
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_get_index(const char* name, int* cvar_index) {
  return tools_call([&](RankState&, ToolsState&) {
    if (name == nullptr || cvar_index == nullptr) return MPI_T_ERR_INVALID;
    const auto index = find_config_variable(name);
    if (!index) return MPI_T_ERR_INVALID_NAME;
    *cvar_index = static_cast<int>(*index);
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  static_cast<void>(obj_handle);  // bound to no object: ignored (§14.3.6)
  return tools_call([&](RankState&, ToolsState& t) {
    if (!valid_cvar_index(cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
    const std::uint32_t id = new_id(t);
    if (id == 0) return MPI_T_ERR_OUT_OF_HANDLES;
    t.cvar_handles.emplace(id, cvar_index);
    *handle = make_handle<MPI_T_cvar_handle>(kCvarKind, id);
    *count = 1;
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  return tools_call([&](RankState&, ToolsState& t) {
    if (handle == nullptr) return MPI_T_ERR_INVALID;
    if (cvar_of(t, *handle) < 0) return MPI_T_ERR_INVALID_HANDLE;
    t.cvar_handles.erase(id_of(*handle, kCvarKind));
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  return tools_call([&](RankState& s, ToolsState& t) {
    const int index = cvar_of(t, handle);
    if (index < 0) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_T_ERR_INVALID;
    const ConfigVariable& v = config_variables()[static_cast<std::size_t>(index)];
    const std::uint64_t value = v.get(current_config(s, t));
    switch (v.kind) {
      case ConfigVariableKind::Unsigned32: *static_cast<unsigned*>(buf) = static_cast<unsigned>(value); break;
      case ConfigVariableKind::Unsigned64:
        *static_cast<unsigned long long*>(buf) = static_cast<unsigned long long>(value);
        break;
      case ConfigVariableKind::Choice: *static_cast<int*>(buf) = static_cast<int>(value); break;
    }
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  return tools_call([&](RankState& s, ToolsState& t) {
    const int index = cvar_of(t, handle);
    if (index < 0) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_T_ERR_INVALID;
    // The Context takes its configuration at MPI_Init and keeps it; after
    // MPI_Finalize MPI cannot be initialized again (MPI-3.1 §8.7).
    switch (phase(s)) {
      case Phase::Running: return MPI_T_ERR_CVAR_SET_NOT_NOW;
      case Phase::Finalized: return MPI_T_ERR_CVAR_SET_NEVER;
      case Phase::BeforeInit: break;
    }
    const ConfigVariable& v = config_variables()[static_cast<std::size_t>(index)];
    std::uint64_t value = 0;
    switch (v.kind) {
      case ConfigVariableKind::Unsigned32: value = *static_cast<const unsigned*>(buf); break;
      case ConfigVariableKind::Unsigned64: value = *static_cast<const unsigned long long*>(buf); break;
      case ConfigVariableKind::Choice: {
        const int word = *static_cast<const int*>(buf);
        if (word < 0) return MPI_T_ERR_INVALID;
        value = static_cast<std::uint64_t>(word);
        break;
      }
    }
    // What MPI_Init would refuse (a range, a combination Config::validate rejects) is
    // refused now, with the configuration unchanged.
    try {
      set_config_variable(*t.config, static_cast<std::size_t>(index), value);
    } catch (const Error&) {
      return MPI_T_ERR_INVALID;
    }
    return MPI_SUCCESS;
  });
}

// ---------------------------------------------------------------- performance variables

int MPI_T_pvar_get_num(int* num_pvar) {
  return tools_call([&](RankState&, ToolsState&) {
    if (num_pvar == nullptr) return MPI_T_ERR_INVALID;
    *num_pvar = static_cast<int>(tools::performance_variables().size());
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                        MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                        int* readonly, int* continuous, int* atomic) {
  return tools_call([&](RankState&, ToolsState&) {
    if (!valid_pvar_index(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const tools::PerformanceVariable& v = tools::performance_variables()[static_cast<std::size_t>(pvar_index)];
    put_string(v.name, name, name_len);
    put(verbosity, static_cast<int>(MPI_T_VERBOSITY_TUNER_BASIC));
    put(var_class, v.var_class);
    put(datatype, MPI_UNSIGNED_LONG_LONG);
    put(enumtype, MPI_T_ENUM_NULL);
    put_string(v.description, desc, desc_len);
    put(bind, static_cast<int>(MPI_T_BIND_NO_OBJECT));
    put(readonly, tools::resettable(v) ? 0 : 1);
    put(continuous, 1);  // always counting: the engine counts whether a tool looks or not
    put(atomic, tools::resettable(v) ? 1 : 0);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  return tools_call([&](RankState&, ToolsState&) {
    if (name == nullptr || pvar_index == nullptr) return MPI_T_ERR_INVALID;
    const auto all = tools::performance_variables();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].name == name && all[i].var_class == var_class) {
        *pvar_index = static_cast<int>(i);
        return MPI_SUCCESS;
      }
    }
    return MPI_T_ERR_INVALID_NAME;
  });
}

int MPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  return tools_call([&](RankState&, ToolsState& t) {
    if (session == nullptr) return MPI_T_ERR_INVALID;
    const std::uint32_t id = new_id(t);
    if (id == 0) return MPI_T_ERR_OUT_OF_SESSIONS;
    t.sessions.insert(id);
    *session = make_handle<MPI_T_pvar_session>(kSessionKind, id);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  return tools_call([&](RankState&, ToolsState& t) {
    if (session == nullptr) return MPI_T_ERR_INVALID;
    const std::uint32_t id = session_of(t, *session);
    if (id == 0) return MPI_T_ERR_INVALID_SESSION;
    free_session_handles(t, id);
    t.sessions.erase(id);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle, MPI_T_pvar_handle* handle,
                            int* count) {
  static_cast<void>(obj_handle);  // bound to no object: ignored (§14.3.7)
  return tools_call([&](RankState& s, ToolsState& t) {
    const std::uint32_t sid = session_of(t, session);
    if (sid == 0) return MPI_T_ERR_INVALID_SESSION;
    if (!valid_pvar_index(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
    // The counters belong to the rank's Context: none before MPI_Init or after MPI_Finalize.
    if (phase(s) != Phase::Running) return MPI_T_ERR_INVALID;
    const std::uint32_t id = new_id(t);
    if (id == 0) return MPI_T_ERR_OUT_OF_HANDLES;
    ToolsState::PvarHandle h{sid, pvar_index, 0};
    const tools::PerformanceVariable& v = tools::performance_variables()[static_cast<std::size_t>(pvar_index)];
    if (tools::resettable(v)) h.start = v.read(*s.context);  // a counter starts at 0 (§14.3.7)
    t.pvar_handles.emplace(id, h);
    *handle = make_handle<MPI_T_pvar_handle>(kPvarKind, id);
    *count = 1;
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  return tools_call([&](RankState&, ToolsState& t) {
    const std::uint32_t sid = session_of(t, session);
    if (sid == 0) return MPI_T_ERR_INVALID_SESSION;
    if (handle == nullptr) return MPI_T_ERR_INVALID;
    if (pvar_of(t, sid, *handle) == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    t.pvar_handles.erase(id_of(*handle, kPvarKind));
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return start_or_stop(session, handle); }

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return start_or_stop(session, handle); }

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  return tools_call([&](RankState& s, ToolsState& t) {
    const std::uint32_t sid = session_of(t, session);
    if (sid == 0) return MPI_T_ERR_INVALID_SESSION;
    const ToolsState::PvarHandle* h = pvar_of(t, sid, handle);  // MPI_T_PVAR_ALL_HANDLES is none
    if (h == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_T_ERR_INVALID;
    if (phase(s) != Phase::Running) return MPI_T_ERR_INVALID;  // the counters went with MPI_Finalize
    *static_cast<unsigned long long*>(buf) = pvar_value(s, *h);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  return tools_call([&](RankState&, ToolsState& t) {
    const std::uint32_t sid = session_of(t, session);
    if (sid == 0) return MPI_T_ERR_INVALID_SESSION;
    if (pvar_of(t, sid, handle) == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_T_ERR_INVALID;
    // Counters count events and levels describe the library: none can be set to a
    // value (counters can be reset to 0).
    return MPI_T_ERR_PVAR_NO_WRITE;
  });
}

int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return tools_call([&](RankState& s, ToolsState& t) {
    const std::uint32_t sid = session_of(t, session);
    if (sid == 0) return MPI_T_ERR_INVALID_SESSION;
    const auto variables = tools::performance_variables();
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
      // Read-only variables are skipped (§14.3.7); the others need the counters.
      const bool any = std::any_of(t.pvar_handles.begin(), t.pvar_handles.end(), [&](const auto& entry) {
        const auto& v = variables[static_cast<std::size_t>(entry.second.index)];
        return entry.second.session == sid && tools::resettable(v);
      });
      if (!any) return MPI_SUCCESS;
      if (phase(s) != Phase::Running) return MPI_T_ERR_INVALID;
      for (auto& [id, h] : t.pvar_handles) {
        const tools::PerformanceVariable& v = variables[static_cast<std::size_t>(h.index)];
        if (h.session == sid && tools::resettable(v)) h.start = v.read(*s.context);
      }
      return MPI_SUCCESS;
    }
    ToolsState::PvarHandle* h = pvar_of(t, sid, handle);
    if (h == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    const tools::PerformanceVariable& v = variables[static_cast<std::size_t>(h->index)];
    if (!tools::resettable(v)) return MPI_T_ERR_PVAR_NO_WRITE;
    if (phase(s) != Phase::Running) return MPI_T_ERR_INVALID;
    h->start = v.read(*s.context);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  return tools_call([&](RankState& s, ToolsState& t) {
    const std::uint32_t sid = session_of(t, session);
    if (sid == 0) return MPI_T_ERR_INVALID_SESSION;
    ToolsState::PvarHandle* h = pvar_of(t, sid, handle);  // MPI_T_PVAR_ALL_HANDLES is none
    if (h == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_T_ERR_INVALID;
    const tools::PerformanceVariable& v = tools::performance_variables()[static_cast<std::size_t>(h->index)];
    if (!tools::resettable(v)) return MPI_T_ERR_PVAR_NO_ATOMIC;  // atomic is 0 for these
    if (phase(s) != Phase::Running) return MPI_T_ERR_INVALID;
    // One read serves both: nothing can count in between (the rank runs this call).
    const std::uint64_t now = v.read(*s.context);
    *static_cast<unsigned long long*>(buf) = now - h->start;
    h->start = now;
    return MPI_SUCCESS;
  });
}

// ---------------------------------------------------------------- categories

int MPI_T_category_get_num(int* num_cat) {
  return tools_call([&](RankState&, ToolsState&) {
    if (num_cat == nullptr) return MPI_T_ERR_INVALID;
    *num_cat = static_cast<int>(tools::categories().size());
    return MPI_SUCCESS;
  });
}

int MPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                            int* num_pvars, int* num_categories) {
  return tools_call([&](RankState&, ToolsState&) {
    if (!valid_category_index(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    const tools::Category& c = tools::categories()[static_cast<std::size_t>(cat_index)];
    put_string(c.name, name, name_len);
    put_string(c.description, desc, desc_len);
    put(num_cvars, static_cast<int>(c.cvars.size()));
    put(num_pvars, static_cast<int>(c.pvars.size()));
    put(num_categories, static_cast<int>(c.categories.size()));
    return MPI_SUCCESS;
  });
}

int MPI_T_category_get_index(const char* name, int* cat_index) {
  return tools_call([&](RankState&, ToolsState&) {
    if (name == nullptr || cat_index == nullptr) return MPI_T_ERR_INVALID;
    const auto& all = tools::categories();
    const auto it = std::find_if(all.begin(), all.end(), [&](const tools::Category& c) { return c.name == name; });
    if (it == all.end()) return MPI_T_ERR_INVALID_NAME;
    *cat_index = static_cast<int>(it - all.begin());
    return MPI_SUCCESS;
  });
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return tools_call(
      [&](RankState&, ToolsState&) { return put_indices(cat_index, len, indices, &tools::Category::cvars); });
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return tools_call(
      [&](RankState&, ToolsState&) { return put_indices(cat_index, len, indices, &tools::Category::pvars); });
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  return tools_call(
      [&](RankState&, ToolsState&) { return put_indices(cat_index, len, indices, &tools::Category::categories); });
}

int MPI_T_category_changed(int* stamp) {
  return tools_call([&](RankState&, ToolsState&) {
    if (stamp == nullptr) return MPI_T_ERR_INVALID;
    // The variables and categories are fixed for the whole run (tools_tables.hpp):
    // the stamp never changes.
    *stamp = 0;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
