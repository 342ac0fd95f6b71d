// Internal: the simple simulated fabric objects — memory regions, completion queues,
// shared receive queues and address handles.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fabric/address_handle.hpp"
#include "fabric/completion_queue.hpp"
#include "fabric/memory_region.hpp"
#include "fabric/shared_receive_queue.hpp"
#include "backends/sim/ring_queue.hpp"

namespace twinfab::sim {

class SimDevice;
class SimHca;
class SimRuntime;

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

/// How many QPs hold a CQ or SRQ. The contract destroys QPs before their CQs and SRQs
/// (verbs refuses otherwise with EBUSY and keeps the object); when that order is broken
/// the simulator detaches the QPs that still hold it (SimDevice::detach_from_qps)
/// instead of leaving them a dangling pointer.
class QpUsers {
 public:
  void attach() noexcept { ++users_; }
  void detach() noexcept { --users_; }
  uint32_t users() const noexcept { return users_; }

 private:
  uint32_t users_ = 0;
};

class SimCompletionQueue final : public fabric::CompletionQueue, public QpUsers {
 public:
  SimCompletionQueue(SimDevice& device, const SimRuntime& runtime, uint32_t capacity)
      : device_(device), runtime_(runtime), capacity_(capacity), entries_(capacity) {}
  ~SimCompletionQueue() override;
  SimCompletionQueue(const SimCompletionQueue&) = delete;
  SimCompletionQueue& operator=(const SimCompletionQueue&) = delete;
  size_t poll(std::span<fabric::WorkCompletion> out) override;
  uint32_t capacity() const noexcept override { return capacity_; }
  bool overrun() noexcept override { return overruns_ > 0; }

  /// Adds a completion (called by the device at the simulated time it happens). When
  /// the CQ is full the completion is lost and counted, as a real HCA's CQ overrun.
  void push(const fabric::WorkCompletion& wc);
  bool empty() const noexcept { return entries_.empty(); }
  /// Completions lost because the CQ was full.
  uint64_t overruns() const noexcept { return overruns_; }
  SimDevice& device() const noexcept { return device_; }
  /// Its device context's runtime: the only one its completions wake (kept here, in
  /// the line a wait reads anyway, so checking a wait's sources touches no device).
  const SimRuntime& runtime() const noexcept { return runtime_; }

 private:
  SimDevice& device_;
  const SimRuntime& runtime_;
  uint32_t capacity_;
  RingQueue<fabric::WorkCompletion> entries_;
  uint64_t overruns_ = 0;
};

/// A receive's scatter list, copied at post time as the HCA does. Up to two entries
/// (what the MPI channel posts: a head slot and the rest of a packet buffer) are kept
/// in place and longer lists on the heap, so posting a receive allocates nothing;
/// the heap pointer shares the in-place storage (a posted receive is 48 bytes, and an
/// RC connection keeps 33 of them per rank).
class SgeList {
 public:
  SgeList() noexcept : spill_(nullptr) {}
  explicit SgeList(std::span<const fabric::Sge> sges);
  ~SgeList() { release(); }
  SgeList(SgeList&& other) noexcept : spill_(nullptr) { take(other); }
  SgeList& operator=(SgeList&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  SgeList(const SgeList&) = delete;
  SgeList& operator=(const SgeList&) = delete;

  std::span<const fabric::Sge> view() const noexcept {
    return {size_ > kInline ? spill_ : in_place_, size_};
  }

 private:
  static constexpr uint32_t kInline = 2;
  void release() noexcept {
    if (size_ > kInline) delete[] spill_;
    size_ = 0;
  }
  void take(SgeList& other) noexcept;

  uint32_t size_ = 0;
  union {
    fabric::Sge in_place_[kInline];
    fabric::Sge* spill_;
  };
};

/// A posted receive.
struct RecvEntry {
  uint64_t wr_id = 0;
  SgeList sges;
};

/// FIFO of posted receives (see ring_queue.hpp for why a ring).
class RecvQueue {
 public:
  /// `limit`: the most receives the owner admits (max_recv_wr, an SRQ's capacity).
  explicit RecvQueue(size_t limit = 0) : entries_(limit) {}
  bool empty() const noexcept { return entries_.empty(); }
  size_t size() const noexcept { return entries_.size(); }
  void push(RecvEntry e) { entries_.push_back(std::move(e)); }
  RecvEntry pop() { return entries_.pop_front(); }
  template <typename F>
  void drain(F&& f) {
    while (!empty()) f(pop());
  }

 private:
  RingQueue<RecvEntry> entries_;
};

class SimSharedReceiveQueue final : public fabric::SharedReceiveQueue, public QpUsers {
 public:
  SimSharedReceiveQueue(SimDevice& device, uint32_t capacity, uint32_t max_sge)
      : device_(device), capacity_(capacity), max_sge_(max_sge), queue_(capacity) {}
  ~SimSharedReceiveQueue() override;
  SimSharedReceiveQueue(const SimSharedReceiveQueue&) = delete;
  SimSharedReceiveQueue& operator=(const SimSharedReceiveQueue&) = delete;
  fabric::Status post_recv(const fabric::RecvWr& wr) override;
  uint32_t capacity() const noexcept override { return capacity_; }
  const std::string& last_error() const noexcept override { return last_error_; }
  RecvQueue& queue() noexcept { return queue_; }
  SimDevice& device() const noexcept { return device_; }

 private:
  SimDevice& device_;
  uint32_t capacity_;
  uint32_t max_sge_;
  RecvQueue queue_;
  std::string last_error_;
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
