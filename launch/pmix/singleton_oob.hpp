// twinfab launch: the out-of-band exchange of a job of one process.
#pragma once

#include <span>
#include <vector>

#include "fabric/oob_exchange.hpp"

namespace twinfab::launch {

/// The exchange of a job of one process (a "singleton": the program was run directly,
/// without a process manager), as Open MPI and MPICH allow.
class SingletonOobExchange final : public fabric::OobExchange {
 public:
  int rank() const noexcept override { return 0; }
  int size() const noexcept override { return 1; }
  void put(std::span<const std::byte> blob) override { pending_.assign(blob.begin(), blob.end()); }
  void fence() override { visible_ = pending_; }
  /// Throws fabric::Error(InvalidArgument) for any rank but 0.
  std::vector<std::byte> get(int rank) const override;
  /// The one process is the one host.
  std::optional<int> node() const noexcept override { return 0; }
  std::vector<int> local_ranks() const override { return {0}; }
  bool hosts_shared() const override { return false; }

 private:
  std::vector<std::byte> pending_, visible_;
};

}  // namespace twinfab::launch
