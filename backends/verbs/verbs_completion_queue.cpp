#include "backends/verbs/verbs_completion_queue.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <mutex>

#include "backends/verbs/cpu_relax.hpp"
#include "backends/verbs/host_runtime.hpp"
#include "backends/verbs/verbs_async_events.hpp"
#include "backends/verbs/verbs_errno.hpp"
#include "backends/verbs/verbs_work_request.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::verbs {

void VerbsCompletionQueue::SpinLock::lock() noexcept {
  while (locked_.exchange(true, std::memory_order_acquire)) {
    while (locked_.load(std::memory_order_relaxed)) cpu_relax();
  }
}

VerbsCompletionQueue::VerbsCompletionQueue(ibv_context* context, AsyncEvents& events, uint32_t capacity,
                                           uint32_t max_cqe, bool with_channel)
    : events_(events) {
  if (capacity == 0) throw fabric::Error(fabric::Status::InvalidArgument, "create_cq: capacity is 0");
  if (capacity > max_cqe) {
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("create_cq: capacity {} is more than the device's max_cqe {}", capacity, max_cqe));
  }
  // Without a channel (out of file descriptors), waits on this CQ nap instead of
  // sleeping in the kernel: slower to notice a completion, still correct.
  if (with_channel) {
    channel_ = ibv_create_comp_channel(context);
    if (channel_ == nullptr) {
      fabric::log().debug("verbs: {}; waits on this CQ will nap instead of blocking",
                          errno_message("ibv_create_comp_channel", errno));
    } else if (const int flags = fcntl(channel_->fd, F_GETFL);
               flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
      // consume_events() must never block.
      fabric::log().debug(
          "verbs: cannot make a completion channel non-blocking ({}); waits will nap instead of blocking",
          errno_message("fcntl", errno));
      ibv_destroy_comp_channel(channel_);
      channel_ = nullptr;
    }
  }
  // cq_context = this: an IBV_EVENT_CQ_ERR names the ibv_cq, AsyncEvents finds us.
  cq_ = ibv_create_cq(context, static_cast<int>(capacity), this, channel_, 0);
  if (cq_ == nullptr) {
    const int error = errno;
    if (channel_ != nullptr) ibv_destroy_comp_channel(channel_);
    throw_errno(fmt::format("ibv_create_cq({})", capacity), error);
  }
}

VerbsCompletionQueue::~VerbsCompletionQueue() {
  if (int rc = ibv_destroy_cq(cq_); rc != 0) {
    // The ibv_cq stays (EBUSY: a QP still uses it) and its completions go on landing
    // there; an overrun event naming it must not reach this object any more.
    cq_->cq_context = nullptr;
    fabric::log().warn(
        "verbs: {} (a QP still uses this CQ: destroy QPs before their CQs; the CQ is kept until the device "
        "closes and its completions are lost)",
        errno_message("ibv_destroy_cq", rc));
    return;  // the channel stays with it (ibv_destroy_comp_channel would fail, EBUSY)
  }
  if (channel_ != nullptr) {
    if (int rc = ibv_destroy_comp_channel(channel_); rc != 0)
      fabric::log().warn("verbs: {}", errno_message("ibv_destroy_comp_channel", rc));
  }
}

bool VerbsCompletionQueue::arm() noexcept {
  if (channel_ == nullptr) return false;
  if (armed_.exchange(true, std::memory_order_relaxed)) return true;
  // Marked before it is asked: an event that comes at once and is read by another
  // thread must leave the CQ marked unarmed, not be overwritten by this mark.
  if (ibv_req_notify_cq(cq_, 0) != 0) {
    armed_.store(false, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void VerbsCompletionQueue::consume_events() noexcept {
  if (channel_ == nullptr) return;
  ibv_cq* cq = nullptr;
  void* context = nullptr;
  // Each event is acknowledged at once: ibv_destroy_cq waits for every event it
  // reported to be.
  while (ibv_get_cq_event(channel_, &cq, &context) == 0) {
    ibv_ack_cq_events(cq, 1);
    armed_.store(false, std::memory_order_relaxed);
  }
}

uint32_t VerbsCompletionQueue::capacity() const noexcept { return static_cast<uint32_t>(cq_->cqe); }

bool VerbsCompletionQueue::overrun() noexcept {
  try {
    events_.drain();
  } catch (const std::exception& e) {  // a log sink or the mutex failing: report what is known
    fabric::log().debug("verbs: reading asynchronous events failed: {}", e.what());
  }
  return overrun_.load(std::memory_order_relaxed);
}

int VerbsCompletionQueue::poll_device(size_t max) {
  int n = ibv_poll_cq(cq_, static_cast<int>(std::min(max, wcs_.size())), wcs_.data());
  if (n < 0) {
    if (!failure_logged_) {
      fabric::log().error("verbs: ibv_poll_cq failed ({}); the CQ reads as empty", n);
      failure_logged_ = true;
    }
    return 0;
  }
  return n;
}

fabric::WorkCompletion VerbsCompletionQueue::take(size_t i) noexcept {
  const fabric::WorkCompletion out = to_fabric_completion(wcs_[i]);
  // Back to zero for the next poll: providers fill only the fields they know (siw
  // leaves src_qp, slid and wc_flags alone), so stale bytes must not pass for data.
  // Only the entries a poll returned were written, so only those are cleared (a
  // memset of the whole batch on every poll cost more than the poll under TCG).
  wcs_[i] = ibv_wc{};
  return out;
}

size_t VerbsCompletionQueue::poll(std::span<fabric::WorkCompletion> out) {
  if (out.empty()) return 0;
  std::lock_guard lock(lock_);
  size_t done = 0;
  if (stashed_) {
    // The completion a waiter saw: handed out alone, without asking the device again
    // (the caller came here because of it, and another poll is on its critical path;
    // whatever came meanwhile is for the next poll).
    out[0] = stash_;
    stashed_ = false;
    note_device_activity();
    return 1;
  }
  while (done < out.size()) {
    const size_t want = out.size() - done;
    const int n = poll_device(want);
    for (int i = 0; i < n; ++i) out[done++] = take(static_cast<size_t>(i));
    if (static_cast<size_t>(n) < std::min(want, wcs_.size())) break;
  }
  if (done > 0) note_device_activity();
  return done;
}

bool VerbsCompletionQueue::has_completion() {
  std::lock_guard lock(lock_);
  if (stashed_) return true;
  // One entry is enough to answer, and keeps this (spun) check cheap; poll() takes
  // the rest from the device.
  if (poll_device(1) == 0) return false;
  stash_ = take(0);
  stashed_ = true;
  return true;
}

}  // namespace twinfab::verbs
