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

void Runtime::check_agent_body(const std::string& name, const std::function<void()>& body) {
  if (!body)
    throw Error(Status::InvalidArgument,
                fmt::format("Runtime::spawn('{}'): the body is empty; pass the function the agent runs", name));
}

}  // namespace twinfab::fabric
