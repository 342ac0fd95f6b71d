// MPI C API: MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size (MPI-3.1
// §4.2): the "external32" representation (mpi/core/external32.hpp), so that packed data
// can be read by another MPI library or machine. Argument checks as MPI_Pack's
// (datatype.cpp), with positions and sizes in MPI_Aint. There is no communicator: errors
// go to MPI_COMM_WORLD's handler.
#include <fmt/format.h>

#include <cstring>
#include <span>

#include "mpi/capi/rank_state.hpp"
#include "mpi/core/external32.hpp"
#include "mpi/core/in_place.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

/// MPI_ERR_ARG unless datarep is "external32", the one representation MPI requires
/// (and the only one MPICH has). Compared as a C string: a Fortran-padded name would
/// not match, and C callers pass the literal.
void require_external32(const char* datarep, const char* where) {
  require_pointer(datarep, where, "datarep");
  if (std::strcmp(datarep, "external32") != 0)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(datarep=\"{:.64}\")", where, datarep),
                "the only data representation is \"external32\"");
}

/// The checks MPI_Pack_external and MPI_Unpack_external share: the representation,
/// the type and count, and a position inside a buffer of `size` bytes that leaves room
/// for the external32 bytes, which it returns.
template <class Size>
std::int64_t room(const char* datarep, const DatatypePtr& type, std::int64_t count, Size size, const Size* position,
                  const char* where, const char* size_arg) {
  require_external32(datarep, where);
  require_pointer(position, where, "position");
  const std::int64_t bytes = external32_size(count, *type, where);  // checks count and type
  if (size < 0)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}={})", where, size_arg, size), "negative buffer size");
  if (*position < 0 || *position > size || bytes > size - *position)
    throw Error(ErrorClass::MPI_ERR_TRUNCATE, fmt::format("{}({}={}, position={})", where, size_arg, size, *position),
                fmt::format("{} elements take {} bytes in external32; the buffer has {} left from position", count,
                            bytes, size - *position));
  return bytes;
}

/// A buffer of packed external32 bytes: not MPI_IN_PLACE, not null.
void require_packed(const void* buffer, const char* where, const char* arg) {
  reject_in_place(buffer, where, arg);
  require_pointer(buffer, where, arg);
}

/// The user's side, which may be MPI_BOTTOM for a type of absolute addresses.
void require_user(const void* buffer, const Datatype& type, const char* where, const char* arg) {
  reject_in_place(buffer, where, arg);
  if (!type.may_be_absolute()) require_pointer(buffer, where, arg);
}

template <class Size>
int pack_external(const char* where, const char datarep[], const void* inbuf, std::int64_t incount,
                  MPI_Datatype datatype, void* outbuf, Size outsize, Size* position) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    const std::int64_t bytes = room(datarep, t, incount, outsize, position, where, "outsize");
    if (bytes == 0) return MPI_SUCCESS;
    require_user(inbuf, *t, where, "inbuf");
    require_packed(outbuf, where, "outbuf");
    auto* out = static_cast<std::byte*>(outbuf) + *position;
    pack_external32(inbuf, incount, *t, std::span<std::byte>(out, static_cast<std::size_t>(bytes)), where);
    *position += static_cast<Size>(bytes);
    return MPI_SUCCESS;
  });
}

template <class Size>
int unpack_external(const char* where, const char datarep[], const void* inbuf, Size insize, Size* position,
                    void* outbuf, std::int64_t outcount, MPI_Datatype datatype) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    const std::int64_t bytes = room(datarep, t, outcount, insize, position, where, "insize");
    if (bytes == 0) return MPI_SUCCESS;
    require_packed(inbuf, where, "inbuf");
    require_user(outbuf, *t, where, "outbuf");
    const auto* in = static_cast<const std::byte*>(inbuf) + *position;
    unpack_external32(std::span<const std::byte>(in, static_cast<std::size_t>(bytes)), outbuf, outcount, *t, where);
    *position += static_cast<Size>(bytes);
    return MPI_SUCCESS;
  });
}

template <class Size>
int pack_external_size(const char* where, const char datarep[], std::int64_t incount, MPI_Datatype datatype,
                       Size* size) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const DatatypePtr& t = s.type(datatype, where);
    require_external32(datarep, where);
    require_pointer(size, where, "size");
    *size = static_cast<Size>(external32_size(incount, *t, where));
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int MPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                      MPI_Aint outsize, MPI_Aint* position) {
  return pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                        int outcount, MPI_Datatype datatype) {
  return unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
  return pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}

// ---- large counts (MPI-4.0 §5.2.2)

int MPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                        MPI_Count outsize, MPI_Count* position) {
  return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int MPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                          MPI_Count outcount, MPI_Datatype datatype) {
  return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count* size) {
  return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}

}  // extern "C"
