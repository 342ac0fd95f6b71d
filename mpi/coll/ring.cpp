// Ring allgather: in step s (0 <= s < n-1) every rank sends to its right neighbour
// the block it received in the previous step (its own block first) and receives the
// block of rank - s - 1 from its left neighbour. n-1 steps, each moving one block per
// link, so every link carries (n-1)/n of the data: bandwidth-optimal for large blocks.
#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
               void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm) {
  const char* where = "MPI_Allgather";
  context.check_comm(comm, where);
  const int n = comm.size();
  const int rank = comm.rank();
  if (sendbuf != kInPlace) coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  if (sendbuf != kInPlace) {
    coll::check_no_alias(sendbuf, sendcount, *sendtype, recvbuf, recvcount * n, *recvtype, where);
    coll::local_copy(sendbuf, sendcount, *sendtype, coll::block(recvbuf, rank, recvcount, *recvtype), recvcount,
                     *recvtype, where);
  }
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int send_block = (rank - step + n) % n;
    const int recv_block = (rank - step - 1 + n) % n;
    coll::sendrecv(context, coll::block(recvbuf, send_block, recvcount, *recvtype), recvcount, recvtype, right,
                   coll::block(recvbuf, recv_block, recvcount, *recvtype), recvcount, recvtype, left,
                   coll::tag(coll::Kind::Allgather, step), comm, where);
  }
}

}  // namespace twinfab::mpi
