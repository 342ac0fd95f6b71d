#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "mpi/core/communicator.hpp"
#include "mpi/core/context.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

Group::Group(std::vector<int> world_ranks, int my_world_rank)
    : my_world_rank_(my_world_rank), world_ranks_(std::move(world_ranks)) {
  auto it = std::find(world_ranks_.begin(), world_ranks_.end(), my_world_rank);
  if (it != world_ranks_.end()) rank_ = static_cast<int>(it - world_ranks_.begin());
}

GroupPtr Group::incl(std::span<const int> ranks) const {
  std::vector<int> members;
  members.reserve(ranks.size());
  std::vector<bool> taken(world_ranks_.size(), false);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= size())
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("MPI_Group_incl(ranks[{}]={})", i, r),
                  fmt::format("invalid rank; the group has {} members", size()));
    if (taken[static_cast<std::size_t>(r)])
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("MPI_Group_incl(ranks[{}]={})", i, r),
                  "rank listed twice; the ranks must be distinct");
    taken[static_cast<std::size_t>(r)] = true;
    members.push_back(world_rank(r));
  }
  return std::make_shared<const Group>(std::move(members), my_world_rank_);
}

std::vector<int> Group::translate_ranks(const GroupPtr& from, std::span<const int> ranks, const GroupPtr& to) {
  if (!from) throw Error(ErrorClass::MPI_ERR_GROUP, "MPI_Group_translate_ranks(group1)", "group is MPI_GROUP_NULL");
  if (!to) throw Error(ErrorClass::MPI_ERR_GROUP, "MPI_Group_translate_ranks(group2)", "group is MPI_GROUP_NULL");
  // One pass over `to` instead of a search per rank: translations of whole groups
  // are common (a collective's tree mapped onto world ranks).
  std::unordered_map<int, int> in_to;
  for (int i = 0; i < to->size(); ++i) in_to.emplace(to->world_rank(i), i);
  std::vector<int> out;
  out.reserve(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r == kProcNull) {
      out.push_back(kProcNull);
      continue;
    }
    if (r < 0 || r >= from->size())
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("MPI_Group_translate_ranks(ranks1[{}]={})", i, r),
                  fmt::format("invalid rank; group1 has {} members", from->size()));
    auto it = in_to.find(from->world_rank(r));
    out.push_back(it == in_to.end() ? kUndefined : it->second);
  }
  return out;
}

void group_free(GroupPtr& group) {
  if (!group) throw Error(ErrorClass::MPI_ERR_GROUP, "MPI_Group_free(group)", "group is MPI_GROUP_NULL");
  group.reset();
}

}  // namespace twinfab::mpi
