// A fabric::Device whose only working call is register_memory: registrations are
// cheap records, counted, so registration-cache tests and benchmarks measure the
// cache. Every other factory throws Unsupported.
#pragma once

#include <cstdint>
#include <memory>
#include <exception>
#include <unordered_set>

#include "fabric/device.hpp"
#include "fabric/error.hpp"

namespace twinfab::testing {

class CountingDevice final : public fabric::Device {
 public:
  class Region final : public fabric::MemoryRegion {
   public:
    Region(CountingDevice& device, void* addr, std::size_t length, fabric::Access access, std::uint32_t key)
        : device_(device), addr_(addr), length_(length), access_(access), key_(key) {}
    ~Region() override {
      ++device_.deregistrations;
      --device_.live;
    }
    void* addr() const noexcept override { return addr_; }
    std::size_t length() const noexcept override { return length_; }
    std::uint32_t lkey() const noexcept override { return key_; }
    std::uint32_t rkey() const noexcept override { return key_; }
    fabric::Access access() const noexcept override { return access_; }

   private:
    CountingDevice& device_;
    void* addr_;
    std::size_t length_;
    fabric::Access access_;
    std::uint32_t key_;
  };

  const fabric::DeviceCapabilities& capabilities() const noexcept override { return caps_; }
  fabric::Runtime& runtime() noexcept override { std::terminate(); }  // never used by a cache
  std::unique_ptr<fabric::MemoryRegion> register_memory(void* addr, std::size_t length,
                                                        fabric::Access access) override {
    if (addr == nullptr || length == 0) throw fabric::Error(fabric::Status::InvalidArgument, "null or empty");
    if (fail_next) {
      fail_next = false;
      throw fabric::Error(fabric::Status::InvalidArgument, "CountingDevice: refused on request");
    }
    ++registrations;
    ++live;
    return std::make_unique<Region>(*this, addr, length, access, ++next_key_);
  }
  std::unique_ptr<fabric::CompletionQueue> create_cq(std::uint32_t) override { throw unsupported(); }
  std::unique_ptr<fabric::SharedReceiveQueue> create_srq(std::uint32_t, std::uint32_t) override {
    throw unsupported();
  }
  std::unique_ptr<fabric::QueuePair> create_qp(const fabric::QpConfig&) override { throw unsupported(); }
  std::unique_ptr<fabric::AddressHandle> create_address_handle(const fabric::Address&) override {
    throw unsupported();
  }

  std::uint64_t registrations = 0;
  std::uint64_t deregistrations = 0;
  std::int64_t live = 0;
  bool fail_next = false;

 private:
  static fabric::Error unsupported() { return fabric::Error(fabric::Status::Unsupported, "CountingDevice"); }
  fabric::DeviceCapabilities caps_{};
  std::uint32_t next_key_ = 0;
};

}  // namespace twinfab::testing
