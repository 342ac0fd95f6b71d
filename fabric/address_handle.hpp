// twinfab fabric contract: the destination of a UD send.
//
// Made by Device::create_address_handle from a remote UD QP's Address blob; holds the
// route (LID/GID in verbs, host in the simulator), the QP number and the Q_Key.
#pragma once

#include <cstdint>

namespace twinfab::fabric {

class AddressHandle {
 public:
  virtual ~AddressHandle() = default;
  virtual uint32_t remote_qp_num() const noexcept = 0;
};

}  // namespace twinfab::fabric
