// twinfab MPI C API: one-sided communication (MPI-3.1 chapter 11) over mpi/rma.
//
// Each function translates handles and hands over to the rank's rma::RmaEngine
// (window_table.hpp). Errors of a call on a window go to the window's error handler
// (MPI_ERRORS_ARE_FATAL unless MPI_Win_set_errhandler changed it), those of the
// creating calls to the communicator's, as MPI-3.1 §8.3 orders.
#include <fmt/format.h>

#include <climits>
#include <cstring>

#include "mpi/capi/attributes.hpp"
#include "mpi/capi/handle_bits.hpp"
#include "mpi/capi/rank_state.hpp"
#include "mpi/capi/window_table.hpp"
#include "mpi/coll/collectives.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

// What the shared bodies get for `request`: kNoRequest from MPI_Put and the other
// forms without one; a request form (MPI_Rput, ...) passes the program's pointer, or
// kRequestForm for a null one (refused as such).
// Sentinels compared by address only, never written.
MPI_Request no_request_slot, null_request_slot;
MPI_Request* const kNoRequest = &no_request_slot;
MPI_Request* const kRequestForm = &null_request_slot;
MPI_Request* request_arg(MPI_Request* request) { return request != nullptr ? request : kRequestForm; }

/// Where a shared body stores the request it makes: null for the forms without one;
/// MPI_ERR_ARG for a request form given no pointer; MPI_REQUEST_NULL until then.
MPI_Request* request_out(MPI_Request* request, const char* where) {
  if (request == kRequestForm) require_pointer(nullptr, where, "request");
  if (request == kNoRequest) return nullptr;
  *request = MPI_REQUEST_NULL;
  return request;
}

WindowTable& table(RankState& s) {
  if (!s.windows) s.windows = std::make_unique<WindowTable>(s.ctx());
  return *s.windows;
}

WindowEntry* find_entry(RankState& s, MPI_Win win) {
  if (!s.windows) return nullptr;
  const std::uint32_t b = handle_bits(win);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kWinBase || index >= s.windows->entries.size()) return nullptr;
  WindowEntry& e = s.windows->entries[index];
  return e.window != nullptr ? &e : nullptr;
}

WindowEntry& entry_of(RankState& s, MPI_Win win, const char* where) {
  WindowEntry* e = find_entry(s, win);
  if (e == nullptr)
    throw Error(ErrorClass::MPI_ERR_WIN, fmt::format("{}(win)", where),
                win == MPI_WIN_NULL ? std::string("win is MPI_WIN_NULL")
                                    : fmt::format("0x{:x} is not a live window", handle_bits(win)));
  return *e;
}

rma::Window& window_of(RankState& s, MPI_Win win, const char* where) { return *entry_of(s, win, where).window; }

/// Runs `body` for a call on window `win`: errors go to the window's handler (to
/// MPI_COMM_WORLD's when `win` is no live window).
template <class Body>
int win_entry(const char* function, MPI_Win win, Body&& body) {
  return entry_reporting(
      function,
      [win](RankState& s, int error_class, std::string_view message) {
        WindowEntry* e = find_entry(s, win);
        if (e == nullptr) return raise(s, MPI_COMM_WORLD, error_class, message);
        return raise_to(s, e->errhandler, win, error_class, message);
      },
      std::forward<Body>(body));
}

MPI_Win add_window(RankState& s, rma::Window* window, MPI_Comm comm) {
  WindowTable& t = table(s);
  if (t.entries.size() > kHandleIndexMask) {
    rma::Window* w = window;
    t.engine.free(w, "MPI_Win_create");
    throw Error(ErrorClass::MPI_ERR_INTERN, "MPI_Win_create", "this rank created 2^24 windows already");
  }
  // A window starts with MPI_ERRORS_ARE_FATAL (MPI-3.1 §8.3.3), whatever the communicator's.
  (void)comm;
  t.entries.push_back(WindowEntry{window, MPI_ERRORS_ARE_FATAL});
  return static_cast<MPI_Win>(kWinBase | static_cast<std::uint32_t>(t.entries.size() - 1));
}

/// Keeps the hints given at creation for MPI_Win_get_info (MPI-3.1 §11.2.7: the hints
/// the implementation uses; twinfab reports every key the program set).
void keep_info(RankState& s, rma::Window& window, MPI_Info info, const char* where) {
  if (info == MPI_INFO_NULL) return;
  InfoObject& object = s.infos.get(info, where);
  for (std::size_t i = 0; i < object.size(); ++i) window.info[object.key(i)] = *object.find(object.key(i));
}

/// The predefined op of an accumulate: MPI_ERR_OP for MPI_OP_NULL, a user-defined op
/// (one-sided accumulates take predefined ones only, MPI-3.1 §11.3.4) or anything else.
Op rma_op(MPI_Op handle, const char* where, bool allow_no_op) {
  const std::uint32_t b = handle_bits(handle);
  if ((b & ~kHandleIndexMask) == kOpBase && (b & kHandleIndexMask) <= static_cast<std::uint32_t>(Op::NoOp)) {
    const auto op = static_cast<Op>(b & kHandleIndexMask);
    if (op == Op::NoOp && !allow_no_op)
      throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op=MPI_NO_OP)", where),
                  "MPI_NO_OP is for MPI_Get_accumulate, MPI_Rget_accumulate and MPI_Fetch_and_op");
    return op;
  }
  if (handle == MPI_OP_NULL) throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op)", where), "op is MPI_OP_NULL");
  throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op=0x{:x})", where, b),
              "one-sided accumulates take a predefined op, MPI_REPLACE or MPI_NO_OP, not a user-defined one");
}

int assertions_of(int assert, const char* where) {
  constexpr int kKnown = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
  if ((assert & ~kKnown) != 0)
    throw Error(ErrorClass::MPI_ERR_ASSERT, fmt::format("{}(assert={})", where, assert),
                "not a combination of MPI_MODE_NOCHECK, _NOSTORE, _NOPUT, _NOPRECEDE and _NOSUCCEED");
  int out = 0;
  if (assert & MPI_MODE_NOCHECK) out |= rma::assertion::kNoCheck;
  if (assert & MPI_MODE_NOSTORE) out |= rma::assertion::kNoStore;
  if (assert & MPI_MODE_NOPUT) out |= rma::assertion::kNoPut;
  if (assert & MPI_MODE_NOPRECEDE) out |= rma::assertion::kNoPrecede;
  if (assert & MPI_MODE_NOSUCCEED) out |= rma::assertion::kNoSucceed;
  return out;
}

void check_count(long long count, const char* where, const char* arg) {
  if (count < 0)
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}({}={})", where, arg, count), "negative count");
}

// ---- shared bodies of MPI_X and MPI_X_c

int win_create(const char* where, void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
               MPI_Win* win) {
  return entry(where, comm, [&](RankState& s) {
    require_pointer(win, where, "win");
    if (info != MPI_INFO_NULL) s.infos.get(info, where);
    if (disp_unit > INT_MAX)
      throw Error(ErrorClass::MPI_ERR_DISP, fmt::format("{}(disp_unit={})", where, disp_unit), "too large");
    const Communicator& c = s.comm(comm, where);
    rma::Window* w = table(s).engine.create(base, size, static_cast<int>(disp_unit), c, where);
    keep_info(s, *w, info, where);
    *win = add_window(s, w, comm);
    return MPI_SUCCESS;
  });
}

int win_allocate(const char* where, bool shared, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                 void* baseptr, MPI_Win* win) {
  return entry(where, comm, [&](RankState& s) {
    require_pointer(win, where, "win");
    require_pointer(baseptr, where, "baseptr");
    if (info != MPI_INFO_NULL) s.infos.get(info, where);
    if (disp_unit > INT_MAX)
      throw Error(ErrorClass::MPI_ERR_DISP, fmt::format("{}(disp_unit={})", where, disp_unit), "too large");
    const Communicator& c = s.comm(comm, where);
    rma::RmaEngine& engine = table(s).engine;
    rma::Window* w = shared ? engine.allocate_shared(size, static_cast<int>(disp_unit), c, where)
                            : engine.allocate(size, static_cast<int>(disp_unit), c, where);
    *static_cast<void**>(baseptr) = w->base;
    keep_info(s, *w, info, where);
    *win = add_window(s, w, comm);
    return MPI_SUCCESS;
  });
}

int shared_query(const char* where, MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(size, where, "size");
    require_pointer(disp_unit, where, "disp_unit");
    require_pointer(baseptr, where, "baseptr");
    std::int64_t n = 0;
    int unit = 0;
    s.windows->engine.shared_query(window_of(s, win, where), rank, &n, &unit, static_cast<void**>(baseptr), where);
    *size = static_cast<MPI_Aint>(n);
    *disp_unit = unit;
    return MPI_SUCCESS;
  });
}

int put(const char* where, const void* origin, long long origin_count, MPI_Datatype origin_type, int target,
        MPI_Aint disp, long long target_count, MPI_Datatype target_type, MPI_Win win, MPI_Request* request) {
  return win_entry(where, win, [&](RankState& s) {
    request = request_out(request, where);
    check_count(origin_count, where, "origin_count");
    check_count(target_count, where, "target_count");
    rma::Window& w = window_of(s, win, where);
    RequestId id = kRequestNull;
    s.windows->engine.put(w, origin, origin_count, s.type(origin_type, where, "origin_datatype"), target, disp,
                          target_count, s.type(target_type, where, "target_datatype"), where,
                          request != nullptr ? &id : nullptr);
    if (request != nullptr) *request = s.add_request(id, MPI_COMM_WORLD, where);
    return MPI_SUCCESS;
  });
}

int get(const char* where, void* origin, long long origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
        long long target_count, MPI_Datatype target_type, MPI_Win win, MPI_Request* request) {
  return win_entry(where, win, [&](RankState& s) {
    request = request_out(request, where);
    check_count(origin_count, where, "origin_count");
    check_count(target_count, where, "target_count");
    rma::Window& w = window_of(s, win, where);
    RequestId id = kRequestNull;
    s.windows->engine.get(w, origin, origin_count, s.type(origin_type, where, "origin_datatype"), target, disp,
                          target_count, s.type(target_type, where, "target_datatype"), where,
                          request != nullptr ? &id : nullptr);
    if (request != nullptr) *request = s.add_request(id, MPI_COMM_WORLD, where);
    return MPI_SUCCESS;
  });
}

int accumulate(const char* where, const void* origin, long long origin_count, MPI_Datatype origin_type, int target,
               MPI_Aint disp, long long target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win,
               MPI_Request* request) {
  return win_entry(where, win, [&](RankState& s) {
    request = request_out(request, where);
    check_count(origin_count, where, "origin_count");
    check_count(target_count, where, "target_count");
    rma::Window& w = window_of(s, win, where);
    const Op o = rma_op(op, where, false);
    RequestId id = kRequestNull;
    s.windows->engine.accumulate(w, origin, origin_count, s.type(origin_type, where, "origin_datatype"), target,
                                 disp, target_count, s.type(target_type, where, "target_datatype"), o, where,
                                 request != nullptr ? &id : nullptr);
    if (request != nullptr) *request = s.add_request(id, MPI_COMM_WORLD, where);
    return MPI_SUCCESS;
  });
}

int get_accumulate(const char* where, const void* origin, long long origin_count, MPI_Datatype origin_type,
                   void* result, long long result_count, MPI_Datatype result_type, int target, MPI_Aint disp,
                   long long target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return win_entry(where, win, [&](RankState& s) {
    request = request_out(request, where);
    check_count(result_count, where, "result_count");
    check_count(target_count, where, "target_count");
    rma::Window& w = window_of(s, win, where);
    const Op o = rma_op(op, where, true);
    if (o != Op::NoOp) check_count(origin_count, where, "origin_count");
    // MPI_NO_OP ignores the origin buffer and its type: any handle will do.
    const DatatypePtr origin_dt = o == Op::NoOp ? nullptr : s.type(origin_type, where, "origin_datatype");
    RequestId id = kRequestNull;
    s.windows->engine.get_accumulate(w, origin, origin_count, origin_dt, result, result_count,
                                     s.type(result_type, where, "result_datatype"), target, disp, target_count,
                                     s.type(target_type, where, "target_datatype"), o, where,
                                     request != nullptr ? &id : nullptr);
    if (request != nullptr) *request = s.add_request(id, MPI_COMM_WORLD, where);
    return MPI_SUCCESS;
  });
}

/// The window's group as the caller's group handle.
int sync_call(const char* where, MPI_Win win, void (*call)(rma::RmaEngine&, rma::Window&, const char*)) {
  return win_entry(where, win, [&](RankState& s) {
    call(s.windows->engine, window_of(s, win, where), where);
    return MPI_SUCCESS;
  });
}

}  // namespace

namespace twinfab::mpi::capi {
void check_window(RankState& s, MPI_Win win, const char* where) { entry_of(s, win, where); }
}  // namespace twinfab::mpi::capi

extern "C" {

// ---------------------------------------------------------------- attributes

int MPI_WIN_DUP_FN(MPI_Win, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn, MPI_Win_delete_attr_function* win_delete_attr_fn,
                          int* win_keyval, void* extra_state) {
  const char* where = "MPI_Win_create_keyval";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(win_keyval, where, "win_keyval");
    *win_keyval = create_keyval(s, AttributeObject::Window, win_copy_attr_fn, win_delete_attr_fn, extra_state, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_free_keyval(int* win_keyval) {
  const char* where = "MPI_Win_free_keyval";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(win_keyval, where, "win_keyval");
    free_keyval(s, AttributeObject::Window, *win_keyval, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const char* where = "MPI_Win_set_attr";
  return win_entry(where, win, [&](RankState& s) {
    set_attribute(s, Object::win(win), win_keyval, attribute_val, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  const char* where = "MPI_Win_delete_attr";
  return win_entry(where, win, [&](RankState& s) {
    delete_attribute(s, Object::win(win), win_keyval, where);
    return MPI_SUCCESS;
  });
}

// ---------------------------------------------------------------- windows

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return win_create("MPI_Win_create", base, size, disp_unit, info, comm, win);
}
int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return win_create("MPI_Win_create_c", base, size, disp_unit, info, comm, win);
}
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return win_allocate("MPI_Win_allocate", false, size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return win_allocate("MPI_Win_allocate_c", false, size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return win_allocate("MPI_Win_allocate_shared", true, size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                              MPI_Win* win) {
  return win_allocate("MPI_Win_allocate_shared_c", true, size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  MPI_Aint unit = 0;
  const int rc = shared_query("MPI_Win_shared_query", win, rank, size, disp_unit != nullptr ? &unit : nullptr, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = static_cast<int>(unit);
  return rc;
}
int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const char* where = "MPI_Win_create_dynamic";
  return entry(where, comm, [&](RankState& s) {
    require_pointer(win, where, "win");
    if (info != MPI_INFO_NULL) s.infos.get(info, where);
    rma::Window* w = table(s).engine.create_dynamic(s.comm(comm, where), where);
    keep_info(s, *w, info, where);
    *win = add_window(s, w, comm);
    return MPI_SUCCESS;
  });
}

int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const char* where = "MPI_Win_attach";
  return win_entry(where, win, [&](RankState& s) {
    s.windows->engine.attach(window_of(s, win, where), base, size, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_detach(MPI_Win win, const void* base) {
  const char* where = "MPI_Win_detach";
  return win_entry(where, win, [&](RankState& s) {
    s.windows->engine.detach(window_of(s, win, where), base, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_free(MPI_Win* win) {
  const char* where = "MPI_Win_free";
  return win_entry(where, win != nullptr ? *win : MPI_WIN_NULL, [&](RankState& s) {
    require_pointer(win, where, "win");
    entry_of(s, *win, where);
    // The delete callbacks first, while the window is still there for them (as
    // MPI_Comm_free does): a callback that fails leaves the window as it was.
    delete_all_attributes(s, Object::win(*win), where);
    WindowEntry& e = entry_of(s, *win, where);
    s.windows->engine.free(e.window, where);
    s.release_errhandler(std::exchange(e.errhandler, MPI_ERRORS_ARE_FATAL));
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  const char* where = "MPI_Win_get_group";
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(group, where, "group");
    *group = s.add_group(s.ctx().comm_group(*window_of(s, win, where).comm));
    return MPI_SUCCESS;
  });
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const char* where = "MPI_Win_get_attr";
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(attribute_val, where, "attribute_val");
    require_pointer(flag, where, "flag");
    rma::Window& w = window_of(s, win, where);
    // MPI hands out pointers to the values: they live in the window, as long as it does.
    MPI_Aint& size = w.attributes.size;
    MPI_Aint& disp_unit = w.attributes.disp_unit;
    int& flavor = w.attributes.flavor;
    int& model = w.attributes.model;
    *flag = 1;
    switch (win_keyval) {
      case MPI_WIN_BASE: *static_cast<void**>(attribute_val) = w.base; break;
      case MPI_WIN_SIZE:
        size = static_cast<MPI_Aint>(w.size);
        *static_cast<MPI_Aint**>(attribute_val) = &size;
        break;
      case MPI_WIN_DISP_UNIT:
        disp_unit = w.disp_unit;
        *static_cast<MPI_Aint**>(attribute_val) = &disp_unit;
        break;
      case MPI_WIN_CREATE_FLAVOR:
        flavor = static_cast<int>(w.flavor) + MPI_WIN_FLAVOR_CREATE;
        *static_cast<int**>(attribute_val) = &flavor;
        break;
      case MPI_WIN_MODEL:
        model = MPI_WIN_UNIFIED;
        *static_cast<int**>(attribute_val) = &model;
        break;
      default: {
        void* value = nullptr;
        const bool found = get_attribute(s, Object::win(win), win_keyval, value, where);
        if (found) *static_cast<void**>(attribute_val) = value;
        *flag = found ? 1 : 0;
      }
    }
    return MPI_SUCCESS;
  });
}

int MPI_Win_set_name(MPI_Win win, const char* win_name) {
  const char* where = "MPI_Win_set_name";
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(win_name, where, "win_name");
    const std::size_t n = std::strlen(win_name);
    window_of(s, win, where).name.assign(win_name, std::min<std::size_t>(n, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
  });
}

int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  const char* where = "MPI_Win_get_name";
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(win_name, where, "win_name");
    require_pointer(resultlen, where, "resultlen");
    const std::string& name = window_of(s, win, where).name;
    std::memcpy(win_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
    return MPI_SUCCESS;
  });
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  const char* where = "MPI_Win_set_info";
  return win_entry(where, win, [&](RankState& s) {
    keep_info(s, window_of(s, win, where), info, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  const char* where = "MPI_Win_get_info";
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(info_used, where, "info_used");
    rma::Window& w = window_of(s, win, where);
    InfoObject object;
    // What the window does (MPI-3.1 §11.2.1's keys, with the values that hold here).
    object.set("no_locks", "false");
    object.set("accumulate_ordering", "rar,raw,war,waw");
    object.set("accumulate_ops", "same_op_no_op");
    object.set("same_size", "false");
    object.set("same_disp_unit", "false");
    for (const auto& [key, value] : w.info) object.set(key, value);
    *info_used = s.infos.add(std::move(object), where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn, MPI_Errhandler* errhandler) {
  const char* where = "MPI_Win_create_errhandler";
  return entry_anytime(where, [&](RankState& s) {
    require_pointer(reinterpret_cast<const void*>(win_errhandler_fn), where, "win_errhandler_fn");
    require_pointer(errhandler, where, "errhandler");
    *errhandler = s.add_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(win_errhandler_fn));
    return MPI_SUCCESS;
  });
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  const char* where = "MPI_Win_set_errhandler";
  return win_entry(where, win, [&](RankState& s) {
    WindowEntry& e = entry_of(s, win, where);
    s.errhandler_function(errhandler, where);  // refuses a bad or freed handle
    s.hold_errhandler(errhandler);  // first: the old and the new one may be the same
    s.release_errhandler(std::exchange(e.errhandler, errhandler));
    return MPI_SUCCESS;
  });
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const char* where = "MPI_Win_get_errhandler";
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(errhandler, where, "errhandler");
    *errhandler = s.new_errhandler_handle(entry_of(s, win, where).errhandler);
    return MPI_SUCCESS;
  });
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  const char* where = "MPI_Win_call_errhandler";
  RankState* state = nullptr;
  const int rc = win_entry(where, win, [&](RankState& s) {
    entry_of(s, win, where);
    state = &s;
    return MPI_SUCCESS;
  });
  if (rc != MPI_SUCCESS || state == nullptr) return rc;
  raise_to(*state, entry_of(*state, win, where).errhandler, win, errorcode,
           fmt::format("{}: error code {} raised by the program", where, errorcode));
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- communication

int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, kNoRequest);
}
int MPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, kNoRequest);
}
int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request_arg(request));
}
int MPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
               MPI_Request* request) {
  return put("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request_arg(request));
}
int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, kNoRequest);
}
int MPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, kNoRequest);
}
int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request_arg(request));
}
int MPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
               MPI_Request* request) {
  return get("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request_arg(request));
}
int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, kNoRequest);
}
int MPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                     MPI_Win win) {
  return accumulate("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, kNoRequest);
}
int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                    MPI_Request* request) {
  return accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, request_arg(request));
}
int MPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win, MPI_Request* request) {
  return accumulate("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, request_arg(request));
}
int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                       int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return get_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, kNoRequest);
}
int MPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                         void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                         MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win) {
  return get_accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, kNoRequest);
}
int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request* request) {
  return get_accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request_arg(request));
}
int MPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request* request) {
  return get_accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
                        result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                        win, request_arg(request));
}
int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return get_accumulate("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                        target_disp, 1, datatype, op, win, kNoRequest);
}
int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr, MPI_Datatype datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Win win) {
  const char* where = "MPI_Compare_and_swap";
  return win_entry(where, win, [&](RankState& s) {
    s.windows->engine.compare_and_swap(window_of(s, win, where), origin_addr, compare_addr, result_addr,
                                       s.type(datatype, where), target_rank, target_disp, where);
    return MPI_SUCCESS;
  });
}

// ---------------------------------------------------------------- synchronization

int MPI_Win_fence(int assert, MPI_Win win) {
  const char* where = "MPI_Win_fence";
  return win_entry(where, win, [&](RankState& s) {
    const int a = assertions_of(assert, where);
    s.windows->engine.fence(window_of(s, win, where), a, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  const char* where = "MPI_Win_post";
  return win_entry(where, win, [&](RankState& s) {
    const int a = assertions_of(assert, where);
    s.windows->engine.post(window_of(s, win, where), s.group(group, where), a, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  const char* where = "MPI_Win_start";
  return win_entry(where, win, [&](RankState& s) {
    const int a = assertions_of(assert, where);
    s.windows->engine.start(window_of(s, win, where), s.group(group, where), a, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_complete(MPI_Win win) {
  return sync_call("MPI_Win_complete", win,
                   [](rma::RmaEngine& e, rma::Window& w, const char* where) { e.complete(w, where); });
}

int MPI_Win_wait(MPI_Win win) {
  return sync_call("MPI_Win_wait", win, [](rma::RmaEngine& e, rma::Window& w, const char* where) { e.wait(w, where); });
}

int MPI_Win_test(MPI_Win win, int* flag) {
  const char* where = "MPI_Win_test";
  return win_entry(where, win, [&](RankState& s) {
    require_pointer(flag, where, "flag");
    *flag = s.windows->engine.test(window_of(s, win, where), where) ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  const char* where = "MPI_Win_lock";
  return win_entry(where, win, [&](RankState& s) {
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
      throw Error(ErrorClass::MPI_ERR_LOCKTYPE, fmt::format("{}(lock_type={})", where, lock_type),
                  "neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
    const int a = assertions_of(assert, where);
    s.windows->engine.lock(window_of(s, win, where),
                           lock_type == MPI_LOCK_SHARED ? rma::LockType::Shared : rma::LockType::Exclusive, rank, a,
                           where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  const char* where = "MPI_Win_unlock";
  return win_entry(where, win, [&](RankState& s) {
    s.windows->engine.unlock(window_of(s, win, where), rank, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_lock_all(int assert, MPI_Win win) {
  const char* where = "MPI_Win_lock_all";
  return win_entry(where, win, [&](RankState& s) {
    const int a = assertions_of(assert, where);
    s.windows->engine.lock_all(window_of(s, win, where), a, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_unlock_all(MPI_Win win) {
  return sync_call("MPI_Win_unlock_all", win,
                   [](rma::RmaEngine& e, rma::Window& w, const char* where) { e.unlock_all(w, where); });
}

int MPI_Win_flush(int rank, MPI_Win win) {
  const char* where = "MPI_Win_flush";
  return win_entry(where, win, [&](RankState& s) {
    s.windows->engine.flush(window_of(s, win, where), rank, false, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_flush_local(int rank, MPI_Win win) {
  const char* where = "MPI_Win_flush_local";
  return win_entry(where, win, [&](RankState& s) {
    s.windows->engine.flush(window_of(s, win, where), rank, true, where);
    return MPI_SUCCESS;
  });
}

int MPI_Win_flush_all(MPI_Win win) {
  return sync_call("MPI_Win_flush_all", win,
                   [](rma::RmaEngine& e, rma::Window& w, const char* where) { e.flush_all(w, false, where); });
}

int MPI_Win_flush_local_all(MPI_Win win) {
  return sync_call("MPI_Win_flush_local_all", win,
                   [](rma::RmaEngine& e, rma::Window& w, const char* where) { e.flush_all(w, true, where); });
}

int MPI_Win_sync(MPI_Win win) {
  return sync_call("MPI_Win_sync", win, [](rma::RmaEngine& e, rma::Window& w, const char* where) { e.sync(w, where); });
}

}  // extern "C"
