// Internal: a shared receive queue over ibv_srq.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "fabric/shared_receive_queue.hpp"

namespace twinfab::verbs {

class VerbsSharedReceiveQueue final : public fabric::SharedReceiveQueue {
 public:
  /// Throws fabric::Error(InvalidArgument) for sizes beyond the device's limits.
  VerbsSharedReceiveQueue(ibv_pd* pd, uint32_t capacity, uint32_t max_sge, const ibv_device_attr& limits);
  ~VerbsSharedReceiveQueue() override;
  VerbsSharedReceiveQueue(const VerbsSharedReceiveQueue&) = delete;
  VerbsSharedReceiveQueue& operator=(const VerbsSharedReceiveQueue&) = delete;

  fabric::Status post_recv(const fabric::RecvWr& wr) override;
  uint32_t capacity() const noexcept override { return capacity_; }
  const std::string& last_error() const noexcept override { return last_error_; }

  ibv_srq* handle() const noexcept { return srq_; }

 private:
  ibv_srq* srq_ = nullptr;
  uint32_t capacity_ = 0;
  uint32_t max_sge_ = 0;
  std::string last_error_;
};

}  // namespace twinfab::verbs
