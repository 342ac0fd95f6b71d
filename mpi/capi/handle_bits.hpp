// twinfab C API: a handle's value as the handle tables read it.
//
// mpi.h's handles (MPI_Comm, MPI_Info, MPI_Session, MPI_Win, MPI_Op, keyvals...) are
// ints whose bits encode a kind and a table index (rank_state.hpp's layout); the tables
// and their error messages look at them unsigned.
#pragma once

#include <cstdint>

namespace twinfab::mpi::capi {

/// `handle`'s 32 bits, unsigned (a handle with the high bit set is not negative here).
inline std::uint32_t handle_bits(int handle) { return static_cast<std::uint32_t>(handle); }

}  // namespace twinfab::mpi::capi
