// Dissemination barrier (Hensgen, Finkel and Manber): in round k every rank signals
// rank + 2^k and waits for rank - 2^k. After ceil(log2 n) rounds each rank has heard,
// directly or through others, from every rank, for any n (no power-of-two fold).
#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void barrier(Context& context, const Communicator& comm) {
  const char* where = "MPI_Barrier";
  context.check_comm(comm, where);
  const int n = comm.size();
  const int rank = comm.rank();
  const DatatypePtr& type = context.datatype(BasicKind::Byte);
  int round = 0;
  for (int distance = 1; distance < n; distance <<= 1, ++round) {
    coll::sendrecv(context, nullptr, 0, type, (rank + distance) % n, nullptr, 0, type, (rank - distance + n) % n,
                   coll::tag(coll::Kind::Barrier, round), comm, where);
  }
}

}  // namespace twinfab::mpi
