// MPI C API: info objects (MPI-3.1 §9): MPI_Info_create, _set, _get, _get_valuelen,
// _get_nkeys, _get_nthkey, _delete, _dup, _free. The objects live in the rank's
// InfoTable (info_table.hpp, which also says what MPI_INFO_ENV holds). MPI-4.0 §11.4.1
// allows them at any time, before MPI_Init or MPI_Session_init and after the last
// finalize too (entry_anytime). Errors go to MPI_COMM_WORLD's handler, as for every call
// without a communicator, and outside the World model to the initial handler,
// MPI_ERRORS_ARE_FATAL.
//
// Classes, as in MPICH: MPI_ERR_INFO for MPI_INFO_NULL, a freed or an unknown handle
// (and for freeing MPI_INFO_ENV); MPI_ERR_INFO_KEY for a null or empty key or one
// longer than MPI_MAX_INFO_KEY - 1 characters, MPI_ERR_INFO_VALUE likewise for the
// value of MPI_Info_set; MPI_ERR_INFO_NOKEY for deleting a key that is not set;
// MPI_ERR_ARG for other null pointers (the outputs), a negative valuelen and an n of
// MPI_Info_get_nthkey out of range. The
// bound is MPI_MAX_INFO_KEY - 1 (not MPICH's MPI_MAX_INFO_KEY) so that every key fits
// with its terminator in the MPI_MAX_INFO_KEY bytes MPI_Info_get_nthkey may write.
// Every check comes before the first change: a refused call changes nothing.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

/// A key or value argument as a string, checked: null, empty or longer than `limit` -
/// 1 characters is `error_class`. Reads at most `limit` bytes while checking.
std::string_view checked_string(const char* text, std::size_t limit, ErrorClass error_class, const char* where,
                                const char* arg, const char* bound) {
  if (text == nullptr) throw Error(error_class, fmt::format("{}({})", where, arg), "null pointer");
  const std::size_t length = strnlen(text, limit);
  if (length == 0) throw Error(error_class, fmt::format("{}({})", where, arg), fmt::format("empty {}", arg));
  if (length == limit)
    throw Error(error_class, fmt::format("{}({})", where, arg),
                fmt::format("{} characters; at most {} ({} - 1)", std::strlen(text), limit - 1, bound));
  return {text, length};
}

std::string_view checked_key(const char* key, const char* where) {
  return checked_string(key, MPI_MAX_INFO_KEY, ErrorClass::MPI_ERR_INFO_KEY, where, "key", "MPI_MAX_INFO_KEY");
}

std::string_view checked_value(const char* value, const char* where) {
  return checked_string(value, MPI_MAX_INFO_VAL, ErrorClass::MPI_ERR_INFO_VALUE, where, "value", "MPI_MAX_INFO_VAL");
}

}  // namespace

extern "C" {

int MPI_Info_create(MPI_Info* info) {
  const char* where = "MPI_Info_create";
  return entry_anytime(where, [&](RankState& s) {
    require_pointer(info, where, "info");
    *info = s.infos.add({}, where);
    return MPI_SUCCESS;
  });
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  const char* where = "MPI_Info_set";
  return entry_anytime(where, [&](RankState& s) {
    InfoObject& object = s.infos.get(info, where);
    const std::string_view k = checked_key(key, where);
    const std::string_view v = checked_value(value, where);
    object.set(k, v);
    return MPI_SUCCESS;
  });
}

int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const char* where = "MPI_Info_get";
  return entry_anytime(where, [&](RankState& s) {
    const InfoObject& object = s.infos.get(info, where);
    const std::string_view k = checked_key(key, where);
    if (valuelen < 0)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(valuelen={})", where, valuelen), "must not be negative");
    require_pointer(value, where, "value");
    require_pointer(flag, where, "flag");
    const std::string* found = object.find(k);
    if (found == nullptr) {
      *flag = 0;  // value untouched, as the standard says
      return MPI_SUCCESS;
    }
    // C: value holds valuelen characters and the terminator; a longer value is cut.
    const std::size_t n = std::min(found->size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, found->data(), n);
    value[n] = '\0';
    *flag = 1;
    return MPI_SUCCESS;
  });
}

int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const char* where = "MPI_Info_get_valuelen";
  return entry_anytime(where, [&](RankState& s) {
    const InfoObject& object = s.infos.get(info, where);
    const std::string_view k = checked_key(key, where);
    require_pointer(valuelen, where, "valuelen");
    require_pointer(flag, where, "flag");
    const std::string* found = object.find(k);
    *flag = found != nullptr ? 1 : 0;
    if (found != nullptr) *valuelen = static_cast<int>(found->size());  // without the terminator
    return MPI_SUCCESS;
  });
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  const char* where = "MPI_Info_get_nkeys";
  return entry_anytime(where, [&](RankState& s) {
    const InfoObject& object = s.infos.get(info, where);
    require_pointer(nkeys, where, "nkeys");
    *nkeys = static_cast<int>(object.size());
    return MPI_SUCCESS;
  });
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  const char* where = "MPI_Info_get_nthkey";
  return entry_anytime(where, [&](RankState& s) {
    const InfoObject& object = s.infos.get(info, where);
    if (n < 0 || static_cast<std::size_t>(n) >= object.size())
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(n={})", where, n),
                  object.size() == 0 ? std::string("out of range; the info object has no keys")
                                     : fmt::format("out of range; the info object has {} keys (0 ... {})",
                                                   object.size(), object.size() - 1));
    require_pointer(key, where, "key");
    const std::string& k = object.key(static_cast<std::size_t>(n));
    std::memcpy(key, k.c_str(), k.size() + 1);  // at most MPI_MAX_INFO_KEY bytes
    return MPI_SUCCESS;
  });
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  const char* where = "MPI_Info_delete";
  return entry_anytime(where, [&](RankState& s) {
    InfoObject& object = s.infos.get(info, where);
    const std::string_view k = checked_key(key, where);
    if (!object.erase(k))
      throw Error(ErrorClass::MPI_ERR_INFO_NOKEY, fmt::format("{}(key=\"{}\")", where, k),
                  "no such key in this info object");
    return MPI_SUCCESS;
  });
}

int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  const char* where = "MPI_Info_dup";
  return entry_anytime(where, [&](RankState& s) {
    const InfoObject& object = s.infos.get(info, where);
    require_pointer(newinfo, where, "newinfo");
    *newinfo = s.infos.add(object, where);  // a copy: the two change independently
    return MPI_SUCCESS;
  });
}

int MPI_Info_free(MPI_Info* info) {
  const char* where = "MPI_Info_free";
  return entry_anytime(where, [&](RankState& s) {
    require_pointer(info, where, "info");
    s.infos.free(*info, where);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
