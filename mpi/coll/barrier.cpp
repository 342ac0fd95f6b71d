// Dissemination barrier (Hensgen, Finkel and Manber): in round k every rank signals
// rank + 2^k and waits for rank - 2^k. After ceil(log2 n) rounds each rank has heard,
// directly or through others, from every rank, for any n (no power-of-two fold).
#include "mpi/coll/algorithms.hpp"
#include "mpi/coll/node_map.hpp"

namespace twinfab::mpi {

namespace coll {

void add_barrier(Schedule& schedule, const DatatypePtr& byte) {
  const int n = schedule.size();
  const int rank = schedule.rank();
  int round = 0;
  for (int distance = 1; distance < n; distance <<= 1, ++round) {
    schedule.recv(nullptr, 0, byte, (rank - distance + n) % n, round);
    schedule.send(nullptr, 0, byte, (rank + distance) % n, round);
    schedule.next_round();
  }
}

}  // namespace coll

RequestId barrier(Context& context, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Barrier", "MPI_Ibarrier");
  context.check_comm(comm, where);
  if (comm.is_inter()) return coll::inter_barrier(context, comm, mode);
  coll::CallShape call{comm.size()};
  const bool wants = comm.size() > 1 && coll::wants_node_map(context.config(), context.config().barrier_algorithm);
  coll::describe_nodes(call, coll::node_map_for(context, comm, mode, wants));
  const BarrierAlgorithm algorithm = coll::select_barrier(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Barrier, where, mode);
  const std::shared_ptr<const NodeMap>& map = comm.shared_node_map();
  if (algorithm == BarrierAlgorithm::NodeAware && map != nullptr && map->hierarchical) {
    // (A node-aware barrier on ranks that do not share hosts is the dissemination one.)
    schedule->keep(map);
    coll::add_barrier_node_aware(*schedule, *map, context.datatype(BasicKind::Byte));
  } else {
    coll::add_barrier(*schedule, context.datatype(BasicKind::Byte));
  }
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
