// twinfab MPI C API: the info objects of one rank (MPI-3.1 §9) and their handles.
//
// An info object is an ordered list of (key, value) strings. The order is that in
// which the keys were first set, as in MPICH: MPI_Info_get_nthkey(n) gives the n-th
// key set and not deleted since, and setting a key that is there already replaces
// its value in place, without moving it. A list, not a map: info objects hold a few
// hints, and a list keeps that order for free.
//
// The table belongs to the rank's RankState (per SimGrid actor in the simulator);
// nothing here is global. Handles are kInfoBase + an index in the table, in the
// layout of rank_state.hpp (MPICH's kind byte for a "direct" info). A freed slot is
// not reused, so a freed handle stays invalid (MPI_ERR_INFO), as ops do; the object
// itself is released at once, only the slot's empty pointer stays.
//
// MPI_INFO_ENV (MPI-3.1 §8.7.2, the start-up hints) is predefined: every rank has its
// own, made when the rank first uses it, so ranks that never look pay nothing. It
// holds one key, "maxprocs": the number of processes started (MPI_COMM_WORLD's size),
// once the rank's Context is made (before, MPI_INFO_ENV is empty).
// Of the other reserved keys, "command", "argv", "wdir" and the rest of the list,
// nothing is known here that a program could not see for itself (MPI_Init gets
// argc/argv from the program; under `twinfab sim` the launcher's own are not the
// program's), and "thread_level" is about a level requested before start-up, which
// no launcher of twinfab takes. MPI does not forbid changing it, so the program may
// set and delete keys of MPI_INFO_ENV (its rank's copy); it cannot free it (a
// predefined handle).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mpi/capi/mpi.h"

namespace twinfab::mpi::capi {

/// Handles of info objects made by MPI_Info_create, MPI_Info_dup, MPI_Comm_get_info:
/// kInfoBase + an index in the rank's InfoTable (never reused).
inline constexpr std::uint32_t kInfoBase = 0x9c000000;

/// One info object: keys in the order they were first set, each with its value.
/// Keys and values are checked by the caller (the C API entry points).
class InfoObject {
 public:
  /// The value of `key`, or null when it is not set. Valid until the next set()/erase().
  const std::string* find(std::string_view key) const noexcept;
  /// Sets `key` to `value`: replaces the value where the key is, or appends the key.
  void set(std::string_view key, std::string_view value);
  /// Removes `key`; false when it was not set.
  bool erase(std::string_view key);
  std::size_t size() const noexcept { return entries_.size(); }
  /// The n-th key (n < size()), in the order described above.
  const std::string& key(std::size_t n) const noexcept { return entries_[n].first; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

/// The info objects of one rank, behind their MPI_Info handles.
class InfoTable {
 public:
  /// The rank's Context is made (MPI_Init, MPI_Session_init): what MPI_INFO_ENV's
  /// "maxprocs" says, also in an MPI_INFO_ENV read before, which could not know it (the
  /// info calls are allowed before start-up, MPI-4.0 §11.4.1).
  void set_up(int world_size) {
    world_size_ = world_size;
    if (env_ && env_->find("maxprocs") == nullptr) env_->set("maxprocs", std::to_string(world_size));
  }

  /// A new handle for `info` (MPI_ERR_INTERN past 16M objects on one rank).
  MPI_Info add(InfoObject info, const char* where);
  /// The object behind a live handle, MPI_INFO_ENV included. MPI_ERR_INFO for
  /// MPI_INFO_NULL, a freed handle or anything else; the message names `where` and
  /// `arg`. The reference stays valid until that object is freed (adding objects does
  /// not move it).
  InfoObject& get(MPI_Info handle, const char* where, const char* arg = "info");
  /// For the calls that take hints and ignore them (MPI_Alloc_mem, MPI_Comm_split_type,
  /// MPI_Comm_set_info, MPI_Comm_dup_with_info): MPI_INFO_NULL or a live info object
  /// pass, anything else is MPI_ERR_INFO.
  void check_hints(MPI_Info handle, const char* where);
  /// MPI_Info_free: releases the object and sets `handle` to MPI_INFO_NULL.
  /// MPI_ERR_INFO for what get() refuses, and for MPI_INFO_ENV (predefined).
  void free(MPI_Info& handle, const char* where);

 private:
  std::vector<std::unique_ptr<InfoObject>> infos_;  // null: freed slot
  std::unique_ptr<InfoObject> env_;                 // MPI_INFO_ENV, once used
  int world_size_ = 0;
};

}  // namespace twinfab::mpi::capi
