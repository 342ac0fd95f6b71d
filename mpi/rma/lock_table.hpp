// twinfab MPI one-sided: the reader-writer lock a target's lock agent keeps for one
// window (the dedicated-thread and event-driven designs, seed 001 §4.2).
//
// Requests are granted in arrival order: a shared request joins the shared holders when
// no exclusive holder is in and nobody waits before it; an exclusive request waits for
// the lock to be free. A release grants the waiting requests at the head of the queue
// that became grantable (one exclusive, or a run of shared ones). Pure logic, no
// locking of its own: the lock service calls it under its mutex (lock_service.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <stdexcept>
#include <vector>

#include "mpi/rma/lock_type.hpp"

namespace twinfab::mpi::rma {

class LockTable {
 public:
  /// A request that became granted: who asked, and the sequence number it asked with.
  struct Grant {
    int origin = 0;
    std::uint64_t sequence = 0;
  };

  /// `origin` asks for the lock; appends to `granted` what became granted (this request,
  /// when it can be granted at once). std::logic_error when `origin` holds or waits for
  /// it already (one lock per origin and window: the engine checks this before).
  void request(int origin, LockType type, std::uint64_t sequence, std::vector<Grant>& granted) {
    if (holds(origin) || waits(origin)) throw std::logic_error("lock requested twice by one origin");
    waiting_.push_back(Waiting{origin, type, sequence});
    grant(granted);
  }

  /// `origin` releases the lock it holds; appends the requests that became granted.
  /// std::logic_error when it holds none.
  void release(int origin, std::vector<Grant>& granted) {
    if (exclusive_ == origin) {
      exclusive_ = -1;
    } else if (shared_.erase(origin) == 0) {
      throw std::logic_error("lock released by an origin that holds none");
    }
    grant(granted);
  }

  /// An origin that can no longer release (its connection failed): drops what it
  /// holds or waits for, and grants what that frees.
  void forget(int origin, std::vector<Grant>& granted) {
    if (exclusive_ == origin) exclusive_ = -1;
    shared_.erase(origin);
    std::erase_if(waiting_, [origin](const Waiting& w) { return w.origin == origin; });
    grant(granted);
  }

  bool holds(int origin) const { return exclusive_ == origin || shared_.count(origin) != 0; }
  bool free() const { return exclusive_ < 0 && shared_.empty(); }
  std::size_t waiting() const { return waiting_.size(); }

 private:
  struct Waiting {
    int origin;
    LockType type;
    std::uint64_t sequence;
  };

  bool waits(int origin) const {
    for (const Waiting& w : waiting_)
      if (w.origin == origin) return true;
    return false;
  }

  void grant(std::vector<Grant>& granted) {
    while (!waiting_.empty()) {
      const Waiting& next = waiting_.front();
      const bool ok = next.type == LockType::Exclusive ? free() : exclusive_ < 0;
      if (!ok) break;
      if (next.type == LockType::Exclusive)
        exclusive_ = next.origin;
      else
        shared_.insert(next.origin);
      granted.push_back(Grant{next.origin, next.sequence});
      waiting_.pop_front();
    }
  }

  std::deque<Waiting> waiting_;
  std::set<int> shared_;
  int exclusive_ = -1;
};

}  // namespace twinfab::mpi::rma
