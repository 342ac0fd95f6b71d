#include "mpi/capi/info_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mpi/capi/handle_bits.hpp"
#include "mpi/capi/rank_state.hpp"  // the handle layout (kHandleIndexMask)
#include "mpi/core/error.hpp"

namespace twinfab::mpi::capi {

namespace {

constexpr std::uint32_t kIndexMask = kHandleIndexMask;

}  // namespace

const std::string* InfoObject::find(std::string_view key) const noexcept {
  const auto it = std::ranges::find(entries_, key, [](const auto& entry) -> std::string_view { return entry.first; });
  return it != entries_.end() ? &it->second : nullptr;
}

void InfoObject::set(std::string_view key, std::string_view value) {
  const auto it = std::ranges::find(entries_, key, [](const auto& entry) -> std::string_view { return entry.first; });
  if (it != entries_.end())
    it->second.assign(value);
  else
    entries_.emplace_back(std::string(key), std::string(value));
}

bool InfoObject::erase(std::string_view key) {
  const auto it = std::ranges::find(entries_, key, [](const auto& entry) -> std::string_view { return entry.first; });
  if (it == entries_.end()) return false;
  entries_.erase(it);  // keeps the order of the others
  return true;
}

MPI_Info InfoTable::add(InfoObject info, const char* where) {
  if (infos_.size() > kIndexMask)
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "more than 16M info objects created on one rank");
  infos_.push_back(std::make_unique<InfoObject>(std::move(info)));
  return static_cast<MPI_Info>(kInfoBase + static_cast<std::uint32_t>(infos_.size() - 1));
}

InfoObject& InfoTable::get(MPI_Info handle, const char* where, const char* arg) {
  if (handle == MPI_INFO_ENV) {
    if (!env_) {
      auto env = std::make_unique<InfoObject>();
      if (world_size_ > 0) env->set("maxprocs", std::to_string(world_size_));
      env_ = std::move(env);
    }
    return *env_;
  }
  if (handle == MPI_INFO_NULL)
    throw Error(ErrorClass::MPI_ERR_INFO, fmt::format("{}({})", where, arg), "info is MPI_INFO_NULL");
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kIndexMask;
  if ((b & ~kIndexMask) != kInfoBase || index >= infos_.size() || !infos_[index])
    throw Error(ErrorClass::MPI_ERR_INFO, fmt::format("{}({}=0x{:x})", where, arg, b),
                "not an info handle (never created, or freed)");
  return *infos_[index];
}

void InfoTable::check_hints(MPI_Info handle, const char* where) {
  if (handle != MPI_INFO_NULL) get(handle, where);
}

void InfoTable::free(MPI_Info& handle, const char* where) {
  if (handle == MPI_INFO_ENV)
    throw Error(ErrorClass::MPI_ERR_INFO, fmt::format("{}(info=MPI_INFO_ENV)", where),
                "MPI_INFO_ENV is predefined and cannot be freed");
  get(handle, where);  // checks
  infos_[handle_bits(handle) & kIndexMask].reset();
  handle = MPI_INFO_NULL;
}

}  // namespace twinfab::mpi::capi
