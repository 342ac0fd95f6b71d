// Ring allgather: in step s (0 <= s < n-1) every rank sends to its right neighbour
// the block it received in the previous step (its own block first) and receives the
// block of rank - s - 1 from its left neighbour. n-1 steps, each moving one block per
// link, so every link carries (n-1)/n of the data: bandwidth-optimal for large blocks.
#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

RequestId allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                    void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm,
                    Mode mode) {
  const char* where = coll::name(mode, "MPI_Allgather", "MPI_Iallgather");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_allgather(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, mode);
  const int n = comm.size();
  const int rank = comm.rank();
  if (sendbuf != kInPlace) coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  if (sendbuf != kInPlace) coll::check_no_alias(sendbuf, sendcount, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Allgather, where, mode);
  if (sendbuf != kInPlace)
    schedule->copy(sendbuf, sendcount, sendtype, coll::block(recvbuf, rank, recvcount, *recvtype), recvcount,
                   recvtype);
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int send_block = (rank - step + n) % n;
    const int recv_block = (rank - step - 1 + n) % n;
    schedule->recv(coll::block(recvbuf, recv_block, recvcount, *recvtype), recvcount, recvtype, left, step);
    schedule->send(coll::block(recvbuf, send_block, recvcount, *recvtype), recvcount, recvtype, right, step);
    schedule->next_round();
  }
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
