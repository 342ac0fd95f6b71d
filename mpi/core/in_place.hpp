// twinfab MPI core: MPI_IN_PLACE, a marker and not a buffer.
//
// The collectives accept it for the buffer arguments the standard names (sendbuf of
// allreduce, scan, allgather, ...; the root's buffer of gather, scatter, reduce).
// Anywhere else it is erroneous; since its value is an address no buffer can have,
// every buffer check refuses it (MPI_ERR_BUFFER) before anything is read or written
// at it.
#pragma once

#include <cstdint>

namespace twinfab::mpi {

/// MPI_IN_PLACE (MPICH's value, so the C API can pass it through unchanged). A
/// constant, not state: it is only ever compared against.
inline void* const kInPlace = reinterpret_cast<void*>(~std::uintptr_t{0});

/// Throws MPI_ERR_BUFFER "<where>(<arg>): MPI_IN_PLACE is not valid here ...".
[[noreturn]] void throw_in_place(const char* where, const char* arg);

/// MPI_ERR_BUFFER when `buffer` is MPI_IN_PLACE.
inline void reject_in_place(const void* buffer, const char* where, const char* arg) {
  if (buffer == kInPlace) [[unlikely]]
    throw_in_place(where, arg);
}

}  // namespace twinfab::mpi
