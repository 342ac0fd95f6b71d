// twinfab MPI core: a communicator as the point-to-point engine sees it.
//
// Only what matching and addressing need: the context id of its point-to-point
// matching space, this rank's rank in it, and the world rank of each member. Groups,
// split/dup and attributes come with a later layer. COMM_WORLD uses context id 0,
// COMM_SELF 2 (the odd ids are kept for the collectives' separate spaces).
#pragma once

#include <cstdint>
#include <vector>

#include "mpi/core/matching.hpp"

namespace twinfab::mpi {

class Communicator {
 public:
  /// `world_ranks[i]` is the world rank of member i; `rank` is this rank's index.
  Communicator(ContextId context_id, int rank, std::vector<int> world_ranks)
      : context_id_(context_id), rank_(rank), world_ranks_(std::move(world_ranks)) {}

  ContextId context_id() const noexcept { return context_id_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return static_cast<int>(world_ranks_.size()); }
  /// The world rank of member `rank` (0 <= rank < size()).
  int world_rank(int rank) const noexcept { return world_ranks_[static_cast<std::size_t>(rank)]; }

 private:
  ContextId context_id_;
  int rank_;
  std::vector<int> world_ranks_;
};

inline constexpr ContextId kWorldContextId = 0;
inline constexpr ContextId kSelfContextId = 2;

}  // namespace twinfab::mpi
