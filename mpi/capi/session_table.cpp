#include "mpi/capi/session_table.hpp"

#include <fmt/format.h>
#include <strings.h>

#include <array>
#include <cstring>

#include "mpi/capi/handle_bits.hpp"

namespace twinfab::mpi::capi {

namespace {

constexpr std::array<std::string_view, 2> kPsetNames = {"mpi://WORLD", "mpi://SELF"};
constexpr std::array<std::string_view, 4> kThreadLevelNames = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                                               "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
}  // namespace

MPI_Session SessionTable::add(MPI_Errhandler errhandler, int thread_level, const char* where) {
  if (entries_.size() > kHandleIndexMask)
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "more than 16M sessions initialized on one rank");
  entries_.push_back({true, errhandler, thread_level});
  ++open_;
  return static_cast<MPI_Session>(kSessionBase + static_cast<std::uint32_t>(entries_.size() - 1));
}

SessionEntry* SessionTable::find(MPI_Session handle) {
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kSessionBase || index >= entries_.size() || !entries_[index].live) return nullptr;
  return &entries_[index];
}

SessionEntry& SessionTable::get(MPI_Session handle, const char* where) {
  if (SessionEntry* e = find(handle)) return *e;
  if (handle == MPI_SESSION_NULL)
    throw Error(ErrorClass::MPI_ERR_SESSION, fmt::format("{}(session)", where), "session is MPI_SESSION_NULL");
  throw Error(ErrorClass::MPI_ERR_SESSION, fmt::format("{}(session=0x{:x})", where, handle_bits(handle)),
              "not a session handle (never made by MPI_Session_init, or finalized)");
}

void SessionTable::remove(MPI_Session handle) {
  SessionEntry* e = find(handle);
  if (e == nullptr) return;
  *e = {};
  --open_;
}

int pset_count() noexcept { return static_cast<int>(kPsetNames.size()); }

std::string_view pset_name(int n) noexcept { return kPsetNames[static_cast<std::size_t>(n)]; }

GroupPtr pset_group(const Context& context, const char* name, const char* where) {
  if (name == nullptr) throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(pset_name)", where), "null pointer");
  const std::size_t length = strnlen(name, MPI_MAX_PSET_NAME_LEN);
  if (length == MPI_MAX_PSET_NAME_LEN)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(pset_name)", where),
                fmt::format("{} characters; at most MPI_MAX_PSET_NAME_LEN - 1 = {}", std::strlen(name),
                            MPI_MAX_PSET_NAME_LEN - 1));
  const int me = context.world().rank();
  if (strcasecmp(name, "mpi://WORLD") == 0) {
    std::vector<int> all(static_cast<std::size_t>(context.world().size()));
    for (std::size_t r = 0; r < all.size(); ++r) all[r] = static_cast<int>(r);
    return std::make_shared<const Group>(std::move(all), me);
  }
  if (strcasecmp(name, "mpi://SELF") == 0) return std::make_shared<const Group>(std::vector<int>{me}, me);
  throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(pset_name=\"{}\")", where, name),
              "no such process set; the process sets are \"mpi://WORLD\" and \"mpi://SELF\" "
              "(MPI_Session_get_nth_pset lists them)");
}

int thread_level_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kThreadLevelNames.size(); ++i)
    if (name == kThreadLevelNames[i]) return static_cast<int>(i);
  return -1;
}

std::string_view thread_level_name(int level) noexcept { return kThreadLevelNames[static_cast<std::size_t>(level)]; }

}  // namespace twinfab::mpi::capi
