#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "mpi/core/communicator.hpp"
#include "mpi/core/context.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

Group::Group(std::vector<int> world_ranks, int my_world_rank)
    : my_world_rank_(my_world_rank), world_ranks_(std::move(world_ranks)) {
  auto it = std::find(world_ranks_.begin(), world_ranks_.end(), my_world_rank);
  if (it != world_ranks_.end()) rank_ = static_cast<int>(it - world_ranks_.begin());
}

GroupPtr Group::with_members(std::vector<int> world_ranks) const {
  return std::make_shared<const Group>(std::move(world_ranks), my_world_rank_);
}

std::vector<bool> Group::marked(std::span<const int> ranks, const char* where) const {
  std::vector<bool> taken(world_ranks_.size(), false);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= size())
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(ranks[{}]={})", where, i, r),
                  fmt::format("invalid rank; the group has {} members", size()));
    if (taken[static_cast<std::size_t>(r)])
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(ranks[{}]={})", where, i, r),
                  "rank listed twice; the ranks must be distinct");
    taken[static_cast<std::size_t>(r)] = true;
  }
  return taken;
}

GroupPtr Group::without(const std::vector<bool>& excluded) const {
  std::vector<int> members;
  for (int r = 0; r < size(); ++r)
    if (!excluded[static_cast<std::size_t>(r)]) members.push_back(world_rank(r));
  return with_members(std::move(members));
}

GroupPtr Group::incl(std::span<const int> ranks) const {
  marked(ranks, "MPI_Group_incl");
  std::vector<int> members;
  members.reserve(ranks.size());
  for (const int r : ranks) members.push_back(world_rank(r));
  return with_members(std::move(members));
}

GroupPtr Group::excl(std::span<const int> ranks) const { return without(marked(ranks, "MPI_Group_excl")); }

std::vector<int> Group::expand_ranges(std::span<const int> triplets, const char* where) const {
  std::vector<int> ranks;
  std::vector<bool> taken(world_ranks_.size(), false);
  for (std::size_t i = 0; i < triplets.size() / 3; ++i) {
    const int first = triplets[3 * i], last = triplets[3 * i + 1], stride = triplets[3 * i + 2];
    const auto bad_rank = [&](int index, int value) {
      return Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(ranges[{}][{}]={})", where, i, index, value),
                   fmt::format("invalid rank; the group has {} members", size()));
    };
    if (first < 0 || first >= size()) throw bad_rank(0, first);
    if (last < 0 || last >= size()) throw bad_rank(1, last);
    if (stride == 0)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(ranges[{}][2]=0)", where, i), "the stride must not be 0");
    if ((stride > 0 && first > last) || (stride < 0 && first < last))
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(ranges[{}]={{{}, {}, {}}})", where, i, first, last, stride),
                  "the stride leads away from last; use a negative stride to count down");
    // 64 bits: first + stride may pass INT_MAX before the loop sees it beyond last.
    for (std::int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (taken[static_cast<std::size_t>(r)])
        throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(ranges[{}])", where, i),
                    fmt::format("rank {} named twice; the ranges must not overlap", r));
      taken[static_cast<std::size_t>(r)] = true;
      ranks.push_back(static_cast<int>(r));
    }
  }
  return ranks;
}

GroupPtr Group::range_incl(std::span<const int> triplets) const {
  std::vector<int> members = expand_ranges(triplets, "MPI_Group_range_incl");
  for (int& m : members) m = world_rank(m);
  return with_members(std::move(members));
}

GroupPtr Group::range_excl(std::span<const int> triplets) const {
  std::vector<bool> excluded(world_ranks_.size(), false);
  for (const int r : expand_ranges(triplets, "MPI_Group_range_excl")) excluded[static_cast<std::size_t>(r)] = true;
  return without(excluded);
}

GroupPtr Group::set_union(const Group& a, const Group& b) {
  std::vector<int> members(a.world_ranks_);
  const std::unordered_set<int> in_a(a.world_ranks_.begin(), a.world_ranks_.end());
  for (const int w : b.world_ranks_)
    if (!in_a.contains(w)) members.push_back(w);
  return a.with_members(std::move(members));
}

GroupPtr Group::intersection(const Group& a, const Group& b) {
  const std::unordered_set<int> in_b(b.world_ranks_.begin(), b.world_ranks_.end());
  std::vector<int> members;
  for (const int w : a.world_ranks_)
    if (in_b.contains(w)) members.push_back(w);
  return a.with_members(std::move(members));
}

GroupPtr Group::difference(const Group& a, const Group& b) {
  const std::unordered_set<int> in_b(b.world_ranks_.begin(), b.world_ranks_.end());
  std::vector<int> members;
  for (const int w : a.world_ranks_)
    if (!in_b.contains(w)) members.push_back(w);
  return a.with_members(std::move(members));
}

Comparison Group::compare(const Group& a, const Group& b) {
  if (a.world_ranks_ == b.world_ranks_) return Comparison::Ident;
  if (a.world_ranks_.size() != b.world_ranks_.size()) return Comparison::Unequal;
  std::vector<int> x = a.world_ranks_, y = b.world_ranks_;
  std::ranges::sort(x);
  std::ranges::sort(y);
  return x == y ? Comparison::Similar : Comparison::Unequal;
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
