#include "backends/sim/sim_objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "backends/sim/sim_device.hpp"
#include "backends/sim/sim_runtime.hpp"
#include "fabric/log.hpp"

namespace twinfab::sim {

SimMemoryRegion::SimMemoryRegion(SimDevice& owner, SimHca& hca, void* addr, size_t length, fabric::Access access)
    : owner_(&owner), hca_(hca), addr_(addr), length_(length), access_(access), key_(hca.add_mr(this)) {}

SimMemoryRegion::~SimMemoryRegion() { hca_.remove_mr(key_); }

size_t SimCompletionQueue::poll(std::span<fabric::WorkCompletion> out) {
  SimRuntime& rt = device_.sim_runtime();
  rt.run_due_timers();
  size_t n = std::min(out.size(), entries_.size());
  for (size_t i = 0; i < n; ++i) {
    out[i] = entries_.pop_front();
  }
  if (n == 0)
    rt.note_empty_poll();
  else
    rt.note_progress();
  return n;
}

SimCompletionQueue::~SimCompletionQueue() {
  if (users() > 0) device_.detach_from_qps(this, nullptr);
}

void SimCompletionQueue::push(const fabric::WorkCompletion& wc) {
  if (entries_.size() >= capacity_) {
    if (overruns_++ == 0)
      fabric::log().warn(
          "sim: {}: a completion queue of {} entries overran; completion of wr_id {} ({}) and every later one "
          "that finds it full are lost (size the CQ for every completion pending before a poll)",
          device_.name(), capacity_, wc.wr_id, fabric::to_string(wc.opcode));
    return;
  }
  entries_.push_back(wc);
}

// memcpy rather than assignment into the union's array: it starts the lifetime of the
// Sge objects there (they are implicit-lifetime types) whichever member was active.
SgeList::SgeList(std::span<const fabric::Sge> sges) : size_(static_cast<uint32_t>(sges.size())), spill_(nullptr) {
  if (size_ > kInline) {
    spill_ = new fabric::Sge[size_];
    std::copy(sges.begin(), sges.end(), spill_);
  } else if (size_ > 0) {
    std::memcpy(static_cast<void*>(in_place_), sges.data(), size_ * sizeof(fabric::Sge));
  }
}

void SgeList::take(SgeList& other) noexcept {
  size_ = other.size_;
  if (size_ > kInline) {
    spill_ = other.spill_;
  } else if (size_ > 0) {
    std::memcpy(static_cast<void*>(in_place_), other.in_place_, size_ * sizeof(fabric::Sge));
  }
  other.size_ = 0;
}

SimSharedReceiveQueue::~SimSharedReceiveQueue() {
  if (users() > 0) device_.detach_from_qps(nullptr, this);
}

fabric::Status SimSharedReceiveQueue::post_recv(const fabric::RecvWr& wr) {
  if (wr.sg_list.size() > max_sge_) {
    last_error_ = fmt::format("post_recv: {} SGEs exceed the SRQ's max_sge of {}", wr.sg_list.size(), max_sge_);
    return fabric::Status::InvalidArgument;
  }
  if (queue_.size() >= capacity_) {
    last_error_ = fmt::format("post_recv: the SRQ is full ({} receives posted); post again after some are consumed",
                              capacity_);
    return fabric::Status::NoResource;
  }
  queue_.push(RecvEntry{wr.wr_id, SgeList(wr.sg_list)});
  return fabric::Status::Ok;
}

}  // namespace twinfab::sim
