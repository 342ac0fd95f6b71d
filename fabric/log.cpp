#include "fabric/log.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>

#include "fabric/error.hpp"

namespace twinfab::fabric {

spdlog::logger& log() {
  // Not in spdlog's registry: the program may have a logger of that name, and
  // spdlog::set_level() on the program's side must not change twinfab's.
  static spdlog::logger logger("twinfab", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  return logger;
}

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
  if (const auto level = parse_log_level(value != nullptr ? value : "", "TWINFAB_LOG_LEVEL")) log().set_level(*level);
}

}  // namespace twinfab::fabric
