#include "backends/verbs/verbs_address.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <array>
#include <cstring>
#include <span>
#include <vector>

#include "backends/verbs/verbs_backend.hpp"

namespace twinfab::verbs {
namespace {

// The first payload byte says which kind of endpoint follows, so that a RoCE blob fed
// to an IB device (or an iWARP one to RoCE) is refused with a clear reason.
constexpr size_t kRoutedBytes = 1 + 4 + 4 + 2 + 16 + 1 + 1 + 1 + 1 + 4;
constexpr size_t kIwarpBytes = 1 + 4 + 4 + 2 + 4;

class Writer {
 public:
  void u8(uint8_t v) { bytes_.push_back(std::byte{v}); }
  void u16(uint16_t v) { for (int s = 8; s >= 0; s -= 8) u8(static_cast<uint8_t>(v >> s)); }
  void u32(uint32_t v) { for (int s = 24; s >= 0; s -= 8) u8(static_cast<uint8_t>(v >> s)); }
  void raw(const void* p, size_t n) {
    auto* b = static_cast<const std::byte*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::span<const std::byte> bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  uint8_t u8() { return static_cast<uint8_t>(bytes_[pos_++]); }
  uint16_t u16() {
    uint16_t hi = u8();
    return static_cast<uint16_t>(hi << 8 | u8());
  }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | u8();
    return v;
  }
  void raw(void* p, size_t n) {
    std::memcpy(p, bytes_.data() + pos_, n);
    pos_ += n;
  }

 private:
  std::span<const std::byte> bytes_;
  size_t pos_ = 0;
};

fabric::Status parse_payload(const fabric::Address& blob, fabric::Transport transport, fabric::LinkKind kind,
                             size_t expected_bytes, std::span<const std::byte>& payload, std::string& why) {
  if (fabric::Status s = blob.parse(kBackendName, transport, payload, why); s != fabric::Status::Ok) return s;
  if (payload.empty()) {
    why = "verbs address blob has an empty payload";
    return fabric::Status::InvalidArgument;
  }
  auto blob_kind = static_cast<fabric::LinkKind>(payload[0]);
  if (blob_kind != kind) {
    why = fmt::format("address blob is from a {} device, this device is {}", fabric::to_string(blob_kind),
                      fabric::to_string(kind));
    return fabric::Status::InvalidArgument;
  }
  if (payload.size() != expected_bytes) {
    why = fmt::format("verbs {} address payload has {} bytes, expected {}", fabric::to_string(kind), payload.size(),
                      expected_bytes);
    return fabric::Status::InvalidArgument;
  }
  return fabric::Status::Ok;
}

}  // namespace

fabric::Address encode_address(fabric::Transport transport, const RoutedEndpoint& e) {
  Writer w;
  w.u8(static_cast<uint8_t>(e.link));
  w.u32(e.qp_num);
  w.u32(e.psn);
  w.u16(e.lid);
  w.raw(e.gid.raw, sizeof e.gid.raw);
  w.u8(e.gid_index);
  w.u8(e.port);
  w.u8(static_cast<uint8_t>(e.mtu));
  w.u8(e.responder_resources);
  w.u32(e.qkey);
  return fabric::Address::make(kBackendName, transport, w.bytes());
}

fabric::Address encode_address(fabric::Transport transport, const IwarpEndpoint& e) {
  Writer w;
  w.u8(static_cast<uint8_t>(fabric::LinkKind::IWarp));
  w.u32(e.rank);
  w.raw(&e.ipv4, 4);  // already in network order, i.e. big-endian
  w.u16(e.port);
  w.u32(e.qp_num);
  return fabric::Address::make(kBackendName, transport, w.bytes());
}

fabric::Status decode_address(const fabric::Address& blob, fabric::Transport transport, fabric::LinkKind local_link,
                              RoutedEndpoint& out, std::string& why) {
  std::span<const std::byte> payload;
  if (auto s = parse_payload(blob, transport, local_link, kRoutedBytes, payload, why); s != fabric::Status::Ok) return s;
  Reader r(payload.subspan(1));
  out.link = local_link;
  out.qp_num = r.u32();
  out.psn = r.u32();
  out.lid = r.u16();
  r.raw(out.gid.raw, sizeof out.gid.raw);
  out.gid_index = r.u8();
  out.port = r.u8();
  uint8_t mtu = r.u8();
  if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096) {
    why = fmt::format("verbs address blob has an invalid MTU code {}", mtu);
    return fabric::Status::InvalidArgument;
  }
  out.mtu = static_cast<ibv_mtu>(mtu);
  out.responder_resources = r.u8();
  out.qkey = r.u32();
  return fabric::Status::Ok;
}

fabric::Status decode_address(const fabric::Address& blob, fabric::Transport transport, IwarpEndpoint& out,
                              std::string& why) {
  std::span<const std::byte> payload;
  if (auto s = parse_payload(blob, transport, fabric::LinkKind::IWarp, kIwarpBytes, payload, why);
      s != fabric::Status::Ok)
    return s;
  Reader r(payload.subspan(1));
  out.rank = r.u32();
  r.raw(&out.ipv4, 4);
  out.port = r.u16();
  out.qp_num = r.u32();
  return fabric::Status::Ok;
}

std::string to_string(const IwarpEndpoint& e) {
  char ip[INET_ADDRSTRLEN] = "?";
  in_addr a{};
  a.s_addr = e.ipv4;
  inet_ntop(AF_INET, &a, ip, sizeof ip);
  return fmt::format("{}:{} (rank {}, QP {})", ip, e.port, e.rank, e.qp_num);
}

}  // namespace twinfab::verbs
