// MPI C API: attribute caching on communicators (MPI-3.1 §6.7) and its MPI-1 names
// (MPI_Keyval_create, MPI_Attr_put, ...), and on datatypes (§6.7.4). The tables and
// the rules for callbacks are described in attributes.hpp; MPI_Comm_dup, MPI_Comm_free
// (comm.cpp), MPI_Type_dup, MPI_Type_free (datatype.cpp) and MPI_Finalize (env.cpp)
// call copy_attributes and delete_all_attributes.
//
// Error classes as in MPICH: a keyval that is MPI_KEYVAL_INVALID, was never created,
// was freed, is of another kind, or is predefined where the call would change it is
// MPI_ERR_KEYVAL; a null output pointer MPI_ERR_ARG; a bad communicator MPI_ERR_COMM,
// a bad datatype MPI_ERR_TYPE.
// A callback that fails makes the call return the callback's own code, unchanged
// (MPICH does the same, following the Intel test suite). The keyval functions have no
// communicator: their errors go to MPI_COMM_WORLD's handler.
#include "mpi/capi/attributes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "mpi/capi/handle_bits.hpp"
#include "mpi/capi/rank_host.hpp"
#include "mpi/capi/rank_state.hpp"
#include "mpi/capi/window_table.hpp"

namespace twinfab::mpi::capi {

namespace {

std::uint32_t keyval_base(AttributeObject kind) {
  switch (kind) {
    case AttributeObject::Comm: return kCommKeyvalBase;
    case AttributeObject::Datatype: return kTypeKeyvalBase;
    case AttributeObject::Window: return kWinKeyvalBase;
  }
  return kCommKeyvalBase;
}
int keyval_handle(AttributeObject kind, std::uint32_t index) { return static_cast<int>(keyval_base(kind) + index); }
/// The handle of the keyval at `index` in the tables (its kind is recorded there).
int keyval_handle(const AttributeTables& t, std::uint32_t index) {
  return keyval_handle(t.keyvals[index].object, index);
}
bool is_predefined(int keyval) { return (handle_bits(keyval) & ~kKeyvalIndexMask) == kPredefinedCommKeyvalBase; }

/// The argument's name in error messages: the MPI-1 functions call it `keyval`.
const char* keyval_arg(const char* where) {
  const std::string_view w(where);
  if (w.starts_with("MPI_Comm_")) return "comm_keyval";
  if (w.starts_with("MPI_Type_")) return "type_keyval";
  if (w.starts_with("MPI_Win_")) return "win_keyval";
  return "keyval";
}

const char* creator(AttributeObject kind) {
  switch (kind) {
    case AttributeObject::Comm: return "a communicator keyval (never made by MPI_Comm_create_keyval)";
    case AttributeObject::Datatype: return "a datatype keyval (never made by MPI_Type_create_keyval)";
    case AttributeObject::Window: return "a window keyval (never made by MPI_Win_create_keyval)";
  }
  return "a keyval";
}

/// MPI_ERR_COMM or MPI_ERR_TYPE unless `object` is a live handle of its kind.
void check_object(RankState& s, Object object, const char* where) {
  if (object.kind == AttributeObject::Comm)
    s.comm(object.handle, where);
  else if (object.kind == AttributeObject::Datatype)
    s.type(object.handle, where);
  else
    check_window(s, object.handle, where);
}

std::string describe(const char* where, int keyval) {
  return fmt::format("{}({}=0x{:x})", where, keyval_arg(where), handle_bits(keyval));
}

/// The rank's tables, made on first use with the predefined values filled in.
AttributeTables& tables(RankState& s) {
  if (!s.attributes) {
    auto t = std::make_unique<AttributeTables>();
    PredefinedAttributes& p = t->predefined;
    p.tag_ub = kTagUpperBound;
    p.host = MPI_PROC_NULL;
    p.io = MPI_ANY_SOURCE;  // every rank can do I/O (MPICH says the same)
    p.wtime_is_global = rank_host().clock_is_global() ? 1 : 0;
    p.universe_size = s.ctx().world().size();  // no dynamic processes: the universe is the job
    p.lastusedcode = s.last_used_code();  // and RankState keeps it up to date
    s.attributes = std::move(t);
  }
  return *s.attributes;
}

/// What MPI_Comm_get_attr points at for a predefined key; null for one that has no
/// value here (MPI_APPNUM: not an MPMD launch).
int* predefined_value(PredefinedAttributes& p, int keyval, const char* where) {
  switch (keyval) {
    case MPI_TAG_UB: return &p.tag_ub;
    case MPI_HOST: return &p.host;
    case MPI_IO: return &p.io;
    case MPI_WTIME_IS_GLOBAL: return &p.wtime_is_global;
    case MPI_UNIVERSE_SIZE: return &p.universe_size;
    case MPI_LASTUSEDCODE: return &p.lastusedcode;
    case MPI_APPNUM: return nullptr;
    default: throw Error(ErrorClass::MPI_ERR_KEYVAL, describe(where, keyval), "not a predefined attribute key");
  }
}

/// Whether a freed keyval may still be named (through a copy of its handle): by the
/// calls that read or delete an attribute that still uses it.
enum class WhileUsed : bool { Refused, Allowed };

/// The index of a live keyval of `kind` (MPI_Comm_create_keyval's or
/// MPI_Type_create_keyval's); MPI_ERR_KEYVAL for anything else. MPI-3.1 6.7.2: freeing a keyval that attributes still use leaves them, and the
/// program frees them "via calls to MPI_COMM_DELETE_ATTR" with that key, so a freed
/// keyval with uses left is accepted where `while_used` allows it (MPICH's fkeyval
/// test deletes one that way).
std::uint32_t user_keyval(const RankState& s, AttributeObject kind, int keyval, const char* where,
                          WhileUsed while_used = WhileUsed::Refused) {
  if (keyval == MPI_KEYVAL_INVALID)
    throw Error(ErrorClass::MPI_ERR_KEYVAL, fmt::format("{}({})", where, keyval_arg(where)),
                "keyval is MPI_KEYVAL_INVALID (what freeing a keyval leaves in its handle)");
  if (is_predefined(keyval) && kind == AttributeObject::Comm)
    throw Error(ErrorClass::MPI_ERR_KEYVAL, describe(where, keyval),
                "a predefined attribute key: it can be read, but not set, deleted or freed");
  const std::uint32_t index = handle_bits(keyval) & kKeyvalIndexMask;
  if ((handle_bits(keyval) & ~kKeyvalIndexMask) != keyval_base(kind) || !s.attributes ||
      index >= s.attributes->keyvals.size() || s.attributes->keyvals[index].object != kind)
    throw Error(ErrorClass::MPI_ERR_KEYVAL, describe(where, keyval), fmt::format("not {}", creator(kind)));
  const Keyval& k = s.attributes->keyvals[index];
  if (k.freed && !(while_used == WhileUsed::Allowed && k.uses > 0))
    throw Error(ErrorClass::MPI_ERR_KEYVAL, describe(where, keyval),
                k.uses > 0 ? "the keyval was freed (its attributes can still be read and deleted)"
                           : "the keyval was freed");
  return index;
}

Attribute* find(AttributeTables& t, Object object, std::uint32_t keyval) {
  const auto it = t.by_object.find(object);
  if (it == t.by_object.end()) return nullptr;
  const auto a = std::ranges::find(it->second, keyval, &Attribute::keyval);
  return a == it->second.end() ? nullptr : &*a;
}

/// Detaches `keyval`'s value from `object` (if it is still there) and releases its use
/// of the keyval. An object left without attributes leaves the map, so that it costs
/// nothing.
void detach(AttributeTables& t, Object object, std::uint32_t keyval) {
  const auto it = t.by_object.find(object);
  if (it == t.by_object.end()) return;
  std::vector<Attribute>& list = it->second;
  const auto a = std::ranges::find(list, keyval, &Attribute::keyval);
  if (a == list.end()) return;
  list.erase(a);
  if (list.empty()) t.by_object.erase(it);
  t.keyvals[keyval].uses -= 1;
}

/// Runs the delete callback of `keyval` for `value` on `object`; throws the code it
/// returns when that is not MPI_SUCCESS.
void call_delete(AttributeTables& t, Object object, std::uint32_t keyval, void* value, const char* where) {
  const Keyval k = t.keyvals[keyval];  // a copy: the callback may create keyvals
  if (k.remove == nullptr) return;
  const int rc = k.remove(object.handle, keyval_handle(k.object, keyval), value, k.extra_state);
  if (rc != MPI_SUCCESS)
    throw Error(static_cast<ErrorClass>(rc), describe(where, keyval_handle(k.object, keyval)),
                fmt::format("the attribute's delete callback returned {}", rc));
}

}  // namespace

int create_keyval(RankState& s, AttributeObject kind, CopyCallback* copy, DeleteCallback* remove,
                  void* extra_state, const char* where) {
  AttributeTables& t = tables(s);
  if (t.keyvals.size() > kKeyvalIndexMask)
    throw Error(ErrorClass::MPI_ERR_OTHER, where,
                fmt::format("too many keyvals (at most {} per rank)", kKeyvalIndexMask + 1));
  t.keyvals.push_back({copy, remove, extra_state, kind, 0, false});
  return keyval_handle(kind, static_cast<std::uint32_t>(t.keyvals.size() - 1));
}

void free_keyval(RankState& s, AttributeObject kind, int& keyval, const char* where) {
  const std::uint32_t k = user_keyval(s, kind, keyval, where);
  // Its slot stays, with its callbacks, for the attributes that still use it.
  s.attributes->keyvals[k].freed = true;
  keyval = MPI_KEYVAL_INVALID;
}

void set_attribute(RankState& s, Object object, int keyval, void* value, const char* where) {
  check_object(s, object, where);
  const std::uint32_t k = user_keyval(s, object.kind, keyval, where);
  AttributeTables& t = *s.attributes;  // the object stays put; only its containers move
  if (const Attribute* old = find(t, object, k)) {
    // As if MPI_Comm_delete_attr came first: a failing delete callback keeps the old value.
    call_delete(t, object, k, old->value, where);
    if (Attribute* still = find(t, object, k)) {  // looked up again: the callback may have changed the list
      still->value = value;
      return;
    }
  }
  t.by_object[object].push_back({k, value});
  t.keyvals[k].uses += 1;
}

bool get_attribute(RankState& s, Object object, int keyval, void*& value, const char* where) {
  check_object(s, object, where);
  if (is_predefined(keyval) && object.kind == AttributeObject::Comm) {
    int* p = predefined_value(tables(s).predefined, keyval, where);
    if (p == nullptr) return false;
    value = p;
    return true;
  }
  const std::uint32_t k = user_keyval(s, object.kind, keyval, where, WhileUsed::Allowed);
  const Attribute* a = find(*s.attributes, object, k);
  if (a == nullptr) return false;
  value = a->value;
  return true;
}

void delete_attribute(RankState& s, Object object, int keyval, const char* where) {
  check_object(s, object, where);
  const std::uint32_t k = user_keyval(s, object.kind, keyval, where, WhileUsed::Allowed);
  AttributeTables& t = *s.attributes;
  const Attribute* a = find(t, object, k);
  if (a == nullptr) return;  // MPICH: nothing to delete is no error
  call_delete(t, object, k, a->value, where);  // a failure keeps the attribute
  detach(t, object, k);
}

void copy_attributes(RankState& s, Object from, Object to, const char* where) {
  if (!s.attributes) return;
  AttributeTables& t = *s.attributes;
  const auto it = t.by_object.find(from);
  if (it == t.by_object.end()) return;
  const std::vector<Attribute> originals = it->second;  // a copy: callbacks may change from's list
  std::vector<Attribute> copies;
  for (const Attribute& a : originals) {
    const Keyval k = t.keyvals[a.keyval];
    if (k.copy == nullptr) continue;  // MPI_COMM_NULL_COPY_FN
    void* out = nullptr;
    int flag = 0;
    const int rc = k.copy(from.handle, keyval_handle(t, a.keyval), k.extra_state, a.value, &out, &flag);
    if (rc != MPI_SUCCESS) {
      // The call fails as a whole: the copies already made are deleted again (newest
      // first, as a free would), whatever their callbacks say, so nothing leaks.
      for (auto c = copies.rbegin(); c != copies.rend(); ++c) {
        const Keyval made = t.keyvals[c->keyval];
        if (made.remove != nullptr)
          (void)made.remove(to.handle, keyval_handle(t, c->keyval), c->value, made.extra_state);
        t.keyvals[c->keyval].uses -= 1;
      }
      throw Error(static_cast<ErrorClass>(rc), describe(where, keyval_handle(t, a.keyval)),
                  fmt::format("the attribute's copy callback returned {}", rc));
    }
    if (flag != 0) {
      copies.push_back({a.keyval, out});
      t.keyvals[a.keyval].uses += 1;  // a freed keyval is still used by the copy
    }
  }
  if (!copies.empty()) t.by_object[to] = std::move(copies);
}

void delete_all_attributes(RankState& s, Object object, const char* where) {
  if (!s.attributes) return;
  AttributeTables& t = *s.attributes;
  // One at a time, looked up afresh: a callback may delete or set other attributes.
  for (;;) {
    const auto it = t.by_object.find(object);
    if (it == t.by_object.end()) return;
    const Attribute newest = it->second.back();
    call_delete(t, object, newest.keyval, newest.value, where);
    detach(t, object, newest.keyval);
  }
}

}  // namespace twinfab::mpi::capi

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

int comm_create_keyval(const char* where, MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* remove,
                       int* keyval, void* extra_state) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(keyval, where, keyval_arg(where));
    *keyval = create_keyval(s, AttributeObject::Comm, copy, remove, extra_state, where);
    return MPI_SUCCESS;
  });
}

int comm_free_keyval(const char* where, int* keyval) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(keyval, where, keyval_arg(where));
    free_keyval(s, AttributeObject::Comm, *keyval, where);
    return MPI_SUCCESS;
  });
}

int comm_set_attr(const char* where, MPI_Comm comm, int keyval, void* value) {
  return entry(where, comm, [&](RankState& s) {
    set_attribute(s, Object::comm(comm), keyval, value, where);
    return MPI_SUCCESS;
  });
}

int comm_get_attr(const char* where, MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return entry(where, comm, [&](RankState& s) {
    void* value = nullptr;
    const bool found = get_attribute(s, Object::comm(comm), keyval, value, where);
    require_pointer(attribute_val, where, "attribute_val");
    require_pointer(flag, where, "flag");
    if (found) *static_cast<void**>(attribute_val) = value;
    *flag = found ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int comm_delete_attr(const char* where, MPI_Comm comm, int keyval) {
  return entry(where, comm, [&](RankState& s) {
    delete_attribute(s, Object::comm(comm), keyval, where);
    return MPI_SUCCESS;
  });
}

/// MPI_COMM_DUP_FN and MPI_DUP_FN: the copy is the value itself.
int copy_value(void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_COMM_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  return copy_value(attribute_val_in, attribute_val_out, flag);
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval, void* extra_state) {
  return comm_create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                            extra_state);
}

int MPI_Comm_free_keyval(int* comm_keyval) { return comm_free_keyval("MPI_Comm_free_keyval", comm_keyval); }

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return comm_set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return comm_get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return comm_delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}

// ---- the MPI-1 names: the same functions, errors named after the function called.

int MPI_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  return copy_value(attribute_val_in, attribute_val_out, flag);
}

int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state) {
  return comm_create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int* keyval) { return comm_free_keyval("MPI_Keyval_free", keyval); }

int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return comm_set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return comm_get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) { return comm_delete_attr("MPI_Attr_delete", comm, keyval); }

}  // extern "C"
