// twinfab MPI core: the "external32" data representation (MPI-3.1 §13.5.2), for
// MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size.
//
// external32 is big-endian, IEEE floating point, with a fixed size per predefined type
// (Table 13.2): e.g. MPI_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16 (IEEE binary128),
// a pair type its value then its int. The conversion reuses pack()'s traversal of
// the type: the native packed form (pack/unpack) is converted element by element
// along Datatype::for_each_basic_run, so there is one walk of derived types, not two.
//
// A value that does not fit the other side (a long outside 32 bits, a wchar_t above
// 0xFFFF when packing) is MPI_ERR_CONVERSION, naming the type and the value. Unpacking
// converts into a scratch copy first, so a refused call leaves the user's buffer as it
// was; a refused pack may have written part of the output beyond the position it
// was given (which it does not advance).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "mpi/core/datatype.hpp"

namespace twinfab::mpi {

/// The external32 size of one element of a predefined type (Table 13.2).
std::int64_t external32_size(BasicKind kind) noexcept;

/// Bytes that `count` elements of `type` occupy in external32 (MPI_Pack_external_size).
/// Checks as check_buffer_type does.
std::int64_t external32_size(std::int64_t count, const Datatype& type, std::string_view where);

/// Packs `count` elements of `type` at `buffer` into `out`, which must hold exactly
/// external32_size(count, type) bytes.
void pack_external32(const void* buffer, std::int64_t count, const Datatype& type, std::span<std::byte> out,
                     std::string_view where);

/// The inverse: `in` holds exactly external32_size(count, type) bytes.
void unpack_external32(std::span<const std::byte> in, void* buffer, std::int64_t count, const Datatype& type,
                       std::string_view where);

}  // namespace twinfab::mpi
