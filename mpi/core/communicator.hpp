// twinfab MPI core: communicators and groups.
//
// A Communicator is what matching and addressing need: the context id of its
// point-to-point matching space, this rank's rank in it, and the world rank of each
// member. Every communicator owns two matching spaces: `context_id()` (even) for the
// user's point-to-point traffic and `collective_context_id()` (the odd id after it)
// for the collectives in mpi/coll, so a collective's messages can never match a user
// receive, whatever tags either side uses. COMM_WORLD uses ids 0/1, COMM_SELF 2/3;
// derived communicators get ids agreed collectively (Context::comm_dup/comm_split).
// A communicator may carry a topology (topology.hpp: Cartesian, graph or distributed
// graph), shared with its dups.
//
// An intercommunicator (MPI-3.1 §6.6: MPI_Intercomm_create, MPI_Intercomm_merge's
// input) joins two disjoint groups. Its rank() and size() are the local group's, but
// the ranks point-to-point names are the remote group's: world_rank(r) is member r of
// the remote group and peer_count() its size, so sends, receives and the collectives'
// remote steps address the other group through the same code as an intracommunicator.
// A message's source rank is its sender's rank in its own group, which is what the
// receiver's status must show. The collectives also need the local group alone: an
// intercommunicator has a local intracommunicator (its ids are the two after the
// intercommunicator's), made and freed with it (Context::intercomm_create).
//
// A Group is an ordered set of world ranks (MPI_Group). Like datatypes, groups are
// shared handles (GroupPtr): immutable once built, freed by dropping the handle
// (group_free). Communicators are owned by their rank's Context; see context.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "mpi/core/matching.hpp"
#include "mpi/core/node_map.hpp"
#include "mpi/core/topology.hpp"

namespace twinfab::mpi {

/// MPI_UNDEFINED (MPICH's value): the color that asks Comm_split for no communicator,
/// and the rank of a process that is not in a group.
inline constexpr int kUndefined = -32766;
/// MPI_PROC_NULL (MPICH's value): sends and receives to it complete at once; what
/// MPI_Cart_shift gives off the border of a non-periodic dimension.
inline constexpr int kProcNull = -1;
/// MPI_ROOT (MPICH's value): what the root of a rooted collective on an
/// intercommunicator passes as `root` (the rest of its group pass kProcNull).
inline constexpr int kRoot = -3;
/// MPI_COMM_TYPE_SHARED (MPICH's value): the split type of MPI_Comm_split_type that
/// groups the ranks sharing a host.
inline constexpr int kCommTypeShared = 1;

class Communicator {
 public:
  /// `world_ranks[i]` is the world rank of member i; `rank` is this rank's index.
  /// `context_id` must be even: the odd id after it is the collective space.
  Communicator(ContextId context_id, int rank, std::vector<int> world_ranks)
      : context_id_(context_id), rank_(rank), size_(static_cast<int>(world_ranks.size())), peer_count_(size_),
        world_ranks_(std::move(world_ranks)) {}
  /// An intercommunicator between the local group (this rank is member `rank` of it)
  /// and the remote group, given by world ranks; `local_comm` is the intracommunicator
  /// of the local group (owned by the same Context).
  static Communicator inter(ContextId context_id, int rank, const Communicator& local_comm,
                            std::vector<int> remote_world_ranks) {
    Communicator c(context_id, rank, std::move(remote_world_ranks));
    c.size_ = local_comm.size();
    c.local_comm_ = &local_comm;
    return c;
  }
  /// COMM_WORLD's shape: member i is world rank i. Keeps no table, so that a rank of
  /// a 4096-rank simulation does not carry 16 KB for an identity map.
  static Communicator identity(ContextId context_id, int rank, int size) {
    Communicator c(context_id, rank, {});
    c.size_ = size;
    c.peer_count_ = size;
    c.identity_ = true;
    return c;
  }

  /// The point-to-point matching space.
  ContextId context_id() const noexcept { return context_id_; }
  /// The matching space of the collectives (mpi/coll), never used by user messages.
  ContextId collective_context_id() const noexcept { return context_id_ + 1; }
  /// This rank's rank in its (local) group: MPI_Comm_rank.
  int rank() const noexcept { return rank_; }
  /// The size of the (local) group: MPI_Comm_size.
  int size() const noexcept { return size_; }
  /// How many ranks point-to-point can name: size() for an intracommunicator, the
  /// remote group's size (MPI_Comm_remote_size) for an intercommunicator.
  int peer_count() const noexcept { return peer_count_; }
  /// The world rank of the process point-to-point rank `rank` names (0 <= rank <
  /// peer_count()): member `rank` of the group, or of the remote group for an
  /// intercommunicator.
  int world_rank(int rank) const noexcept {
    return identity_ ? rank : world_ranks_[static_cast<std::size_t>(rank)];
  }
  /// The (local) group's world ranks, in member order (built on the spot for
  /// COMM_WORLD).
  std::vector<int> world_ranks() const;
  /// Whether this is an intercommunicator (MPI_Comm_test_inter).
  bool is_inter() const noexcept { return local_comm_ != nullptr; }
  /// An intercommunicator's local intracommunicator (null for an intracommunicator):
  /// the local group, with matching spaces of its own.
  const Communicator* local_comm() const noexcept { return local_comm_; }
  /// Set by Context::comm_free. The object itself stays alive until its Context ends,
  /// so a stale reference reads this flag (MPI_ERR_COMM) instead of freed memory; what
  /// it holds per member goes with release_members().
  bool freed() const noexcept { return freed_; }
  void mark_freed() noexcept { freed_ = true; }
  /// Collective schedules on this communicator (coll::Schedule counts itself in and
  /// out): a nonblocking collective may still run after MPI_Comm_free (MPI-3.1 §6.4.3),
  /// and it needs the member list.
  void add_schedule() const noexcept { ++schedules_; }
  void drop_schedule() const noexcept { --schedules_; }
  bool has_schedules() const noexcept { return schedules_ > 0; }
  /// For a freed communicator that no schedule uses (Context::comm_free): drops the
  /// member list and the topology, so that what a program creates and frees in a loop
  /// keeps a few dozen bytes each instead of 4 per member (a split of a 4096-rank
  /// world kept 16 KB). Every use goes through a liveness check first, which a freed
  /// communicator fails.
  void release_members() noexcept {
    std::vector<int>().swap(world_ranks_);
    topology_.reset();
    node_map_.reset();
  }

  /// Where the members run (node_map.hpp), or null while nobody has asked: computed
  /// by the first blocking collective that may run a node-aware algorithm
  /// (mpi/coll/node_map.cpp) and kept, shared with dups. A persistent collective sees
  /// the map as it was at its init call (pin_node_map), so that members that
  /// start it at different points still choose alike.
  const NodeMap* node_map() const noexcept {
    if (pinned_node_map_) return pinned_node_map_->get();
    return node_map_.get();
  }
  const std::shared_ptr<const NodeMap>& shared_node_map() const noexcept {
    return pinned_node_map_ ? *pinned_node_map_ : node_map_;
  }
  void set_node_map(std::shared_ptr<const NodeMap> map) const noexcept { node_map_ = std::move(map); }
  /// Makes node_map() answer `map` (null: unknown) until unpin_node_map(): what a
  /// persistent collective's MPI_Start does with the map its init call saw.
  void pin_node_map(std::shared_ptr<const NodeMap> map) const noexcept { pinned_node_map_ = std::move(map); }
  void unpin_node_map() const noexcept { pinned_node_map_.reset(); }

  /// The topology (MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create,
  /// MPI_Dist_graph_create*, kept by MPI_Comm_dup), or null (MPI_Topo_test's
  /// MPI_UNDEFINED). A grid's or graph's size is the communicator's.
  const Topology* topology() const noexcept { return topology_.get(); }
  const std::shared_ptr<const Topology>& shared_topology() const noexcept { return topology_; }
  void set_topology(std::shared_ptr<const Topology> topology) noexcept { topology_ = std::move(topology); }
  /// The topology of one kind, or null when the communicator has none of that kind.
  const CartTopology* cart() const noexcept { return topology_ ? topology_->cart() : nullptr; }
  const GraphTopology* graph() const noexcept { return topology_ ? topology_->graph() : nullptr; }
  const DistGraphTopology* dist_graph() const noexcept { return topology_ ? topology_->dist_graph() : nullptr; }

  /// The sequence number of this rank's next nonblocking collective on the
  /// communicator, then counts it. Every member starts its nonblocking collectives in
  /// the same order (MPI requires it), so the n-th one has the same number on every
  /// rank: mpi/coll puts it in the tags, which keeps concurrent ones apart.
  std::uint32_t next_nonblocking_sequence() const noexcept {
    if (reused_sequence_) {
      const std::uint32_t sequence = *reused_sequence_;
      reused_sequence_.reset();
      return sequence;
    }
    return nonblocking_sequence_++;
  }
  /// Makes the next next_nonblocking_sequence() give `sequence` (and not count): what a
  /// persistent collective's MPI_Start does, whose number was taken by its init call,
  /// since MPI-4.0 lets members start persistent collectives in any order (they match
  /// by init order). clear_reused_sequence() drops it if no collective took it.
  void reuse_sequence_once(std::uint32_t sequence) const noexcept { reused_sequence_ = sequence; }
  void clear_reused_sequence() const noexcept { reused_sequence_.reset(); }

 private:
  ContextId context_id_;
  int rank_;
  int size_;
  int peer_count_;
  std::vector<int> world_ranks_;  ///< empty when identity_; the remote group's for an intercommunicator
  const Communicator* local_comm_ = nullptr;  ///< set for an intercommunicator only
  bool identity_ = false;
  bool freed_ = false;
  /// Per-rank bookkeeping, not part of the communicator's identity: mutable, so that
  /// the collectives can take the communicator by const reference as everywhere.
  mutable std::uint32_t nonblocking_sequence_ = 0;
  mutable std::optional<std::uint32_t> reused_sequence_;
  mutable int schedules_ = 0;                 ///< see add_schedule
  mutable std::shared_ptr<const NodeMap> node_map_;  ///< null until computed (node_map())
  mutable std::optional<std::shared_ptr<const NodeMap>> pinned_node_map_;  ///< see pin_node_map
  std::shared_ptr<const Topology> topology_;  ///< null unless a topology call made it
};

inline constexpr ContextId kWorldContextId = 0;
inline constexpr ContextId kSelfContextId = 2;
/// The first id a derived communicator can get (ids are allocated in steps of 2).
inline constexpr ContextId kFirstDerivedContextId = 4;
/// The first context id of MPI_Comm_idup's space (Context::comm_idup); the blocking
/// constructors' ids stay below it.
inline constexpr ContextId kFirstIdupContextId = ContextId{1} << 30;

class Group;
/// A group handle (MPI_Group). Copies share the group.
using GroupPtr = std::shared_ptr<const Group>;

/// The results of MPI_Group_compare and MPI_Comm_compare (MPI_IDENT ... MPI_UNEQUAL,
/// MPICH's values).
enum class Comparison : int { Ident = 0, Congruent = 1, Similar = 2, Unequal = 3 };

/// An ordered set of processes, named by world rank (MPI_Group).
class Group {
 public:
  /// `world_ranks[i]` is the world rank of member i; `my_world_rank` is the caller's.
  Group(std::vector<int> world_ranks, int my_world_rank);

  int size() const noexcept { return static_cast<int>(world_ranks_.size()); }
  /// The caller's rank in the group, or kUndefined when it is not a member.
  int rank() const noexcept { return rank_; }
  int world_rank(int rank) const noexcept { return world_ranks_[static_cast<std::size_t>(rank)]; }
  std::span<const int> world_ranks() const noexcept { return world_ranks_; }

  /// MPI_Group_incl: the members `ranks` (distinct, in [0, size())) in that order.
  /// Throws MPI_ERR_RANK naming the offending entry.
  GroupPtr incl(std::span<const int> ranks) const;
  /// MPI_Group_excl: the members not in `ranks` (distinct, in [0, size())), in group
  /// order. Throws MPI_ERR_RANK naming the offending entry.
  GroupPtr excl(std::span<const int> ranks) const;
  /// MPI_Group_range_incl / MPI_Group_range_excl: `triplets` holds n (first, last,
  /// stride) triplets, each naming first, first + stride, ... up to last. first and last
  /// must be ranks of the group (MPI_ERR_RANK), stride nonzero and pointing from first
  /// to last (MPI_ERR_ARG), and no rank named twice (MPI_ERR_RANK).
  GroupPtr range_incl(std::span<const int> triplets) const;
  GroupPtr range_excl(std::span<const int> triplets) const;

  /// MPI_Group_union: a's members, then b's that are not in a, each in its order.
  static GroupPtr set_union(const Group& a, const Group& b);
  /// MPI_Group_intersection: a's members that are in b, in a's order.
  static GroupPtr intersection(const Group& a, const Group& b);
  /// MPI_Group_difference: a's members that are not in b, in a's order.
  static GroupPtr difference(const Group& a, const Group& b);
  /// MPI_Group_compare: Ident (same members, same order), Similar (same members),
  /// or Unequal.
  static Comparison compare(const Group& a, const Group& b);

  /// MPI_Group_translate_ranks: for each rank of `from`, its rank in `to`, kUndefined
  /// when it is not there (kProcNull stays kProcNull). Throws MPI_ERR_GROUP for a null
  /// group, MPI_ERR_RANK for a rank outside `from`.
  static std::vector<int> translate_ranks(const GroupPtr& from, std::span<const int> ranks, const GroupPtr& to);

 private:
  /// A group of the same caller with these members.
  GroupPtr with_members(std::vector<int> world_ranks) const;
  /// For each rank of the group, whether `ranks` names it; throws MPI_ERR_RANK
  /// "<where>(ranks[i]=r)" for a rank outside the group or named twice.
  std::vector<bool> marked(std::span<const int> ranks, const char* where) const;
  /// The ranks `triplets` name, in order, checked as range_incl says.
  std::vector<int> expand_ranges(std::span<const int> triplets, const char* where) const;
  /// The members whose entry of `excluded` is false, in group order.
  GroupPtr without(const std::vector<bool>& excluded) const;

  int my_world_rank_;
  int rank_ = kUndefined;
  std::vector<int> world_ranks_;
};

/// MPI_Group_free: releases the handle and sets it to null (MPI_GROUP_NULL). The
/// group itself lives on while other handles (or communicators) use it. Throws
/// MPI_ERR_GROUP for a null handle.
void group_free(GroupPtr& group);

}  // namespace twinfab::mpi
