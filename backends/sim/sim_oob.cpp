#include "backends/sim/sim_oob.hpp"

#include <fmt/format.h>

#include "fabric/error.hpp"

namespace twinfab::sim {

SimOob::SimOob(unsigned size)
    : pending_(size), visible_(size), barrier_(simgrid::s4u::Barrier::create(size)) {}

void SimOobView::put(std::span<const std::byte> blob) { shared_.pending_[rank_].assign(blob.begin(), blob.end()); }

void SimOobView::fence() {
  // Two phases: everyone has put; each publishes its own slot; everyone may read.
  shared_.barrier_->wait();
  shared_.visible_[rank_] = shared_.pending_[rank_];
  shared_.barrier_->wait();
}

std::vector<std::byte> SimOobView::get(int rank) const {
  if (rank < 0 || static_cast<unsigned>(rank) >= shared_.size())
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("oob get: rank {} outside [0, {})", rank, shared_.size()));
  return shared_.visible_[static_cast<unsigned>(rank)];
}

}  // namespace twinfab::sim
