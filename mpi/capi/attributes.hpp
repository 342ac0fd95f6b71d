// twinfab MPI C API: attribute caching on communicators and datatypes (MPI-3.1 §6.7).
//
// A rank's keyvals (MPI_Comm_create_keyval, MPI_Type_create_keyval) and the values
// attached to its communicators and datatypes (MPI_Comm_set_attr, MPI_Type_set_attr)
// live in one AttributeTables object that the
// rank's RankState allocates on first use: a rank that never touches attributes pays
// one null pointer (thousands of simulated ranks share a process). The predefined
// attributes (MPI_TAG_UB, ...) are ints in the same object, so that MPI_Comm_get_attr
// can hand out pointers to them that stay valid until MPI_Finalize.
//
// Callbacks are user code and may call MPI (entry() handles nested calls): they may
// create keyvals, set or delete attributes and create communicators, all of which can
// move these tables. Nothing here keeps a reference or an iterator into a table
// across a callback; every step looks its entry up again.
//
// The two kinds of object share the machinery: the standard gives their attributes the
// same rules (§6.7.4 defines the datatype functions by the communicator ones). Their
// keyvals are not interchangeable: each records the kind of object it was made for,
// its handle says it too, and a keyval of the other kind is MPI_ERR_KEYVAL.
// Attributes belong to a handle: a datatype handle that MPI_Type_get_contents makes
// for a type carries none of the attributes of the handle the type was made with.
//
// Ownership of a keyval: each attribute that uses it counts as a use. A freed keyval
// (MPI_Comm_free_keyval) is invalid for the program at once, but its callbacks stay
// for the attributes that still use it (MPI: "marked for deallocation"). Slots are
// never reused, so a stale handle stays invalid, as for user-defined ops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "mpi/capi/mpi.h"

namespace twinfab::mpi::capi {

class RankState;

// Keyval handles follow MPICH's layout: a kind in the top bits (builtin 0x4..., direct
// 0x8...), object type keyval (0x24000000), keyval kind communicator (0x00400000),
// or datatype (0x00c00000), and an index in the low 22 bits. Both kinds index one
// table, so an index names one keyval whatever the base in front of it.
inline constexpr std::uint32_t kKeyvalIndexMask = 0x003fffff;
inline constexpr std::uint32_t kCommKeyvalBase = 0xa4400000;        ///< MPI_Comm_create_keyval's
inline constexpr std::uint32_t kTypeKeyvalBase = 0xa4c00000;        ///< MPI_Type_create_keyval's
inline constexpr std::uint32_t kWinKeyvalBase = 0xa4800000;         ///< MPI_Win_create_keyval's
inline constexpr std::uint32_t kPredefinedCommKeyvalBase = 0x64400000;  ///< MPI_TAG_UB, ...

/// What kind of object an attribute is attached to (and a keyval was made for).
enum class AttributeObject : std::uint8_t { Comm, Datatype, Window };

/// An object that attributes can be attached to: its kind and its handle.
struct Object {
  AttributeObject kind;
  int handle;
  static Object comm(MPI_Comm c) { return {AttributeObject::Comm, c}; }
  static Object type(MPI_Datatype t) { return {AttributeObject::Datatype, t}; }
  static Object win(MPI_Win w) { return {AttributeObject::Window, w}; }
  bool operator==(const Object&) const = default;
};

// Both handle types are ints, so the communicator and datatype callbacks have one
// type; the tables store that type for both kinds.
using CopyCallback = MPI_Comm_copy_attr_function;
using DeleteCallback = MPI_Comm_delete_attr_function;
static_assert(std::is_same_v<CopyCallback, MPI_Type_copy_attr_function>);
static_assert(std::is_same_v<DeleteCallback, MPI_Type_delete_attr_function>);
static_assert(std::is_same_v<CopyCallback, MPI_Win_copy_attr_function>);
static_assert(std::is_same_v<DeleteCallback, MPI_Win_delete_attr_function>);

/// A keyval of MPI_Comm_create_keyval (or MPI_Keyval_create) or MPI_Type_create_keyval.
struct Keyval {
  CopyCallback* copy = nullptr;      ///< null: MPI_COMM_NULL_COPY_FN / MPI_TYPE_NULL_COPY_FN (not copied)
  DeleteCallback* remove = nullptr;  ///< null: the NULL_DELETE_FN (nothing to call)
  void* extra_state = nullptr;
  AttributeObject object = AttributeObject::Comm;  ///< what it can be attached to
  int uses = 0;        ///< attributes that hold it
  bool freed = false;  ///< its free_keyval was called: the handle is invalid
};

/// One attached value.
struct Attribute {
  std::uint32_t keyval;  ///< index in AttributeTables::keyvals
  void* value;
};

struct ObjectHash {
  std::size_t operator()(const Object& o) const noexcept {
    return std::hash<std::uint64_t>()((std::uint64_t{static_cast<std::uint8_t>(o.kind)} << 32) |
                                      static_cast<std::uint32_t>(o.handle));
  }
};

/// The ints MPI_Comm_get_attr points at for the predefined keys (mpi.h lists them).
struct PredefinedAttributes {
  int tag_ub = 0;
  int host = 0;
  int io = 0;
  int wtime_is_global = 0;
  int universe_size = 0;
  int lastusedcode = 0;
};

struct AttributeTables {
  std::vector<Keyval> keyvals;
  /// Per communicator or datatype handle (handles are never reused), in the order
  /// set. An object appears only while it has attributes.
  std::unordered_map<Object, std::vector<Attribute>, ObjectHash> by_object;
  PredefinedAttributes predefined;
};

// The operations behind the MPI functions, for a communicator or a datatype. `where`
// names the MPI function (the MPI-1 names share these). Each throws mpi::Error:
// MPI_ERR_COMM or MPI_ERR_TYPE for a bad object, MPI_ERR_KEYVAL, MPI_ERR_ARG, or the
// code a callback returned; a refused call changes nothing.

/// MPI_Comm_create_keyval / MPI_Type_create_keyval: the new keyval's handle.
int create_keyval(RankState& s, AttributeObject kind, CopyCallback* copy, DeleteCallback* remove,
                  void* extra_state, const char* where);
/// MPI_Comm_free_keyval / MPI_Type_free_keyval: marks it freed and sets `keyval` to
/// MPI_KEYVAL_INVALID.
void free_keyval(RankState& s, AttributeObject kind, int& keyval, const char* where);
/// MPI_Comm_set_attr / MPI_Type_set_attr: calls the delete callback of a value already
/// there first.
void set_attribute(RankState& s, Object object, int keyval, void* value, const char* where);
/// MPI_Comm_get_attr / MPI_Type_get_attr: the value (for a predefined communicator key,
/// a pointer to a per-rank int), or false when the key has none on `object`.
bool get_attribute(RankState& s, Object object, int keyval, void*& value, const char* where);
/// MPI_Comm_delete_attr / MPI_Type_delete_attr: calls the delete callback; nothing when
/// there is no value.
void delete_attribute(RankState& s, Object object, int keyval, const char* where);
/// MPI_Comm_dup / MPI_Type_dup: runs the copy callbacks of `from`'s attributes and
/// attaches the copies they make to `to` (a new object of the same kind). When a
/// callback fails, the copies made so far are deleted again (their delete callbacks
/// run, their errors ignored) and its code is thrown: the caller then frees `to`.
void copy_attributes(RankState& s, Object from, Object to, const char* where);
/// MPI_Comm_free, MPI_Type_free and MPI_Finalize: deletes every attribute of `object`,
/// newest first. Stops at the first callback that fails (throws its code); that
/// attribute and the older ones stay.
void delete_all_attributes(RankState& s, Object object, const char* where);

}  // namespace twinfab::mpi::capi
