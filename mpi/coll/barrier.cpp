// Dissemination barrier (Hensgen, Finkel and Manber): in round k every rank signals
// rank + 2^k and waits for rank - 2^k. After ceil(log2 n) rounds each rank has heard,
// directly or through others, from every rank, for any n (no power-of-two fold).
#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

namespace coll {

void add_barrier(Schedule& schedule, const DatatypePtr& byte) {
  const Communicator& comm = schedule.comm();
  const int n = comm.size();
  const int rank = comm.rank();
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
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Barrier, where, mode);
  coll::add_barrier(*schedule, context.datatype(BasicKind::Byte));
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
