// Internal: the destination of a UD send (an ibv_ah plus the remote QP and Q_Key).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>

#include "fabric/address_handle.hpp"

namespace twinfab::verbs {

class VerbsAddressHandle final : public fabric::AddressHandle {
 public:
  /// `ah` is shared with the device's cache: many handles to one host share it.
  VerbsAddressHandle(std::shared_ptr<ibv_ah> ah, uint32_t remote_qp_num, uint32_t remote_qkey) noexcept
      : ah_(std::move(ah)), remote_qp_num_(remote_qp_num), remote_qkey_(remote_qkey) {}

  uint32_t remote_qp_num() const noexcept override { return remote_qp_num_; }
  uint32_t remote_qkey() const noexcept { return remote_qkey_; }
  ibv_ah* handle() const noexcept { return ah_.get(); }

 private:
  std::shared_ptr<ibv_ah> ah_;
  uint32_t remote_qp_num_;
  uint32_t remote_qkey_;
};

}  // namespace twinfab::verbs
