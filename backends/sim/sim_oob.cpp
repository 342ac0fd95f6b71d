#include "backends/sim/sim_oob.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "backends/sim/sim_fabric.hpp"
#include "backends/sim/sim_runtime.hpp"
#include "fabric/error.hpp"

namespace twinfab::sim {

namespace {

class SimPendingBarrier final : public fabric::PendingBarrier {
 public:
  SimPendingBarrier(const std::uint64_t& current_round, std::uint64_t round)
      : current_round_(current_round), round_(round) {}
  bool done() const override { return current_round_ > round_; }

 private:
  const std::uint64_t& current_round_;
  const std::uint64_t round_;
};

}  // namespace

SimOob::SimOob(unsigned size, SimFabric* fabric)
    : pending_(size), visible_(size), barrier_(simgrid::s4u::Barrier::create(size)), fabric_(fabric) {}

SimOob::~SimOob() = default;

void SimOobView::put(std::span<const std::byte> blob) { shared_.pending_[rank_].assign(blob.begin(), blob.end()); }

void SimOobView::fence() {
  // Two phases: everyone has put; each publishes its own slot; everyone may read.
  shared_.barrier_->wait();
  shared_.visible_[rank_] = shared_.pending_[rank_];
  shared_.barrier_->wait();
}

std::unique_ptr<fabric::PendingBarrier> SimOobView::start_barrier() {
  if (shared_.fabric_ == nullptr) return nullptr;
  const std::uint64_t round = shared_.started_round_;
  if (++shared_.started_ < shared_.size()) {
    shared_.started_waiters_.push_back(shared_.fabric_->shared_runtime_of_self());
  } else {
    shared_.started_ = 0;
    ++shared_.started_round_;
    // Woken now, at this date: as the last rank reaching an s4u barrier releases the
    // others (notify_memory() schedules the wake-up from maestro).
    for (const std::shared_ptr<SimRuntime>& runtime : shared_.started_waiters_) runtime->notify_memory();
    shared_.started_waiters_.clear();
    shared_.started_waiters_.shrink_to_fit();
  }
  return std::make_unique<SimPendingBarrier>(shared_.started_round_, round);
}

std::vector<std::byte> SimOobView::get(int rank) const {
  if (rank < 0 || static_cast<unsigned>(rank) >= shared_.size())
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("oob get: rank {} outside [0, {})", rank, shared_.size()));
  return shared_.visible_[static_cast<unsigned>(rank)];
}

std::vector<int> SimOobView::local_ranks() const {
  const unsigned first = host_ * ranks_per_host_;
  const unsigned end = std::min(first + ranks_per_host_, shared_.size());
  std::vector<int> ranks;
  ranks.reserve(end > first ? end - first : 0);
  for (unsigned r = first; r < end; ++r) ranks.push_back(static_cast<int>(r));
  return ranks;
}

}  // namespace twinfab::sim
