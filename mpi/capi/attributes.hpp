// twinfab MPI C API: attribute caching on communicators (MPI-3.1 §6.7).
//
// A rank's keyvals (MPI_Comm_create_keyval) and the values attached to its
// communicators (MPI_Comm_set_attr) live in one AttributeTables object that the
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
// Ownership of a keyval: each attribute that uses it counts as a use. A freed keyval
// (MPI_Comm_free_keyval) is invalid for the program at once, but its callbacks stay
// for the attributes that still use it (MPI: "marked for deallocation"). Slots are
// never reused, so a stale handle stays invalid, as for user-defined ops.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "mpi/capi/mpi.h"

namespace twinfab::mpi::capi {

class RankState;

// Keyval handles follow MPICH's layout: a kind in the top bits (builtin 0x4..., direct
// 0x8...), object type keyval (0x24000000), keyval kind communicator (0x00400000),
// and an index in the low 22 bits.
inline constexpr std::uint32_t kKeyvalIndexMask = 0x003fffff;
inline constexpr std::uint32_t kCommKeyvalBase = 0xa4400000;        ///< MPI_Comm_create_keyval's
inline constexpr std::uint32_t kPredefinedCommKeyvalBase = 0x64400000;  ///< MPI_TAG_UB, ...

/// A keyval of MPI_Comm_create_keyval (or MPI_Keyval_create).
struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;      ///< null: MPI_COMM_NULL_COPY_FN (not copied)
  MPI_Comm_delete_attr_function* remove = nullptr;  ///< null: MPI_COMM_NULL_DELETE_FN (nothing to call)
  void* extra_state = nullptr;
  int uses = 0;        ///< attributes that hold it
  bool freed = false;  ///< MPI_Comm_free_keyval was called: the handle is invalid
};

/// One attached value.
struct Attribute {
  std::uint32_t keyval;  ///< index in AttributeTables::keyvals
  void* value;
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
  /// Per communicator handle (handles are never reused), in the order set. A
  /// communicator appears only while it has attributes.
  std::unordered_map<MPI_Comm, std::vector<Attribute>> by_comm;
  PredefinedAttributes predefined;
};

// The operations behind the MPI functions. `where` names the MPI function (the
// MPI-1 names share these). Each throws mpi::Error: MPI_ERR_COMM, MPI_ERR_KEYVAL,
// MPI_ERR_ARG, or the code a callback returned; a refused call changes nothing.

/// MPI_Comm_create_keyval: the new keyval's handle.
int create_keyval(RankState& s, MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* remove,
                  void* extra_state, const char* where);
/// MPI_Comm_free_keyval: marks it freed and sets `keyval` to MPI_KEYVAL_INVALID.
void free_keyval(RankState& s, int& keyval, const char* where);
/// MPI_Comm_set_attr: calls the delete callback of a value already there first.
void set_attribute(RankState& s, MPI_Comm comm, int keyval, void* value, const char* where);
/// MPI_Comm_get_attr: the value (for a predefined key, a pointer to a per-rank int), or
/// false when the key has none on `comm`.
bool get_attribute(RankState& s, MPI_Comm comm, int keyval, void*& value, const char* where);
/// MPI_Comm_delete_attr: calls the delete callback; nothing when there is no value.
void delete_attribute(RankState& s, MPI_Comm comm, int keyval, const char* where);
/// MPI_Comm_dup: runs the copy callbacks of `from`'s attributes and attaches the copies
/// they make to `to` (a new communicator). When a callback fails, the copies made so
/// far are deleted again (their delete callbacks run, their errors ignored) and its
/// code is thrown: the caller then frees `to`.
void copy_attributes(RankState& s, MPI_Comm from, MPI_Comm to, const char* where);
/// MPI_Comm_free and MPI_Finalize: deletes every attribute of `comm`, newest first.
/// Stops at the first callback that fails (throws its code); that attribute and the
/// older ones stay.
void delete_all_attributes(RankState& s, MPI_Comm comm, const char* where);

}  // namespace twinfab::mpi::capi
