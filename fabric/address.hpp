// twinfab fabric contract: the opaque address blob that connects queue pairs.
//
// A QP publishes `local_address()`; the application moves the bytes out of band (PMIx,
// the simulator's exchange, a file) and hands them to the peer's `connect()` or
// `create_address_handle()`. The blob is self-describing: a header names the backend
// and the transport, so a blob from another backend or transport, or a truncated one,
// is rejected with a clear error instead of being misread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/status.hpp"
#include "fabric/types.hpp"

namespace twinfab::fabric {

class Address {
 public:
  Address() = default;
  /// Build a blob: header (magic, version, backend tag, transport) + backend payload.
  static Address make(std::string_view backend, Transport transport, std::span<const std::byte> payload);
  /// Wrap received bytes; nothing is validated until `parse`.
  static Address from_bytes(std::span<const std::byte> bytes);

  /// Validates the header against what the receiver expects. On success `payload`
  /// points into this blob. On failure, `why` says what was wrong (truncated, other
  /// backend, other transport) and the status is InvalidArgument.
  Status parse(std::string_view expected_backend, Transport expected_transport,
               std::span<const std::byte>& payload, std::string& why) const;

  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  bool empty() const noexcept { return bytes_.empty(); }
  std::string to_hex() const;
  static Address from_hex(std::string_view hex);
  bool operator==(const Address&) const = default;

 private:
  std::vector<std::byte> bytes_;
};

}  // namespace twinfab::fabric
