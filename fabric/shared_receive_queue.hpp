// twinfab fabric contract: shared receive queues (one receive pool for many QPs).
#pragma once

#include <cstdint>
#include <string>

#include "fabric/status.hpp"
#include "fabric/types.hpp"

namespace twinfab::fabric {

class SharedReceiveQueue {
 public:
  virtual ~SharedReceiveQueue() = default;
  /// Status::NoResource when the queue is full; InvalidArgument for too many SGEs.
  virtual Status post_recv(const RecvWr& wr) = 0;
  virtual uint32_t capacity() const noexcept = 0;
  /// The reason for the last non-Ok status post_recv returned.
  virtual const std::string& last_error() const noexcept = 0;
  virtual SharedReceiveQueue& underlying() noexcept { return *this; }
};

}  // namespace twinfab::fabric
