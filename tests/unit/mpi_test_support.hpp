// Shared by the mpi/core unit tests.
#pragma once

#include <string>

#include "mpi/core/error.hpp"

namespace twinfab::mpi::testing {

/// The class of the mpi::Error `f` throws, or MPI_SUCCESS when it throws nothing;
/// `message` receives the error's text.
template <class F>
ErrorClass error_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.error_class();
  }
  return ErrorClass::MPI_SUCCESS;
}

}  // namespace twinfab::mpi::testing
