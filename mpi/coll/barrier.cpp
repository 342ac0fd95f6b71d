// Dissemination barrier (Hensgen, Finkel and Manber): in round k every rank signals
// rank + 2^k and waits for rank - 2^k. After ceil(log2 n) rounds each rank has heard,
// directly or through others, from every rank, for any n (no power-of-two fold).
#include "mpi/coll/schedule.hpp"

namespace twinfab::mpi {

RequestId barrier(Context& context, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Barrier", "MPI_Ibarrier");
  context.check_comm(comm, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Barrier, where, mode);
  const int n = comm.size();
  const int rank = comm.rank();
  const DatatypePtr& type = context.datatype(BasicKind::Byte);
  int round = 0;
  for (int distance = 1; distance < n; distance <<= 1, ++round) {
    schedule->recv(nullptr, 0, type, (rank - distance + n) % n, round);
    schedule->send(nullptr, 0, type, (rank + distance) % n, round);
    schedule->next_round();
  }
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
