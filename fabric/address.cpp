#include "fabric/address.hpp"

#include <fmt/format.h>

#include <cstring>

#include "fabric/error.hpp"

namespace twinfab::fabric {
namespace {

constexpr uint32_t kMagic = 0x74664162;  // "tfAb"
constexpr uint8_t kVersion = 1;
constexpr size_t kBackendTagBytes = 8;
// magic(4) version(1) transport(1) payload_len(2) backend tag(8)
constexpr size_t kHeaderBytes = 4 + 1 + 1 + 2 + kBackendTagBytes;

}  // namespace

Address Address::make(std::string_view backend, Transport transport, std::span<const std::byte> payload) {
  if (backend.size() > kBackendTagBytes) throw Error(Status::InvalidArgument, "backend tag too long");
  if (payload.size() > 0xffff) throw Error(Status::InvalidArgument, "address payload too long");
  Address a;
  a.bytes_.resize(kHeaderBytes + payload.size());
  std::byte* p = a.bytes_.data();
  uint32_t magic = kMagic;
  std::memcpy(p, &magic, 4);
  p[4] = std::byte{kVersion};
  p[5] = std::byte{static_cast<uint8_t>(transport)};
  uint16_t len = static_cast<uint16_t>(payload.size());
  std::memcpy(p + 6, &len, 2);
  std::memcpy(p + 8, backend.data(), backend.size());
  if (!payload.empty()) std::memcpy(p + kHeaderBytes, payload.data(), payload.size());
  return a;
}

Address Address::from_bytes(std::span<const std::byte> bytes) {
  Address a;
  a.bytes_.assign(bytes.begin(), bytes.end());
  return a;
}

Status Address::parse(std::string_view expected_backend, Transport expected_transport,
                      std::span<const std::byte>& payload, std::string& why) const {
  if (bytes_.size() < kHeaderBytes) {
    why = fmt::format("address blob truncated: {} bytes, a header alone is {}", bytes_.size(), kHeaderBytes);
    return Status::InvalidArgument;
  }
  uint32_t magic;
  std::memcpy(&magic, bytes_.data(), 4);
  if (magic != kMagic) {
    why = "not a twinfab address blob (bad magic)";
    return Status::InvalidArgument;
  }
  if (static_cast<uint8_t>(bytes_[4]) != kVersion) {
    why = fmt::format("address blob version {} is not supported (expected {})", static_cast<int>(bytes_[4]), kVersion);
    return Status::InvalidArgument;
  }
  char tag[kBackendTagBytes + 1] = {};
  std::memcpy(tag, bytes_.data() + 8, kBackendTagBytes);
  if (std::string_view(tag) != expected_backend) {
    why = fmt::format("address blob is from backend '{}', this QP is on backend '{}'", tag, expected_backend);
    return Status::InvalidArgument;
  }
  auto transport = static_cast<Transport>(bytes_[5]);
  if (transport != expected_transport) {
    why = fmt::format("address blob is for a {} QP, this QP is {}", to_string(transport), to_string(expected_transport));
    return Status::InvalidArgument;
  }
  uint16_t len;
  std::memcpy(&len, bytes_.data() + 6, 2);
  if (bytes_.size() != kHeaderBytes + len) {
    why = fmt::format("address blob truncated or padded: header says {} payload bytes, blob has {}", len,
                      bytes_.size() - kHeaderBytes);
    return Status::InvalidArgument;
  }
  payload = std::span<const std::byte>(bytes_).subspan(kHeaderBytes);
  return Status::Ok;
}

std::string Address::to_hex() const {
  std::string out;
  out.reserve(bytes_.size() * 2);
  for (std::byte b : bytes_) out += fmt::format("{:02x}", static_cast<unsigned>(b));
  return out;
}

Address Address::from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) throw Error(Status::InvalidArgument, "address hex string has odd length");
  Address a;
  a.bytes_.reserve(hex.size() / 2);
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) throw Error(Status::InvalidArgument, "address hex string has a non-hex character");
    a.bytes_.push_back(static_cast<std::byte>(hi * 16 + lo));
  }
  return a;
}

}  // namespace twinfab::fabric
