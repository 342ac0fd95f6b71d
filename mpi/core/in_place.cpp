#include "mpi/core/in_place.hpp"

#include <fmt/format.h>

#include "mpi/core/error.hpp"

namespace twinfab::mpi {

void throw_in_place(const char* where, const char* arg) {
  throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}({}=MPI_IN_PLACE)", where, arg),
              "MPI_IN_PLACE is not a buffer; it is only valid for the collective arguments the standard names "
              "(e.g. sendbuf of MPI_Allreduce, or the root's own block of MPI_Gather)");
}

}  // namespace twinfab::mpi
