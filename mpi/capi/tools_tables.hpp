// twinfab MPI C API: what the tools interface (MPI_T, tools_interface.cpp) lists: its
// control variables, enumerations, performance variables and categories.
//
// All constant (static storage), the same for every rank and for the whole run, so
// indices never change and MPI_T_category_changed has nothing to report:
//  - control variable i is mpi::config_variables()[i] (mpi/core/config_variables.hpp),
//    a TWINFAB_* parameter; a choice (TWINFAB_RENDEZVOUS, ...) is an MPI_INT with an
//    enumeration named as the variable, whose item k is the variable's k-th word;
//  - performance variables read the calling rank's Context: its point-to-point
//    engine's, channel's and registration cache's counters (continuous, resettable per
//    handle) and the matching queues' lengths (read-only levels). None adds work to the
//    message path: they read what the engine counted anyway;
//  - categories group both (docs/mpi.md lists them).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mpi/capi/mpi.h"
#include "mpi/core/config_variables.hpp"
#include "mpi/core/context.hpp"

namespace twinfab::mpi::capi::tools {

/// The MPI datatype a control variable is read and written as: MPI_UNSIGNED,
/// MPI_UNSIGNED_LONG_LONG, or MPI_INT for a choice.
MPI_Datatype datatype_of(const ConfigVariable& variable) noexcept;

/// The groups performance variables are listed in (one category each).
enum class PvarGroup : std::uint8_t { Pt2pt, Channel, Regcache, Rma };

struct PerformanceVariable {
  std::string_view name;
  std::string_view description;
  int var_class;  ///< MPI_T_PVAR_CLASS_COUNTER, _AGGREGATE, _LEVEL or _HIGHWATERMARK
  PvarGroup group;
  /// The value now, from the rank's Context (an MPI_UNSIGNED_LONG_LONG).
  std::uint64_t (*read)(const Context& context);
};

/// Counters and aggregates start at 0 when a handle is allocated or reset (the handle
/// keeps the value it started from; the library's counter is never changed): they are
/// resettable (readonly 0) and reset atomically with a read (atomic 1). Levels and the
/// high-water mark describe the library's state and cannot be reset (readonly 1,
/// atomic 0).
bool resettable(const PerformanceVariable& variable) noexcept;

std::span<const PerformanceVariable> performance_variables() noexcept;

struct Category {
  std::string_view name;
  std::string_view description;
  std::vector<int> cvars;       ///< control variable indices
  std::vector<int> pvars;       ///< performance variable indices
  std::vector<int> categories;  ///< subcategory indices
};

/// Built once from the tables above (a function-local constant: never changes after).
const std::vector<Category>& categories();

}  // namespace twinfab::mpi::capi::tools
