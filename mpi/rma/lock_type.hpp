// twinfab MPI one-sided: MPI_LOCK_SHARED / MPI_LOCK_EXCLUSIVE.
#pragma once

#include <cstdint>

namespace twinfab::mpi::rma {

enum class LockType : std::uint8_t { Shared, Exclusive };

}  // namespace twinfab::mpi::rma
