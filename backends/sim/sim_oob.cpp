#include "backends/sim/sim_oob.hpp"

#include <fmt/format.h>

#include <algorithm>

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

std::vector<int> SimOobView::local_ranks() const {
  const unsigned first = host_ * ranks_per_host_;
  const unsigned end = std::min(first + ranks_per_host_, shared_.size());
  std::vector<int> ranks;
  ranks.reserve(end > first ? end - first : 0);
  for (unsigned r = first; r < end; ++r) ranks.push_back(static_cast<int>(r));
  return ranks;
}

}  // namespace twinfab::sim
