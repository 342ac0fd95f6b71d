#include "fabric/runtime.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fabric/error.hpp"

namespace twinfab::fabric {

void Runtime::check_time(double value, const char* where) {
  if (std::isnan(value))
    throw Error(Status::InvalidArgument,
                fmt::format("{}: NaN is not a time (Runtime::kForever waits without a deadline)", where));
}

}  // namespace twinfab::fabric
