// Node-aware (two-level) collectives, as MPICH's "smp" algorithms and MVAPICH2's
// two-level ones: the ranks of each host combine inside the host first, one rank per
// host runs a flat algorithm among the hosts, then the result spreads inside each
// host. Intra-host messages are the cheap ones, through the shared-memory channel
// (docs/shm.md); with TWINFAB_SHM=0 the algorithms still save inter-host steps:
// log2(hosts) of them on the critical path instead of log2(ranks), and one rank per
// host on the network.
//
// Every phase is a flat algorithm of this directory run on a subset of the
// communicator's ranks (Schedule::view): a host's members, or one rank per host (its
// leader, the lowest rank, or for a rooted collective the root on the root's host, so
// that the root's data never takes an extra hop). The node map (node_map.hpp) gives
// both subsets, in the same order on every rank. Within a host the trees are binomial
// and rooted at the host's representative; among the hosts the caller picks the flat
// algorithm for `hosts` ranks (selection.hpp's table), except for the allgather, whose
// leaders exchange whole hosts' blocks (a Bruck dissemination over hosts, below).
//
// Tags: the phases reuse the steps of their algorithms. The inter-host phase pairs
// ranks of different hosts, the intra-host phases ranks of one host; the intra-host
// reduce (the barrier's and allgather's fan-in) sends toward the leader or
// representative and the bcast (release) away from it on the same tree, and the
// schedule posts them in order, so no message can match another phase's receive.
//
// Reductions change the order in which operands meet (a host's ranks are not a run of
// consecutive ranks in general): commutative ops only, as the selection enforces.
#include <algorithm>
#include <vector>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi::coll {

namespace {

/// The host's members, this rank at its index.
void view_host(Schedule& s, const NodeMap& map) { s.view(map.members, map.my_index); }

/// One rank per host, by host index: the leaders, root's host's entry being `root`
/// when root >= 0. Only the ranks that are in it may add steps.
void view_hosts(Schedule& s, const NodeMap& map, int root = -1) {
  if (root < 0)
    s.view(map.leaders, map.my_host);
  else
    s.view(map.leaders, map.my_host, map.host_of_rank(root), root);
}

/// The blocks of the members of `count` hosts from host `first` on (mod hosts), in
/// that order and each host's in rank order, as one datatype over recvbuf: what the
/// leaders exchange in the node-aware allgather, straight between the ranks' places.
/// Sender and receiver build it alike, so the type signatures match.
DatatypePtr hosts_blocks(const std::vector<std::vector<std::int64_t>>& displacements, int first, int count,
                         std::int64_t recvcount, const DatatypePtr& recvtype) {
  const int hosts = static_cast<int>(displacements.size());
  std::vector<std::int64_t> all;
  for (int i = 0; i < count; ++i) {
    const auto& host = displacements[static_cast<std::size_t>((first + i) % hosts)];
    all.insert(all.end(), host.begin(), host.end());
  }
  DatatypePtr type = Datatype::indexed_block(recvcount, all, recvtype);
  type->commit();
  return type;
}

}  // namespace

void add_barrier_node_aware(Schedule& s, const NodeMap& map, const DatatypePtr& byte) {
  const int members = static_cast<int>(map.members.size());
  const bool leader = map.my_index == 0;
  // Fan-in: every member tells its leader it has arrived (linear: a host has few
  // ranks, and the leader's receives are posted at once).
  view_host(s, map);
  if (leader) {
    for (int i = 1; i < members; ++i) s.recv(nullptr, 0, byte, i, 0);
  } else {
    s.send(nullptr, 0, byte, 0, 0);
  }
  s.next_round();
  // The leaders' dissemination barrier: past it, every host has arrived.
  if (leader) {
    view_hosts(s, map);
    add_barrier(s, byte);
  }
  // Release.
  view_host(s, map);
  if (leader) {
    for (int i = 1; i < members; ++i) s.send(nullptr, 0, byte, i, 1);
  } else {
    s.recv(nullptr, 0, byte, 0, 1);
  }
  s.next_round();
  s.view_all();
}

void add_allreduce_node_aware(Schedule& s, const NodeMap& map, const void* sendbuf, void* recvbuf,
                              std::int64_t count, const DatatypePtr& type, const ReductionOp& op,
                              AllreduceAlgorithm among_hosts) {
  if (count == 0 || type->size() == 0) return;
  const bool leader = map.my_index == 0;
  // The host's sum lands in the leader's recvbuf (the others reduce in scratch).
  view_host(s, map);
  add_reduce(s, sendbuf == kInPlace ? recvbuf : sendbuf, recvbuf, count, type, op, 0);
  s.next_round();
  // The leaders' allreduce, in place: every leader ends with the same bits.
  if (leader) {
    view_hosts(s, map);
    if (among_hosts == AllreduceAlgorithm::Rabenseifner)
      add_allreduce_rabenseifner(s, kInPlace, recvbuf, count, type, op);
    else
      add_allreduce(s, kInPlace, recvbuf, count, type, op);
    s.next_round();
  }
  // Each leader hands the result to its host.
  view_host(s, map);
  add_bcast(s, recvbuf, count, type, 0);
  s.next_round();
  s.view_all();
}

void add_bcast_node_aware(Schedule& s, const NodeMap& map, void* buffer, std::int64_t count,
                          const DatatypePtr& type, int root, BcastAlgorithm among_hosts) {
  if (count == 0 || type->size() == 0) return;
  // The root stands for its host among the hosts; every other host's leader for its.
  const int representative = map.representative_index(root);
  if (map.my_index == representative) {
    view_hosts(s, map, root);
    const int root_host = map.host_of_rank(root);
    if (among_hosts == BcastAlgorithm::Binomial)
      add_bcast(s, buffer, count, type, root_host);
    else
      add_bcast_scatter_allgather(s, buffer, count, type, root_host,
                                  among_hosts == BcastAlgorithm::ScatterRingAllgather);
    s.next_round();
  }
  view_host(s, map);
  add_bcast(s, buffer, count, type, representative);
  s.next_round();
  s.view_all();
}

void add_allgather_node_aware(Schedule& s, const NodeMap& map, const void* sendbuf, std::int64_t sendcount,
                              const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                              const DatatypePtr& recvtype) {
  if (recvcount == 0 || recvtype->size() == 0) return;
  const Datatype& t = *recvtype;
  const int members = static_cast<int>(map.members.size());
  const bool leader = map.my_index == 0;
  const int me = map.members[static_cast<std::size_t>(map.my_index)];
  // Gather: each member's block lands at its place in the leader's recvbuf (one
  // round, linear: a host has few ranks).
  view_host(s, map);
  if (leader) {
    if (sendbuf != kInPlace)
      s.copy(sendbuf, sendcount, sendtype, block(recvbuf, me, recvcount, t), recvcount, recvtype);
    for (int i = 1; i < members; ++i)
      s.recv(block(recvbuf, map.members[static_cast<std::size_t>(i)], recvcount, t), recvcount, recvtype, i, 0);
  } else if (sendbuf != kInPlace) {
    s.send(sendbuf, sendcount, sendtype, 0, 0);
  } else {
    s.send(block(recvbuf, me, recvcount, t), recvcount, recvtype, 0, 0);
  }
  s.next_round();
  if (leader) {
    // Among the leaders, Bruck's dissemination over whole hosts: at distance d a
    // leader sends the hosts it holds (its own and the next d - 1) to the leader d
    // before it and receives the next ones from the leader d after it; ceil(log2
    // hosts) steps for any number of hosts, each host's blocks moved by one datatype
    // straight to their places (no rotation, unlike Bruck's flat allgather).
    const int hosts = map.hosts;
    std::vector<std::vector<std::int64_t>> displacements(static_cast<std::size_t>(hosts));
    for (std::size_t r = 0; r < map.host_of.size(); ++r)
      displacements[static_cast<std::size_t>(map.host_of[r])].push_back(static_cast<std::int64_t>(r) * recvcount);
    view_hosts(s, map);
    int step = 1;
    for (int d = 1; d < hosts; d <<= 1, ++step) {
      const int count = std::min(d, hosts - d);
      s.recv(recvbuf, 1, hosts_blocks(displacements, (map.my_host + d) % hosts, count, recvcount, recvtype),
             (map.my_host + d) % hosts, step);
      s.send(recvbuf, 1, hosts_blocks(displacements, map.my_host, count, recvcount, recvtype),
             (map.my_host - d + hosts) % hosts, step);
      s.next_round();
    }
  }
  // Each leader hands the whole vector to its host.
  view_host(s, map);
  add_bcast(s, recvbuf, static_cast<std::int64_t>(map.host_of.size()) * recvcount, recvtype, 0);
  s.next_round();
  s.view_all();
}

void add_reduce_node_aware(Schedule& s, const NodeMap& map, const void* input, void* result_at_root,
                           std::int64_t count, const DatatypePtr& type, const ReductionOp& op, int root,
                           ReduceAlgorithm among_hosts) {
  if (count == 0 || type->size() == 0) return;
  const int representative = map.representative_index(root);
  const bool is_representative = map.my_index == representative;
  const bool is_root = map.members[static_cast<std::size_t>(map.my_index)] == root;
  // The host's sum: at the root in its result buffer, at another host's leader in
  // scratch (its recvbuf is not significant and may be null).
  void* partial = is_root ? result_at_root : is_representative ? s.scratch(count, *type) : nullptr;
  view_host(s, map);
  add_reduce(s, input, partial, count, type, op, representative);
  s.next_round();
  if (is_representative) {
    view_hosts(s, map, root);
    const int root_host = map.host_of_rank(root);
    if (among_hosts == ReduceAlgorithm::Rabenseifner)
      add_reduce_rabenseifner(s, partial, partial, count, type, op, root_host);
    else
      add_reduce(s, partial, partial, count, type, op, root_host);
    s.next_round();
  }
  s.view_all();
}

}  // namespace twinfab::mpi::coll
