// twinfab's diagnostics: warnings about objects destroyed out of order, lost
// completions, a device that stopped; at debug level, the device a process opened,
// asynchronous events, connection retries. They go to twinfab's own spdlog logger
// ("twinfab", standard error), not spdlog's default one, which belongs to the program
// twinfab is linked into (an MPI program may log to its standard output with it).
// Which of them appear is set by TWINFAB_LOG_LEVEL, as UCX_LOG_LEVEL sets UCX's: each
// entry point (the `twinfab` command, MPI_Init on hardware) applies it first.
#pragma once

#include <spdlog/logger.h>

#include <optional>
#include <string_view>

namespace twinfab::fabric {

/// twinfab's logger: standard error (coloured on a terminal), level info until
/// apply_log_level_from_environment() or set_level() changes it. Thread-safe.
spdlog::logger& log();

/// The level `text` names: trace, debug, info, warn (or warning), error (or err),
/// critical or off; nullopt for an empty text. Throws fabric::Error(InvalidArgument)
/// naming `variable` and the accepted names for anything else.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text, std::string_view variable);

/// Sets log()'s level from $TWINFAB_LOG_LEVEL when it is set and not empty (leaves it
/// otherwise). Throws as parse_log_level, changing nothing.
void apply_log_level_from_environment();

}  // namespace twinfab::fabric
