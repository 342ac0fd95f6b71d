#include "mpi/coll/node_map.hpp"

#include <vector>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi::coll {

namespace {

/// Gathers every member's host id and builds the map (blocking, collective).
std::shared_ptr<const NodeMap> gather_node_map(Context& context, const Communicator& comm) {
  const int n = comm.size();
  const int mine = context.node().value_or(-1);
  std::vector<int> nodes(static_cast<std::size_t>(n));
  // Bruck's allgather serves any size in ceil(log2 n) steps; its own tag kind keeps
  // it apart from the collective that asked for the map and from any nonblocking one.
  Schedule schedule(comm, Kind::NodeMap, "node map", Mode::Blocking);
  const DatatypePtr& type = context.datatype(BasicKind::Int);
  add_allgather_bruck(schedule, &mine, 1, type, nodes.data(), 1, type);
  schedule.run(context);
  return make_node_map(nodes, comm.rank());
}

}  // namespace

const NodeMap* node_map_for(Context& context, const Communicator& comm, Mode mode, bool wants) {
  if (comm.node_map() != nullptr || !wants) return comm.node_map();
  // One or two ranks, or a job whose hosts each run one rank (the process manager
  // says so: fabric::OobExchange::hosts_shared): nothing node-aware can do better, and
  // no messages are needed to know it (so any call may settle it, nonblocking ones
  // too).
  if (comm.size() <= 2 || !context.hosts_shared())
    comm.set_node_map(flat_node_map());
  else if (mode == Mode::Blocking)
    comm.set_node_map(gather_node_map(context, comm));
  return comm.node_map();
}

void describe_nodes(CallShape& call, const NodeMap* map) noexcept {
  call.nodes_known = map != nullptr;
  call.shares_hosts = map != nullptr && map->hierarchical;
  call.hosts = map != nullptr ? map->hosts : 0;
}

}  // namespace twinfab::mpi::coll
