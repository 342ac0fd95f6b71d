#include "mpi/core/node_map.hpp"

#include <algorithm>
#include <unordered_map>

namespace twinfab::mpi {

int NodeMap::representative_index(int root) const noexcept {
  if (host_of_rank(root) != my_host) return 0;
  const auto it = std::lower_bound(members.begin(), members.end(), root);
  return static_cast<int>(it - members.begin());
}

std::shared_ptr<const NodeMap> flat_node_map() {
  // Immutable and shared by every flat communicator of every rank: an aliasing
  // pointer to a constant, which owns nothing (so no global state changes).
  static const NodeMap kFlat;
  return std::shared_ptr<const NodeMap>(std::shared_ptr<const NodeMap>(), &kFlat);
}

std::shared_ptr<const NodeMap> make_node_map(std::span<const int> nodes, int my_rank) {
  const int n = static_cast<int>(nodes.size());
  // Hosts numbered in the order of their first (lowest) member: the same on every
  // rank, whatever the launcher's host ids.
  std::unordered_map<int, std::int32_t> index_of;
  std::vector<std::int32_t> host_of(static_cast<std::size_t>(n));
  std::vector<int> leaders;
  for (int r = 0; r < n; ++r) {
    const int node = nodes[static_cast<std::size_t>(r)];
    if (node < 0) return flat_node_map();  // a member whose host is unknown
    const auto [it, added] = index_of.try_emplace(node, static_cast<std::int32_t>(leaders.size()));
    if (added) leaders.push_back(r);
    host_of[static_cast<std::size_t>(r)] = it->second;
  }
  const int hosts = static_cast<int>(leaders.size());
  if (hosts <= 1 || hosts == n) return flat_node_map();
  auto map = std::make_shared<NodeMap>();
  map->hosts = hosts;
  map->hierarchical = true;
  map->my_host = host_of[static_cast<std::size_t>(my_rank)];
  for (int r = 0; r < n; ++r)
    if (host_of[static_cast<std::size_t>(r)] == map->my_host) {
      if (r == my_rank) map->my_index = static_cast<int>(map->members.size());
      map->members.push_back(r);
    }
  map->host_of = std::move(host_of);
  map->leaders = std::move(leaders);
  return map;
}

}  // namespace twinfab::mpi
