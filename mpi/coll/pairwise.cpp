// Pairwise-exchange alltoall: in step i (1 <= i < n) every rank sends its block for
// rank + i and receives the block from rank - i. Each step is a permutation, so no
// rank is flooded (unlike posting all n-1 sends at once), and every step keeps all
// links busy; n-1 steps.
#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

RequestId alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                   void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm,
                   Mode mode) {
  const char* where = coll::name(mode, "MPI_Alltoall", "MPI_Ialltoall");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_alltoall(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, mode);
  const int n = comm.size();
  const int rank = comm.rank();
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  if (sendbuf != kInPlace) {
    coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", n);
    coll::check_no_alias(sendbuf, sendcount * n, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Alltoall, where, mode);
  // In place: the outgoing blocks are in recvbuf, which the exchange overwrites, so
  // they are first copied out (MPI_IN_PLACE saves the user a buffer, not us).
  const void* send = sendbuf;
  std::int64_t send_count = sendcount;
  DatatypePtr send_type = sendtype;
  if (sendbuf == kInPlace) {
    void* outgoing = schedule->scratch(recvcount * n, *recvtype);
    schedule->copy(recvbuf, recvcount * n, recvtype, outgoing, recvcount * n, recvtype);
    send = outgoing;
    send_count = recvcount;
    send_type = recvtype;
  }
  schedule->copy(coll::block(send, rank, send_count, *send_type), send_count, send_type,
                 coll::block(recvbuf, rank, recvcount, *recvtype), recvcount, recvtype);
  for (int step = 1; step < n; ++step) {
    const int dest = (rank + step) % n;
    const int source = (rank - step + n) % n;
    schedule->recv(coll::block(recvbuf, source, recvcount, *recvtype), recvcount, recvtype, source, step);
    schedule->send(coll::block(send, dest, send_count, *send_type), send_count, send_type, dest, step);
    schedule->next_round();
  }
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
