#include "backends/verbs/verbs_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "backends/verbs/host_runtime.hpp"
#include "backends/verbs/idle_policy.hpp"
#include "backends/verbs/verbs_device.hpp"
#include "backends/verbs/verbs_discovery.hpp"
#include "fabric/error.hpp"

namespace twinfab::verbs {

using fabric::Error;
using fabric::Status;

namespace {

std::string env_or(const std::string& value, const char* variable) {
  if (!value.empty()) return value;
  const char* env = std::getenv(variable);
  return env != nullptr ? env : "";
}

int gid_index_option(int requested) {
  if (requested >= 0) return requested;
  const char* env = std::getenv("TWINFAB_GID_INDEX");
  if (env == nullptr || *env == '\0') return -1;
  int value = -1;
  std::string_view text(env);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    throw Error(Status::InvalidArgument,
                fmt::format("TWINFAB_GID_INDEX='{}' is not a GID index (a number >= 0; see `ibv_devinfo -v`)", env));
  }
  return value;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
  DeviceList list;
  return describe_devices(list);
}

std::unique_ptr<fabric::Device> open_device(const OpenOptions& options) {
  // Before discovery: a malformed setting is reported as such, device or not.
  const bool yield_when_idle = decide_yield_when_idle(options.yield_when_idle, std::getenv("TWINFAB_YIELD_WHEN_IDLE"),
                                                      options.local_processes, online_cpus());
  const bool blocking_wait = decide_blocking_wait(options.blocking_wait, std::getenv("TWINFAB_BLOCKING_WAIT"));
  DeviceList list;
  const std::string name = env_or(options.device_name, "TWINFAB_DEVICE");
  const std::vector<DeviceInfo> found = describe_devices(list);

  std::string looked_for = name.empty() ? std::string("with an ACTIVE port")
                                         : fmt::format("named '{}' with an ACTIVE port", name);
  if (options.port != 0) looked_for += fmt::format(" (port {})", options.port);

  auto fits = [&](const DeviceInfo& d) {
    return d.active && (name.empty() || d.name == name) && (options.port == 0 || d.port == options.port);
  };
  auto it = std::find_if(found.begin(), found.end(), fits);
  if (it == found.end()) throw Error(Status::NotFound, no_device_message(looked_for, list, found));

  ibv_device* device = list.find(it->name);
  return std::make_unique<VerbsDevice>(device, it->port, gid_index_option(options.gid_index), options.ipv4_address,
                                       options.connection_rank, yield_when_idle, blocking_wait);
}

bool is_active_side(const fabric::Address& local, const fabric::Address& remote) {
  auto a = local.bytes();
  auto b = remote.bytes();
  return std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end());
}

std::unique_ptr<fabric::Runtime> make_host_runtime() { return std::make_unique<HostRuntime>(); }

}  // namespace twinfab::verbs
