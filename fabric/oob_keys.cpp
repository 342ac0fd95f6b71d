#include "fabric/oob_keys.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "fabric/error.hpp"

namespace twinfab::fabric {

// The shared blob: for each key in order, a 4-byte length and the part.

class OobKeys::View final : public OobExchange {
 public:
  View(OobKeys& keys, std::size_t key) : keys_(keys), key_(key) {}
  int rank() const noexcept override { return keys_.shared_.rank(); }
  int size() const noexcept override { return keys_.shared_.size(); }
  void put(std::span<const std::byte> blob) override {
    keys_.parts_[key_].assign(blob.begin(), blob.end());
  }
  void fence() override {
    keys_.publish();
    keys_.shared_.fence();
  }
  std::vector<std::byte> get(int rank) const override { return keys_.part_of(rank, key_); }
  void barrier() override { keys_.shared_.barrier(); }
  std::unique_ptr<PendingBarrier> start_barrier() override { return keys_.shared_.start_barrier(); }
  std::optional<int> node() const noexcept override { return keys_.shared_.node(); }
  std::vector<int> local_ranks() const override { return keys_.shared_.local_ranks(); }
  bool hosts_shared() const override { return keys_.shared_.hosts_shared(); }

 private:
  OobKeys& keys_;
  const std::size_t key_;
};

OobKeys::OobKeys(OobExchange& shared) noexcept : shared_(shared) {}
OobKeys::~OobKeys() = default;

OobExchange& OobKeys::view(std::size_t key) {
  if (key >= views_.size()) {
    views_.resize(key + 1);
    parts_.resize(key + 1);
  }
  if (!views_[key]) views_[key] = std::make_unique<View>(*this, key);
  return *views_[key];
}

void OobKeys::publish() {
  std::vector<std::byte> blob;
  for (const auto& part : parts_) {
    const auto length = static_cast<std::uint32_t>(part.size());
    const auto* bytes = reinterpret_cast<const std::byte*>(&length);
    blob.insert(blob.end(), bytes, bytes + sizeof length);
    blob.insert(blob.end(), part.begin(), part.end());
  }
  shared_.put(blob);
}

std::vector<std::byte> OobKeys::part_of(int rank, std::size_t key) const {
  const std::vector<std::byte> blob = shared_.get(rank);
  std::size_t at = 0;
  for (std::size_t k = 0;; ++k) {
    std::uint32_t length = 0;
    if (blob.size() - at < sizeof length) return {};  // the rank published no such key
    std::memcpy(&length, blob.data() + at, sizeof length);
    at += sizeof length;
    if (blob.size() - at < length)
      throw Error(Status::InvalidArgument,
                  fmt::format("out-of-band blob of rank {} is truncated: part {} claims {} bytes, {} are left", rank,
                              k, length, blob.size() - at));
    if (k == key) return std::vector<std::byte>(blob.begin() + static_cast<std::ptrdiff_t>(at),
                                                blob.begin() + static_cast<std::ptrdiff_t>(at + length));
    at += length;
  }
}

}  // namespace twinfab::fabric
