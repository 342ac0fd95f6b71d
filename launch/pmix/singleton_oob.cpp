#include "launch/pmix/singleton_oob.hpp"

#include <fmt/format.h>

#include "fabric/error.hpp"

namespace twinfab::launch {

std::vector<std::byte> SingletonOobExchange::get(int rank) const {
  if (rank != 0)
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("OobExchange::get: rank {} outside 0..0 (a singleton job)", rank));
  return visible_;
}

}  // namespace twinfab::launch
