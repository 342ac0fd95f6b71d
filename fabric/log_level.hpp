// twinfab's diagnostics go to spdlog's default logger (stderr): warnings about objects
// destroyed out of order, lost completions, a device that stopped; at debug level, the
// device a process opened and connection retries. Which of them appear is set by
// TWINFAB_LOG_LEVEL, as UCX_LOG_LEVEL sets UCX's: each entry point (the `twinfab`
// command, MPI_Init on hardware) applies it before it does anything else.
#pragma once

#include <spdlog/common.h>

#include <optional>
#include <string_view>

namespace twinfab::fabric {

/// The level `text` names: trace, debug, info, warn (or warning), error (or err),
/// critical or off; nullopt for an empty text. Throws fabric::Error(InvalidArgument)
/// naming `variable` and the accepted names for anything else.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text, std::string_view variable);

/// Sets spdlog's level from $TWINFAB_LOG_LEVEL when it is set and not empty (spdlog's
/// own default, info, otherwise). Throws as parse_log_level.
void apply_log_level_from_environment();

}  // namespace twinfab::fabric
