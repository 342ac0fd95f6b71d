// twinfab MPI core: the fields of mpi::Config as named variables.
//
// One entry per Config field, named exactly as the TWINFAB_* environment variable
// that sets it (config.hpp), with its description, its kind (a 32- or 64-bit unsigned
// number, or a choice among words), and the group it belongs to. The tools interface
// (mpi/capi/tools_interface.cpp) exposes them as MPI_T control variables; anything
// else that wants to list or set the parameters by name (scenarios, a launcher) can
// use the same table, so that names, descriptions and ranges are written once.
//
// The table is constant (static storage, no mutable state): every rank shares it.
// Values are carried as std::uint64_t whatever the field's type; a choice's value is
// the index of its word in `choices`, which is also the enumerator's value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "mpi/core/config.hpp"

namespace twinfab::mpi {

/// How a Config field is represented.
enum class ConfigVariableKind : std::uint8_t {
  Unsigned32,  ///< std::uint32_t field
  Unsigned64,  ///< std::uint64_t field
  Choice,      ///< an enumeration, set by one of `choices` (its value is the word's index)
};

/// The groups the variables are listed in (MPI_T categories).
enum class ConfigVariableGroup : std::uint8_t {
  Protocols,    ///< packets, credits, protocol thresholds, rendezvous variant
  Connections,  ///< when RC connections are made
  Regcache,     ///< the registration cache
  OneSided,     ///< one-sided communication (data movement and lock designs)
  Transport,    ///< the channel (TWINFAB_TRANSPORT) and the UD channel's reliability
  Collectives,  ///< the collective algorithms and the thresholds of their selection
  Progress,     ///< asynchronous progress (TWINFAB_ASYNC_PROGRESS)
};

struct ConfigVariable {
  std::string_view name;         ///< the environment variable, e.g. "TWINFAB_EAGER_THRESHOLD"
  std::string_view description;  ///< what config.hpp says of it, in a sentence or two
  ConfigVariableKind kind;
  ConfigVariableGroup group;
  /// For Choice: the environment variable's words, in enumerator order.
  std::span<const std::string_view> choices;
  std::uint64_t (*get)(const Config& config);
  /// Stores `value` without any check (set_config_variable checks).
  void (*put)(Config& config, std::uint64_t value);
};

/// Every variable, in a fixed order (the MPI_T control variable indices).
std::span<const ConfigVariable> config_variables() noexcept;

/// The index of the variable called `name`, if there is one.
std::optional<std::size_t> find_config_variable(std::string_view name) noexcept;

/// Sets variable `index` of `config` to `value`, or throws mpi::Error(MPI_ERR_ARG)
/// naming the variable and leaves `config` unchanged when the value does not fit the
/// field (a 32-bit field, a choice's range) or the resulting Config does not pass
/// Config::validate() (which also checks combinations: TWINFAB_CREDIT_UPDATE must stay
/// below TWINFAB_CREDITS, so the order of several writes may matter).
void set_config_variable(Config& config, std::size_t index, std::uint64_t value);

}  // namespace twinfab::mpi
