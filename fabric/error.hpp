// twinfab fabric contract: the exception thrown at set-up time.
//
// The data path (post, poll) returns Status; set-up (opening a device, creating a QP,
// registering memory, parsing a platform) throws fabric::Error with a message that
// says what went wrong and what to do.
#pragma once

#include <stdexcept>
#include <string>

#include "fabric/status.hpp"

namespace twinfab::fabric {

class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const noexcept { return status_; }

 private:
  Status status_;
};

}  // namespace twinfab::fabric
