// Communicator construction: MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create,
// MPI_Comm_create_group, MPI_Comm_create_from_group, MPI_Comm_split_type, MPI_Cart_create, MPI_Cart_sub,
// MPI_Graph_create, MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create,
// MPI_Comm_free, MPI_Comm_group. Every constructor but dup, create_group and the
// distributed graphs is a split (one allgather of color, key and next free id); a
// distributed graph keeps its parent's group and order, so it is a dup.
//
// Context ids. Each rank keeps the smallest even id it has not used
// (next_context_id_). A new communicator takes the max of that over the parent's
// members, found in the same collective that builds it (an allreduce for dup, the
// allgather of (color, key) for split): the result is unused on every member, so the
// new communicator's traffic cannot match any other communicator's on any of them.
// Every member of the parent advances past it, even one that gets no communicator,
// which keeps later agreements monotone. MPI_Comm_create_group and
// MPI_Comm_create_from_group are the exception: only the group's members take part, and the max over them is unused on each of them,
// which is all an id needs (a later agreement's max covers every member's counter). This is MPICH's context-id mask reduced to
// one counter: ids are never reused, so a freed communicator's late messages can
// never match a new one (2^31 communicators per rank are enough here).
//
// This file sits in core but calls mpi/coll: agreeing on an id is a collective, as
// it is in MPICH (MPIR_Get_contextid_sparse uses MPIR_Allreduce).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "mpi/coll/schedule.hpp"
#include "mpi/core/context.hpp"

namespace twinfab::mpi {

std::vector<int> Communicator::world_ranks() const {
  if (local_comm_ != nullptr) return local_comm_->world_ranks();
  if (!identity_) return world_ranks_;
  std::vector<int> ranks(static_cast<std::size_t>(size_));
  for (int i = 0; i < size_; ++i) ranks[static_cast<std::size_t>(i)] = i;
  return ranks;
}

Communicator* Context::add_communicator(ContextId context_id, int rank, std::vector<int> world_ranks) {
  next_context_id_ = std::max(next_context_id_, context_id + 2);
  if (rank < 0) return nullptr;
  auto communicator = std::make_unique<Communicator>(context_id, rank, std::move(world_ranks));
  Communicator* result = communicator.get();
  communicators_.emplace(context_id, std::move(communicator));
  return result;
}

Communicator* Context::duplicate(const Communicator& comm) {
  std::uint32_t id = next_context_id_;
  allreduce(*this, kInPlace, &id, 1, datatype(BasicKind::Uint32), Op::Max, comm);
  return add_communicator(id, comm.rank(), comm.world_ranks());
}

const Communicator* Context::comm_dup(const Communicator& comm) {
  check_comm(comm, "MPI_Comm_dup");
  if (comm.is_inter()) return inter_split(comm, 0, comm.rank(), "MPI_Comm_dup");  // same groups, same order
  Communicator* dup = duplicate(comm);
  dup->set_topology(comm.shared_topology());  // MPI-3.1 §6.4.2: the topology comes along
  // Same members, same order: the same node map, if the original's is known (at this
  // call on every rank alike, since collectives on it are called in one order).
  dup->set_node_map(comm.shared_node_map());
  return dup;
}

const Communicator* Context::comm_split(const Communicator& comm, int color, int key) {
  const char* where = "MPI_Comm_split";
  check_comm(comm, where);
  if (color < 0 && color != kUndefined)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(color={})", where, color),
                "color must be non-negative or MPI_UNDEFINED");
  if (comm.is_inter()) return inter_split(comm, color, key, where);
  return split(comm, color, key);
}

Communicator* Context::split(const Communicator& comm, int color, int key) {
  // One allgather carries what every rank needs: the colors and keys to form the
  // groups, and the next free ids to agree on the context id.
  const int n = comm.size();
  const int mine[3] = {color, key, static_cast<int>(next_context_id_)};
  std::vector<int> all(static_cast<std::size_t>(3 * n));
  allgather(*this, mine, 3, datatype(BasicKind::Int), all.data(), 3, datatype(BasicKind::Int), comm);
  ContextId id = 0;
  std::vector<std::tuple<int, int>> members;  // (key, old rank) of this rank's color
  for (int r = 0; r < n; ++r) {
    const auto base = static_cast<std::size_t>(3 * r);
    id = std::max(id, static_cast<ContextId>(all[base + 2]));
    if (color != kUndefined && all[base] == color) members.emplace_back(all[base + 1], r);
  }
  std::sort(members.begin(), members.end());
  std::vector<int> world_ranks;
  int new_rank = -1;
  for (const auto& [member_key, old_rank] : members) {
    if (old_rank == comm.rank()) new_rank = static_cast<int>(world_ranks.size());
    world_ranks.push_back(comm.world_rank(old_rank));
  }
  return add_communicator(id, new_rank, std::move(world_ranks));
}

namespace {

/// The world ranks of `group`'s members and, for each, its rank in `comm`.
/// MPI_ERR_GROUP for a member outside `comm`.
std::vector<int> comm_ranks_of(const Group& group, const Communicator& comm, const char* where) {
  std::unordered_map<int, int> comm_rank_of;  // world rank -> rank in comm
  comm_rank_of.reserve(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) comm_rank_of.emplace(comm.world_rank(r), r);
  std::vector<int> ranks;
  ranks.reserve(static_cast<std::size_t>(group.size()));
  for (int i = 0; i < group.size(); ++i) {
    auto it = comm_rank_of.find(group.world_rank(i));
    if (it == comm_rank_of.end())
      throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}(group)", where),
                  fmt::format("member {} (world rank {}) is not in the communicator; the group must be a subset of "
                              "the communicator's",
                              i, group.world_rank(i)));
    ranks.push_back(it->second);
  }
  return ranks;
}

}  // namespace

const Communicator* Context::comm_create(const Communicator& comm, const GroupPtr& group) {
  const char* where = "MPI_Comm_create";
  check_comm(comm, where);
  if (!group) throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}(group)", where), "group is MPI_GROUP_NULL");
  // A split in disguise: the members of one group share a color (the lowest comm rank
  // among them, the same for every member of that group and different for any
  // disjoint one) and are ordered by their rank in the group.
  if (comm.is_inter()) {
    // MPI-3.1 §6.4.2: each group passes a subgroup of its local group; the two
    // subgroups form an intercommunicator (null when either is empty).
    comm_ranks_of(*group, *comm.local_comm(), where);
    const bool member = group->rank() != kUndefined;
    return inter_split(comm, member ? 0 : kUndefined, member ? group->rank() : 0, where);
  }
  const std::vector<int> members = comm_ranks_of(*group, comm, where);
  int color = kUndefined;
  for (int rank : members) color = color == kUndefined ? rank : std::min(color, rank);
  if (group->rank() == kUndefined) color = kUndefined;
  return split(comm, color, group->rank());
}

namespace {

/// The agreement of MPI_Comm_create_group and MPI_Comm_create_from_group: the max of
/// the members' next free context ids (`mine` here), by a binomial reduce to the
/// group's first member and a binomial bcast, over the members' ranks in the
/// schedule's communicator (`members`, in group order; `me` is the caller's index).
/// The reduce's messages carry step `step`, the bcast's `step | 1`.
std::uint32_t agree_on_max(Context& context, coll::Schedule& schedule, const std::vector<int>& members, int me,
                           std::uint32_t mine, int step) {
  const int n = static_cast<int>(members.size());
  const DatatypePtr& type = context.datatype(BasicKind::Uint32);
  std::uint32_t id = mine;
  std::uint32_t incoming = 0;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((me & mask) == 0) {
      if ((me | mask) >= n) continue;
      schedule.recv(&incoming, 1, type, members[static_cast<std::size_t>(me | mask)], step);
      schedule.next_round();
      schedule.reduce(Op::Max, &incoming, &id, 1, type);
    } else {
      schedule.send(&id, 1, type, members[static_cast<std::size_t>(me & ~mask)], step);
      schedule.next_round();
      break;
    }
  }
  int mask = 1;
  while (mask < n && (me & mask) == 0) mask <<= 1;
  if (me != 0) {
    schedule.recv(&id, 1, type, members[static_cast<std::size_t>(me & ~mask)], step | 1);
    schedule.next_round();
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (me + mask < n) schedule.send(&id, 1, type, members[static_cast<std::size_t>(me + mask)], step | 1);
  schedule.run(context);
  return id;
}

/// FNV-1a: the stringtag's 32-bit hash, of which the agreement's tags keep 26 bits.
std::uint32_t stringtag_hash(std::string_view text) {
  std::uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

}  // namespace

const Communicator* Context::comm_create_group(const Communicator& comm, const GroupPtr& group, int tag) {
  const char* where = "MPI_Comm_create_group";
  check_comm(comm, where);
  check_intracomm(comm, where);
  if (!group) throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}(group)", where), "group is MPI_GROUP_NULL");
  if (tag < 0 || tag > kTagUpperBound)
    throw Error(ErrorClass::MPI_ERR_TAG, fmt::format("{}(tag={})", where, tag),
                fmt::format("invalid tag; valid tags are 0 to {}", kTagUpperBound));
  const std::vector<int> members = comm_ranks_of(*group, comm, where);
  const int me = group->rank();
  if (me == kUndefined) return nullptr;
  // comm's collective space, a tag kind of its own: no other collective on `comm` can
  // take these messages.
  coll::Schedule schedule(comm, coll::Kind::CreateGroup, where, Mode::Blocking);
  const std::uint32_t id = agree_on_max(*this, schedule, members, me, next_context_id_, 0);
  std::vector<int> world_ranks(group->world_ranks().begin(), group->world_ranks().end());
  return add_communicator(id, me, std::move(world_ranks));
}

const Communicator* Context::comm_create_from_group(const GroupPtr& group, std::string_view stringtag) {
  const char* where = "MPI_Comm_create_from_group";
  if (!group) throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}(group)", where), "group is MPI_GROUP_NULL");
  if (group->size() == 0) return nullptr;  // MPI_GROUP_EMPTY: a local call
  const int me = group->rank();
  if (me == kUndefined)
    throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}(group)", where),
                fmt::format("the calling rank (world rank {}) is not a member of the group; only the group's "
                            "members call MPI_Comm_create_from_group",
                            world_.rank()));
  // COMM_WORLD's collective space (its ranks are the world ranks the group holds), with
  // tags of their own: kFromGroupTagBit, then 26 bits of the stringtag's hash (11 in
  // the tag base, 15 in the step, whose low bit tells the reduce from the bcast). Calls
  // with different stringtags therefore never take each other's messages, unless the
  // two hashes agree on those 26 bits (docs/mpi.md, "The Sessions model").
  const std::uint32_t h = stringtag_hash(stringtag);
  const int tag_base = coll::kFromGroupTagBit | static_cast<int>(((h >> 15) & 0x7ffU) << 16);
  const int step = static_cast<int>((h & 0x7fffU) << 1);
  coll::Schedule schedule(world_, coll::Schedule::TagBase{tag_base}, where);
  std::vector<int> members(group->world_ranks().begin(), group->world_ranks().end());
  const std::uint32_t id = agree_on_max(*this, schedule, members, me, next_context_id_, step);
  return add_communicator(id, me, std::move(members));
}

const Communicator* Context::comm_split_type(const Communicator& comm, int split_type, int key) {
  const char* where = "MPI_Comm_split_type";
  check_comm(comm, where);
  check_intracomm(comm, where);
  if (split_type != kCommTypeShared && split_type != kUndefined)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(split_type={})", where, split_type),
                "not a split type (MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED or "
                "MPI_UNDEFINED)");
  if (split_type == kUndefined) return split(comm, kUndefined, key);
  if (!node_)
    throw Error(ErrorClass::MPI_ERR_OTHER, fmt::format("{}(split_type=MPI_COMM_TYPE_SHARED)", where),
                "the process manager did not say which host this rank runs on (PMIx gave neither "
                "PMIX_LOCAL_PEERS nor PMIX_NODEID)");
  return split(comm, *node_, key);
}

const Communicator* Context::cart_create(const Communicator& comm, CartTopology topology) {
  const char* where = "MPI_Cart_create";
  check_comm(comm, where);
  check_intracomm(comm, where);
  if (topology.size() > comm.size())
    throw Error(ErrorClass::MPI_ERR_DIMS, fmt::format("{}(dims)", where),
                fmt::format("the grid has {} processes, the communicator only {}", topology.size(), comm.size()));
  // reorder is not implemented (MPI allows ignoring it): rank r of comm is rank r of
  // the grid.
  Communicator* cart = split(comm, comm.rank() < topology.size() ? 0 : kUndefined, comm.rank());
  if (cart != nullptr) cart->set_topology(std::make_shared<const Topology>(std::move(topology)));
  return cart;
}

const Communicator* Context::cart_sub(const Communicator& comm, const std::vector<bool>& remain) {
  const char* where = "MPI_Cart_sub";
  check_comm(comm, where);
  const CartTopology* grid = comm.cart();
  if (grid == nullptr)
    throw Error(ErrorClass::MPI_ERR_TOPOLOGY, fmt::format("{}(comm)", where), "not a Cartesian communicator");
  if (remain.size() != static_cast<std::size_t>(grid->ndims()))
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "remain_dims does not have one entry per dimension");
  // Color: the position in the dropped dimensions; key: the position in the kept ones
  // (both row-major), so each new grid keeps the old order.
  const std::vector<int> at = grid->coords(comm.rank(), where);
  int color = 0, key = 0;
  std::vector<int> dims;
  std::vector<bool> periods;
  for (std::size_t i = 0; i < remain.size(); ++i) {
    const int extent = grid->dims()[i];
    if (remain[i]) {
      key = key * extent + at[i];
      dims.push_back(extent);
      periods.push_back(grid->periods()[i]);
    } else {
      color = color * extent + at[i];
    }
  }
  CartTopology sub(std::move(dims), std::move(periods), where);
  Communicator* result = split(comm, color, key);
  result->set_topology(std::make_shared<const Topology>(std::move(sub)));
  return result;
}

const Communicator* Context::graph_create(const Communicator& comm, GraphTopology topology) {
  const char* where = "MPI_Graph_create";
  check_comm(comm, where);
  check_intracomm(comm, where);
  if (topology.nnodes() > comm.size())
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(nnodes={})", where, topology.nnodes()),
                fmt::format("the graph has more nodes than the communicator has processes ({})", comm.size()));
  // reorder is not implemented, as for cart_create: rank r of comm is node r.
  Communicator* graph = split(comm, comm.rank() < topology.nnodes() ? 0 : kUndefined, comm.rank());
  if (graph != nullptr) graph->set_topology(std::make_shared<const Topology>(std::move(topology)));
  return graph;
}

namespace {

/// MPI_ERR_RANK "<where>(<arg>[i]=r)" unless every entry is a rank of `comm`.
void check_ranks(std::span<const int> ranks, const Communicator& comm, const char* where, const char* arg) {
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] < 0 || ranks[i] >= comm.size())
      throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}({}[{}]={})", where, arg, i, ranks[i]),
                  fmt::format("invalid rank; the communicator has {} ranks", comm.size()));
}

/// MPI_ERR_ARG unless every weight is non-negative (MPI-3.1 §7.5.4).
void check_weights(std::span<const int> weights, const char* where, const char* arg) {
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (weights[i] < 0)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}[{}]={})", where, arg, i, weights[i]),
                  "edge weights must be non-negative");
}

}  // namespace

const Communicator* Context::dist_graph_create_adjacent(const Communicator& comm, DistGraphTopology topology) {
  const char* where = "MPI_Dist_graph_create_adjacent";
  check_comm(comm, where);
  check_intracomm(comm, where);
  check_ranks(topology.sources(), comm, where, "sources");
  check_ranks(topology.destinations(), comm, where, "destinations");
  check_weights(topology.source_weights(), where, "sourceweights");
  check_weights(topology.destination_weights(), where, "destweights");
  Communicator* graph = duplicate(comm);  // reorder is not implemented: the same order
  graph->set_topology(std::make_shared<const Topology>(std::move(topology)));
  return graph;
}

const Communicator* Context::dist_graph_create(const Communicator& comm, std::span<const int> sources,
                                               std::span<const int> degrees, std::span<const int> destinations,
                                               std::span<const int> weights, bool weighted) {
  const char* where = "MPI_Dist_graph_create";
  check_comm(comm, where);
  check_intracomm(comm, where);
  check_ranks(sources, comm, where, "sources");
  std::int64_t edges = 0;
  for (std::size_t i = 0; i < degrees.size(); ++i) {
    if (degrees[i] < 0)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(degrees[{}]={})", where, i, degrees[i]),
                  "must not be negative");
    edges += degrees[i];
  }
  if (static_cast<std::int64_t>(destinations.size()) != edges ||
      (weighted && static_cast<std::int64_t>(weights.size()) != edges))
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "destinations or weights do not have one entry per edge");
  check_ranks(destinations, comm, where, "destinations");
  if (weighted) check_weights(weights, where, "weights");
  // Every edge s -> d this rank names is told to both ends: s learns its destination
  // d, d its source s, each with the weight. One alltoall of counts, one alltoallv of
  // (kind, peer, weight) triples; each rank then lists its edges in the order they
  // arrive (by the rank that named them, then in the order it named them), so both
  // ends of repeated edges agree on their order.
  const auto n = static_cast<std::size_t>(comm.size());
  std::vector<std::vector<int>> outgoing(n);
  std::size_t next = 0;
  for (std::size_t i = 0; i < sources.size(); ++i)
    for (int k = 0; k < degrees[i]; ++k, ++next) {
      const int s = sources[i], d = destinations[next], w = weighted ? weights[next] : 1;
      for (int v : {0, d, w}) outgoing[static_cast<std::size_t>(s)].push_back(v);  // s gets destination d
      for (int v : {1, s, w}) outgoing[static_cast<std::size_t>(d)].push_back(v);  // d gets source s
    }
  std::vector<std::int64_t> send_counts(n), send_displs(n), recv_counts(n), recv_displs(n);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (total + static_cast<std::int64_t>(outgoing[r].size()) > std::numeric_limits<int>::max())
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(degrees)", where), "more than 2^31 / 3 edges");
    send_displs[r] = total;
    send_counts[r] = static_cast<std::int64_t>(outgoing[r].size());
    total += send_counts[r];
  }
  std::vector<int> packed;
  packed.reserve(static_cast<std::size_t>(total));
  for (auto& triples : outgoing) {
    packed.insert(packed.end(), triples.begin(), triples.end());
    std::vector<int>().swap(triples);
  }
  const DatatypePtr& type = datatype(BasicKind::Int);
  alltoall(*this, send_counts.data(), 1, datatype(BasicKind::Int64), recv_counts.data(), 1, datatype(BasicKind::Int64),
           comm);
  std::int64_t received = 0;
  for (std::size_t r = 0; r < n; ++r) {
    recv_displs[r] = received;
    received += recv_counts[r];
  }
  if (received > std::numeric_limits<int>::max())
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(degrees)", where), "a rank gets more than 2^31 / 3 edges");
  std::vector<int> incoming(static_cast<std::size_t>(received));
  alltoallv(*this, packed.data(), send_counts, send_displs, type, incoming.data(), recv_counts, recv_displs, type,
            comm);
  std::vector<int> in, in_weights, out, out_weights;
  for (std::size_t i = 0; i + 2 < incoming.size(); i += 3) {
    const bool is_source = incoming[i] == 1;
    (is_source ? in : out).push_back(incoming[i + 1]);
    if (weighted) (is_source ? in_weights : out_weights).push_back(incoming[i + 2]);
  }
  Communicator* graph = duplicate(comm);  // reorder is not implemented: the same order
  graph->set_topology(std::make_shared<const Topology>(
      DistGraphTopology(std::move(in), std::move(in_weights), std::move(out), std::move(out_weights), weighted)));
  return graph;
}

void Context::comm_free(const Communicator*& comm) {
  const char* where = "MPI_Comm_free";
  if (comm == nullptr) throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where), "comm is MPI_COMM_NULL");
  if (comm == &world_ || comm == &self_)
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where),
                "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
  check_comm(*comm, where);
  // An intercommunicator's local intracommunicator goes with it.
  const Communicator* local = comm->local_comm();
  for (ContextId id : {comm->context_id(), local != nullptr ? local->context_id() : comm->context_id()}) {
    auto node = communicators_.extract(id);
    if (node.empty()) continue;
    node.mapped()->mark_freed();
    freed_keeping_members_.push_back(node.mapped().get());
    freed_communicators_.push_back(std::move(node.mapped()));
  }
  comm = nullptr;
  // Those no schedule uses any more (this one, or earlier ones whose nonblocking
  // collectives have ended since) drop their members now.
  std::erase_if(freed_keeping_members_, [](Communicator* freed) {
    if (freed->has_schedules()) return false;
    freed->release_members();
    return true;
  });
}

GroupPtr Context::comm_group(const Communicator& comm) const {
  check_comm(comm, "MPI_Comm_group");
  return std::make_shared<const Group>(comm.world_ranks(),
                                       world_.rank());
}

}  // namespace twinfab::mpi
