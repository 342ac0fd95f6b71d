#include "tools/twinfab/thread_oob.hpp"

#include <fmt/format.h>

#include "fabric/error.hpp"

namespace twinfab::tools {

void ThreadOobGroup::barrier() {
  std::unique_lock lock(mutex_);
  unsigned long gen = generation_;
  if (++arrived_ == size()) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
  } else {
    cv_.wait(lock, [&] { return generation_ != gen; });
  }
}

void ThreadOob::put(std::span<const std::byte> blob) {
  std::lock_guard lock(group_.mutex_);
  group_.pending_[rank_].assign(blob.begin(), blob.end());
}

void ThreadOob::fence() {
  group_.barrier();
  {
    std::lock_guard lock(group_.mutex_);
    group_.visible_[rank_] = group_.pending_[rank_];
  }
  group_.barrier();
}

std::vector<std::byte> ThreadOob::get(int rank) const {
  if (rank < 0 || rank >= group_.size())
    throw fabric::Error(fabric::Status::InvalidArgument, fmt::format("oob get: rank {} outside [0, {})", rank, group_.size()));
  std::lock_guard lock(group_.mutex_);
  return group_.visible_[rank];
}

}  // namespace twinfab::tools
