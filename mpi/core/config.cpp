#include "mpi/core/config.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "mpi/core/error.hpp"

namespace twinfab::mpi {

std::string_view to_string(RendezvousVariant variant) noexcept {
  switch (variant) {
    case RendezvousVariant::Auto: return "auto";
    case RendezvousVariant::WriteImm: return "write-imm";
    case RendezvousVariant::Read: return "read";
    case RendezvousVariant::WriteFin: return "write-fin";
  }
  return "?";
}

std::string_view to_string(ConnectMode mode) noexcept {
  switch (mode) {
    case ConnectMode::Auto: return "auto";
    case ConnectMode::Startup: return "startup";
    case ConnectMode::OnDemand: return "on-demand";
  }
  return "?";
}

void Config::validate() const {
  if (packet_size < 256 || packet_size > (1u << 24))
    throw Error(ErrorClass::MPI_ERR_ARG, "packet_size",
                fmt::format("{} bytes is outside [256, 16 MiB]", packet_size));
  // Below 3 credits the credit-update rule (one credit reserved for updates, updates
  // never answered by updates) cannot work: see rc_channel.hpp.
  if (credits < 3 || credits > 4096)
    throw Error(ErrorClass::MPI_ERR_ARG, "credits", fmt::format("{} is outside [3, 4096]", credits));
  if (send_buffers < 2) throw Error(ErrorClass::MPI_ERR_ARG, "send_buffers", "need at least 2");
  if (credit_update_threshold >= credits)
    throw Error(ErrorClass::MPI_ERR_ARG, "credit_update_threshold",
                fmt::format("{} must be below credits ({})", credit_update_threshold, credits));
  if (regcache_max_entries == 0 || regcache_max_entries > (1u << 20))
    throw Error(ErrorClass::MPI_ERR_ARG, "regcache_max_entries",
                fmt::format("{} is outside [1, 1048576]", regcache_max_entries));
  if (regcache_max_bytes == 0) throw Error(ErrorClass::MPI_ERR_ARG, "regcache_max_bytes", "must be >= 1");
}

std::uint32_t Config::update_threshold() const noexcept {
  if (credit_update_threshold != 0) return credit_update_threshold;
  return credits / 2 < 2 ? 2 : credits / 2;
}

namespace {

std::uint64_t parse_number(const char* name, const char* text) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-')
    throw Error(ErrorClass::MPI_ERR_ARG, name, fmt::format("'{}' is not a non-negative integer", text));
  return value;
}

template <class T>
void override_from(const char* name, T& field) {
  if (const char* text = std::getenv(name)) {
    const std::uint64_t value = parse_number(name, text);
    if (value > static_cast<std::uint64_t>(static_cast<T>(~T{})))
      throw Error(ErrorClass::MPI_ERR_ARG, name, fmt::format("{} is too large", value));
    field = static_cast<T>(value);
  }
}

}  // namespace

Config apply_environment(Config base) {
  override_from("TWINFAB_PACKET_SIZE", base.packet_size);
  override_from("TWINFAB_CREDITS", base.credits);
  override_from("TWINFAB_SEND_BUFFERS", base.send_buffers);
  override_from("TWINFAB_TINY_THRESHOLD", base.tiny_threshold);
  override_from("TWINFAB_EAGER_THRESHOLD", base.eager_threshold);
  override_from("TWINFAB_CREDIT_UPDATE", base.credit_update_threshold);
  if (const char* text = std::getenv("TWINFAB_RENDEZVOUS")) {
    const std::string value = text;
    if (value == "auto") base.rendezvous = RendezvousVariant::Auto;
    else if (value == "write-imm") base.rendezvous = RendezvousVariant::WriteImm;
    else if (value == "read") base.rendezvous = RendezvousVariant::Read;
    else if (value == "write-fin") base.rendezvous = RendezvousVariant::WriteFin;
    else
      throw Error(ErrorClass::MPI_ERR_ARG, "TWINFAB_RENDEZVOUS",
                  fmt::format("'{}' is not one of auto, write-imm, read, write-fin", value));
  }
  override_from("TWINFAB_ON_DEMAND_THRESHOLD", base.on_demand_threshold);
  if (const char* text = std::getenv("TWINFAB_CONNECT")) {
    const std::string value = text;
    if (value == "auto") base.connect = ConnectMode::Auto;
    else if (value == "startup") base.connect = ConnectMode::Startup;
    else if (value == "on-demand") base.connect = ConnectMode::OnDemand;
    else
      throw Error(ErrorClass::MPI_ERR_ARG, "TWINFAB_CONNECT",
                  fmt::format("'{}' is not one of auto, startup, on-demand", value));
  }
  override_from("TWINFAB_REGCACHE_MAX_ENTRIES", base.regcache_max_entries);
  override_from("TWINFAB_REGCACHE_MAX_BYTES", base.regcache_max_bytes);
  if (const char* text = std::getenv("TWINFAB_REGCACHE")) {
    const std::string value = text;
    if (value == "none") base.regcache = regcache::CacheKind::None;
    else if (value == "dme") base.regcache = regcache::CacheKind::Dme;
    else if (value == "lazy") base.regcache = regcache::CacheKind::Lazy;
    else
      throw Error(ErrorClass::MPI_ERR_ARG, "TWINFAB_REGCACHE",
                  fmt::format("'{}' is not one of none, dme, lazy", value));
  }
  base.validate();
  return base;
}

}  // namespace twinfab::mpi
