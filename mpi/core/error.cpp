#include "mpi/core/error.hpp"

#include <fmt/format.h>

namespace twinfab::mpi {

std::string_view to_string(ErrorClass error_class) noexcept {
  switch (error_class) {
#define TWINFAB_MPI_ERROR_CLASS_NAME(name, value, text) \
  case ErrorClass::name:                                \
    return #name;
    TWINFAB_MPI_ERROR_CLASS_LIST(TWINFAB_MPI_ERROR_CLASS_NAME)
#undef TWINFAB_MPI_ERROR_CLASS_NAME
  }
  return "MPI_ERR_UNKNOWN";
}

std::string_view error_string(ErrorClass error_class) noexcept {
  switch (error_class) {
#define TWINFAB_MPI_ERROR_CLASS_TEXT(name, value, text) \
  case ErrorClass::name:                                \
    return text;
    TWINFAB_MPI_ERROR_CLASS_LIST(TWINFAB_MPI_ERROR_CLASS_TEXT)
#undef TWINFAB_MPI_ERROR_CLASS_TEXT
  }
  return error_string(ErrorClass::MPI_ERR_UNKNOWN);
}

ErrorClass error_class_from_int(int value) noexcept {
  switch (value) {
#define TWINFAB_MPI_ERROR_CLASS_VALUE(name, number, text) \
  case number:                                            \
    return ErrorClass::name;
    TWINFAB_MPI_ERROR_CLASS_LIST(TWINFAB_MPI_ERROR_CLASS_VALUE)
#undef TWINFAB_MPI_ERROR_CLASS_VALUE
  }
  return ErrorClass::MPI_ERR_UNKNOWN;
}

Error::Error(ErrorClass error_class, std::string_view where, std::string_view detail)
    : std::runtime_error(fmt::format("{}: {}", where, detail)), error_class_(error_class) {}

void fail_other(std::string_view where, std::string_view detail) {
  throw Error(ErrorClass::MPI_ERR_OTHER, where, detail);
}

}  // namespace twinfab::mpi
