#include "backends/verbs/idle_policy.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <string_view>

#include "fabric/error.hpp"

namespace twinfab::verbs {
namespace {

/// A switch's text: true or false, or nullopt for anything else.
std::optional<bool> parse_switch(std::string_view text) {
  if (text == "1" || text == "yes" || text == "true" || text == "on") return true;
  if (text == "0" || text == "no" || text == "false" || text == "off") return false;
  return std::nullopt;
}

}  // namespace

bool decide_yield_when_idle(std::optional<bool> requested, const char* env_value, uint32_t local_processes,
                            long online_cpus) {
  if (requested) return *requested;
  const std::string_view text = env_value != nullptr ? env_value : "";
  if (const std::optional<bool> on = parse_switch(text)) return *on;
  if (!text.empty() && text != "auto")
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("TWINFAB_YIELD_WHEN_IDLE='{}' is not 1 (yield at once when waiting), 0 (spin "
                                    "first) or auto (yield when the host runs more of the job's processes than it "
                                    "has CPUs; the default)",
                                    text));
  return local_processes > 0 && static_cast<long>(local_processes) > online_cpus;
}

bool decide_blocking_wait(std::optional<bool> requested, const char* env_value) {
  if (requested) return *requested;
  const std::string_view text = env_value != nullptr ? env_value : "";
  if (text.empty()) return false;
  if (const std::optional<bool> on = parse_switch(text)) return *on;
  throw fabric::Error(fabric::Status::InvalidArgument,
                      fmt::format("TWINFAB_BLOCKING_WAIT='{}' is not 1 (a wait that lasts sleeps until a completion "
                                  "comes) or 0 (it naps and polls; the default)",
                                  text));
}

long online_cpus() noexcept {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

}  // namespace twinfab::verbs
