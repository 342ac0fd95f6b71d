// Internal: a completion queue over ibv_cq.
//
// Runtime::wait must tell whether a CQ has a completion without consuming it, and
// verbs has no "peek". So wait() moves one completion from the device into a stash
// inside this object, and poll() hands out the stash before asking the device again,
// which keeps completions oldest first.
//
// poll() and has_completion() are the data path, spun on by waiting threads: a
// spin lock (one atomic exchange; the critical section is one ibv_poll_cq) orders
// them against each other, and the stash holds at most one entry (has_completion
// only fills an empty stash), so neither allocates.
//
// Each CQ has a completion channel of its own (when the kernel gives one), so that a
// thread can sleep in the kernel until the CQ's next completion instead of polling:
// Runtime::wait_for_event (an event-driven helper thread), and with blocking waits
// (TWINFAB_BLOCKING_WAIT) a wait_for_completion() that has waited long (MVAPICH2's
// blocking mode). The CQ is armed (ibv_req_notify_cq) only by such a waiter, so a
// spinning wait costs nothing more. A channel per CQ rather than per device: a thread only ever reads the
// events of the CQs it waits on, so it cannot take the event that would have woken another thread.
#pragma once

#include <infiniband/verbs.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <span>

#include "fabric/completion_queue.hpp"

namespace twinfab::verbs {

class AsyncEvents;

class VerbsCompletionQueue final : public fabric::CompletionQueue {
 public:
  /// Throws fabric::Error(InvalidArgument) for 0 or more than `max_cqe` entries.
  /// `events` are the context's asynchronous events, where an overrun is reported.
  /// `with_channel`: give the CQ a completion channel, for waits that sleep until a
  /// completion (HostRuntime); one file descriptor more.
  VerbsCompletionQueue(ibv_context* context, AsyncEvents& events, uint32_t capacity, uint32_t max_cqe,
                       bool with_channel);
  ~VerbsCompletionQueue() override;
  VerbsCompletionQueue(const VerbsCompletionQueue&) = delete;
  VerbsCompletionQueue& operator=(const VerbsCompletionQueue&) = delete;

  size_t poll(std::span<fabric::WorkCompletion> out) override;
  /// Entries the device allocated (at least what was asked for).
  uint32_t capacity() const noexcept override;
  /// Reads the context's asynchronous events first (AsyncEvents::drain).
  bool overrun() noexcept override;
  /// The device reported IBV_EVENT_CQ_ERR for this CQ (called by AsyncEvents).
  void note_overrun() noexcept { overrun_.store(true, std::memory_order_relaxed); }
  bool noted_overrun() const noexcept { return overrun_.load(std::memory_order_relaxed); }

  /// For Runtime::wait: true when a completion is ready; it stays for poll().
  bool has_completion();
  ibv_cq* handle() const noexcept { return cq_; }

  /// The completion channel's file descriptor (readable once an armed CQ got a
  /// completion), or -1 when this CQ has no channel (the kernel refused one).
  int event_fd() const noexcept { return channel_ != nullptr ? channel_->fd : -1; }
  /// Asks for an event at the next completion (ibv_req_notify_cq), unless one is
  /// already asked for. A completion that came before is not announced: check
  /// has_completion() after arming, before sleeping. False when there is no channel
  /// or the device refused.
  bool arm() noexcept;
  /// Reads (and acknowledges) the events waiting in the channel; the CQ must be
  /// armed again for the next one. Never blocks.
  void consume_events() noexcept;

 private:
  /// ibv_poll_cq of at most `max` entries into wcs_; a provider failure is logged
  /// once and reads as empty.
  int poll_device(size_t max);
  /// wcs_[i] as a contract completion; clears the entry for the next poll.
  fabric::WorkCompletion take(size_t i) noexcept;

  /// Guards stash_ and orders device polls against it. Uncontended in the common
  /// case (one polling thread); waiters spin briefly otherwise.
  class SpinLock {
   public:
    void lock() noexcept;
    void unlock() noexcept { locked_.store(false, std::memory_order_release); }

   private:
    std::atomic<bool> locked_{false};
  };

  ibv_comp_channel* channel_ = nullptr;  // null: no blocking waits on this CQ
  ibv_cq* cq_ = nullptr;
  AsyncEvents& events_;
  std::atomic<bool> armed_{false};  // an event was asked for and not read yet
  std::atomic<bool> overrun_{false};
  SpinLock lock_;
  // What the device writes a poll into; all zero between polls (see take()).
  std::array<ibv_wc, 16> wcs_{};
  bool stashed_ = false;  // stash_ holds a completion taken from the device by has_completion()
  fabric::WorkCompletion stash_{};
  bool failure_logged_ = false;
};

}  // namespace twinfab::verbs
