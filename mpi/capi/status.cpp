// MPI C API: setting a status's cancelled flag and element count (MPI-3.1 §12.3), what
// a generalized request's query_fn uses to describe its operation. The status keeps
// its count in bytes (the private twinfab_count_bytes, as a receive leaves it), so a
// count of elements is stored as the bytes that many basic elements of the datatype
// fill (mpi::Datatype::bytes_of_elements): MPI_Get_elements with the same datatype
// gives it back, and MPI_Get_count the whole elements it makes, as for a received
// message of that size.
#include <fmt/format.h>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

void require_status(const MPI_Status* status, const char* where) {
  if (status == nullptr || status == MPI_STATUS_IGNORE)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(status)", where), "null or MPI_STATUS_IGNORE");
}

void set_elements(RankState& s, MPI_Status* status, MPI_Datatype datatype, long long count, const char* where) {
  require_status(status, where);
  const DatatypePtr& t = s.type(datatype, where);
  if (count < 0)
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(count={})", where, count), "must not be negative");
  const std::optional<std::int64_t> bytes = t->bytes_of_elements(count);
  if (!bytes)
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(count={})", where, count),
                fmt::format("{} basic elements of this datatype exceed a status's byte count", count));
  status->twinfab_count_bytes = *bytes;
}

}  // namespace

extern "C" {

int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  return entry("MPI_Status_set_cancelled", MPI_COMM_WORLD, [&](RankState&) {
    require_status(status, "MPI_Status_set_cancelled");
    status->twinfab_cancelled = flag != 0 ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return entry("MPI_Status_set_elements", MPI_COMM_WORLD, [&](RankState& s) {
    set_elements(s, status, datatype, count, "MPI_Status_set_elements");
    return MPI_SUCCESS;
  });
}

int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return entry("MPI_Status_set_elements_x", MPI_COMM_WORLD, [&](RankState& s) {
    set_elements(s, status, datatype, count, "MPI_Status_set_elements_x");
    return MPI_SUCCESS;
  });
}

int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return entry("MPI_Status_set_elements_c", MPI_COMM_WORLD, [&](RankState& s) {
    set_elements(s, status, datatype, count, "MPI_Status_set_elements_c");
    return MPI_SUCCESS;
  });
}

}  // extern "C"
