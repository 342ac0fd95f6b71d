// Internal: the simple simulated fabric objects — memory regions, completion queues,
// shared receive queues and address handles.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "fabric/address_handle.hpp"
#include "fabric/completion_queue.hpp"
#include "fabric/memory_region.hpp"
#include "fabric/shared_receive_queue.hpp"

namespace twinfab::sim {

class SimDevice;
class SimHca;

class SimMemoryRegion final : public fabric::MemoryRegion {
 public:
  SimMemoryRegion(SimDevice& owner, SimHca& hca, void* addr, size_t length, fabric::Access access);
  ~SimMemoryRegion() override;
  void* addr() const noexcept override { return addr_; }
  size_t length() const noexcept override { return length_; }
  uint32_t lkey() const noexcept override { return key_; }
  uint32_t rkey() const noexcept override { return key_; }
  fabric::Access access() const noexcept override { return access_; }

  /// The device context (and so protection domain) that registered it.
  const SimDevice* owner() const noexcept { return owner_; }
  /// True when [addr, addr+len) lies inside the region.
  bool covers(uint64_t addr, uint64_t len) const noexcept {
    uint64_t base = reinterpret_cast<uint64_t>(addr_);
    return addr >= base && len <= length_ && addr - base <= length_ - len;
  }

 private:
  const SimDevice* owner_;
  SimHca& hca_;
  void* addr_;
  size_t length_;
  fabric::Access access_;
  uint32_t key_;
};

class SimCompletionQueue final : public fabric::CompletionQueue {
 public:
  SimCompletionQueue(SimDevice& device, uint32_t capacity) : device_(device), capacity_(capacity) {}
  size_t poll(std::span<fabric::WorkCompletion> out) override;
  uint32_t capacity() const noexcept override { return capacity_; }

  /// Adds a completion (called by the device at the simulated time it happens).
  void push(const fabric::WorkCompletion& wc);
  bool empty() const noexcept { return entries_.empty(); }
  /// Completions lost because the CQ was full (a real HCA raises a CQ overrun error).
  uint64_t overruns() const noexcept { return overruns_; }

 private:
  SimDevice& device_;
  uint32_t capacity_;
  std::deque<fabric::WorkCompletion> entries_;
  uint64_t overruns_ = 0;
};

/// A posted receive: the SGE list is copied at post time, as the HCA does.
struct RecvEntry {
  uint64_t wr_id = 0;
  std::vector<fabric::Sge> sges;
};

/// FIFO of posted receives that stays small for idle queues (a UD QP per host at 4096
/// hosts must cost well under 1 KB of simulator memory).
class RecvQueue {
 public:
  bool empty() const noexcept { return head_ == entries_.size(); }
  size_t size() const noexcept { return entries_.size() - head_; }
  void push(RecvEntry e) { entries_.push_back(std::move(e)); }
  RecvEntry pop();
  template <typename F>
  void drain(F&& f) {
    while (!empty()) f(pop());
  }

 private:
  std::vector<RecvEntry> entries_;
  size_t head_ = 0;
};

class SimSharedReceiveQueue final : public fabric::SharedReceiveQueue {
 public:
  SimSharedReceiveQueue(uint32_t capacity, uint32_t max_sge) : capacity_(capacity), max_sge_(max_sge) {}
  fabric::Status post_recv(const fabric::RecvWr& wr) override;
  uint32_t capacity() const noexcept override { return capacity_; }
  RecvQueue& queue() noexcept { return queue_; }

 private:
  uint32_t capacity_;
  uint32_t max_sge_;
  RecvQueue queue_;
};

class SimAddressHandle final : public fabric::AddressHandle {
 public:
  SimAddressHandle(uint32_t host, uint32_t qpn, uint32_t qkey) : host_(host), qpn_(qpn), qkey_(qkey) {}
  uint32_t remote_qp_num() const noexcept override { return qpn_; }
  uint32_t host() const noexcept { return host_; }
  uint32_t qkey() const noexcept { return qkey_; }

 private:
  uint32_t host_;
  uint32_t qpn_;
  uint32_t qkey_;
};

}  // namespace twinfab::sim
