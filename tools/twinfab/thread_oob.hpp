// Out-of-band exchange between threads of one process: how `twinfab perf` runs both
// sides of a hardware test in one process (two device contexts, like perftest's
// client and server on one host).
#pragma once

#include <condition_variable>
#include <mutex>
#include <vector>

#include "fabric/oob_exchange.hpp"

namespace twinfab::tools {

class ThreadOobGroup {
 public:
  explicit ThreadOobGroup(int size) : pending_(size), visible_(size) {}
  int size() const { return static_cast<int>(pending_.size()); }

 private:
  friend class ThreadOob;
  void barrier();
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  unsigned long generation_ = 0;
  std::vector<std::vector<std::byte>> pending_;
  std::vector<std::vector<std::byte>> visible_;
};

class ThreadOob final : public fabric::OobExchange {
 public:
  ThreadOob(ThreadOobGroup& group, int rank) : group_(group), rank_(rank) {}
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return group_.size(); }
  void put(std::span<const std::byte> blob) override;
  void fence() override;
  std::vector<std::byte> get(int rank) const override;
  /// Threads of one process: one host.
  std::optional<int> node() const noexcept override { return 0; }
  /// Every rank: they share the process's memory.
  std::vector<int> local_ranks() const override {
    std::vector<int> all(static_cast<std::size_t>(group_.size()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    return all;
  }

 private:
  ThreadOobGroup& group_;
  int rank_;
};

}  // namespace twinfab::tools
