// Internal: out-of-band address exchange between simulated ranks — shared memory and a
// SimGrid barrier, taking no simulated time (like a PMIx fence outside the data path).
#pragma once

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "fabric/oob_exchange.hpp"

namespace twinfab::sim {

class SimFabric;
class SimRuntime;

/// The state all ranks of one run share.
class SimOob {
 public:
  /// `fabric`: where the ranks' runtimes are, so that a started barrier can wake those
  /// waiting for it; without one, start_barrier() is not offered.
  explicit SimOob(unsigned size, SimFabric* fabric = nullptr);
  ~SimOob();
  unsigned size() const noexcept { return static_cast<unsigned>(pending_.size()); }

 private:
  friend class SimOobView;
  std::vector<std::vector<std::byte>> pending_;  // written by put, rank-private slots
  std::vector<std::vector<std::byte>> visible_;  // as of the last fence
  simgrid::s4u::BarrierPtr barrier_;
  // Started barriers (start_barrier()): the round in progress, how many ranks started
  // it, and the runtimes of those to wake when the last one does. Actors run one at a
  // time, so no lock.
  SimFabric* fabric_;
  std::uint64_t started_round_ = 0;
  unsigned started_ = 0;
  std::vector<std::shared_ptr<SimRuntime>> started_waiters_;
};

/// One rank's handle.
class SimOobView final : public fabric::OobExchange {
 public:
  /// `host`: the simulated host the rank runs on (its node()); `ranks_per_host`: the
  /// placement's (ranks are placed in blocks: host h holds ranks h * ranks_per_host ..).
  SimOobView(SimOob& shared, unsigned rank, unsigned host, unsigned ranks_per_host = 1)
      : shared_(shared), rank_(rank), host_(host), ranks_per_host_(ranks_per_host) {}
  int rank() const noexcept override { return static_cast<int>(rank_); }
  int size() const noexcept override { return static_cast<int>(shared_.size()); }
  void put(std::span<const std::byte> blob) override;
  void fence() override;
  /// Takes no simulated time, as barrier(): it is done at the date the last rank starts
  /// it, and the others' Runtime::wait() returns then.
  std::unique_ptr<fabric::PendingBarrier> start_barrier() override;
  std::vector<std::byte> get(int rank) const override;
  std::optional<int> node() const noexcept override { return static_cast<int>(host_); }
  std::vector<int> local_ranks() const override;
  bool hosts_shared() const override { return ranks_per_host_ > 1 && shared_.size() > 1; }

 private:
  SimOob& shared_;
  unsigned rank_;
  unsigned host_;
  unsigned ranks_per_host_;
};

}  // namespace twinfab::sim
