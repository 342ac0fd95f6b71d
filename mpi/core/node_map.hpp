// twinfab MPI core: where the members of a communicator run (its node map), for the
// node-aware collectives (mpi/coll/node_aware.cpp; docs/collectives.md, "Node-aware
// collectives").
//
// Built from every member's host id (Context::node(), fabric::OobExchange::node()) in
// comm order, which mpi/coll/node_map.cpp gathers once per communicator. Hosts are
// numbered in the order of their lowest member (their leader), so every rank derives
// the same map, whatever the host ids are. A map is "flat" when nothing node-aware
// applies: one host, one rank per host, or a member whose host is unknown; a flat map
// keeps no table at all, so a communicator of ranks on distinct hosts costs no memory
// per member. Otherwise the map keeps, per rank, the host of each member (4 bytes a
// member, as a derived communicator's member list), the leaders, and this rank's host's
// members.
//
// Immutable once built, and shared (a dup has the same members in the same order).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace twinfab::mpi {

struct NodeMap {
  /// Hosts the communicator spans (0 in a flat map).
  int hosts = 0;
  /// Whether the node-aware algorithms apply: more than one host, and one holds more
  /// than one member. False for a flat map (whose vectors are empty).
  bool hierarchical = false;
  /// For each comm rank, the index of its host (0 .. hosts - 1).
  std::vector<std::int32_t> host_of;
  /// For each host, its lowest comm rank (ascending, since hosts are numbered by it).
  std::vector<int> leaders;
  /// This rank's host's members, comm ranks in ascending order (members[0] is the
  /// leader).
  std::vector<int> members;
  /// This rank's host and its index in `members`.
  int my_host = 0;
  int my_index = 0;

  /// The rank of my host that stands for it in a rooted collective: `root` when root
  /// is on my host, else the leader. As an index in `members`.
  int representative_index(int root) const noexcept;
  /// The host of comm rank `rank`.
  int host_of_rank(int rank) const noexcept { return host_of[static_cast<std::size_t>(rank)]; }
};

/// The map of a communicator whose member r runs on host `nodes[r]` (negative:
/// unknown), seen by member `my_rank`. Pure: the same input gives the same map.
std::shared_ptr<const NodeMap> make_node_map(std::span<const int> nodes, int my_rank);

/// The shared flat map (no hosts shared; no allocation).
std::shared_ptr<const NodeMap> flat_node_map();

}  // namespace twinfab::mpi
