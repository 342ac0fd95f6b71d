#include "fabric/log_level.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "fabric/error.hpp"

namespace twinfab::fabric {

std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text, std::string_view variable) {
  if (text.empty()) return std::nullopt;
  // spdlog::level::from_str reads anything it does not know as "off": a typo would
  // silence every warning. Compare with its names instead.
  using spdlog::level::level_enum;
  struct Name {
    std::string_view name;
    level_enum level;
  };
  static constexpr Name kNames[] = {
      {"trace", level_enum::trace}, {"debug", level_enum::debug},       {"info", level_enum::info},
      {"warn", level_enum::warn},   {"warning", level_enum::warn},      {"error", level_enum::err},
      {"err", level_enum::err},     {"critical", level_enum::critical}, {"off", level_enum::off}};
  for (const Name& n : kNames) {
    if (text == n.name) return n.level;
  }
  throw Error(Status::InvalidArgument,
              fmt::format("{}='{}' is not a log level: trace, debug, info (the default), warn, error, critical or off",
                          variable, text));
}

void apply_log_level_from_environment() {
  const char* value = std::getenv("TWINFAB_LOG_LEVEL");
  if (const auto level = parse_log_level(value != nullptr ? value : "", "TWINFAB_LOG_LEVEL")) spdlog::set_level(*level);
}

}  // namespace twinfab::fabric
