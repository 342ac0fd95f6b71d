// Pairwise-exchange alltoall: in step i (1 <= i < n) every rank sends its block for
// rank + i and receives the block from rank - i. Each step is a permutation, so no
// rank is flooded (unlike posting all n-1 sends at once), and every step keeps all
// links busy; n-1 steps.
#include <fmt/format.h>

#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
              void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm) {
  const char* where = "MPI_Alltoall";
  context.check_comm(comm, where);
  const int n = comm.size();
  const int rank = comm.rank();
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  // In place: the outgoing blocks are in recvbuf, which the exchange overwrites, so
  // they are first copied out (MPI_IN_PLACE saves the user a buffer, not us).
  coll::TempBuffer outgoing(sendbuf == kInPlace ? recvcount * n : 0, *recvtype);
  const void* send = sendbuf;
  std::int64_t send_count = sendcount;
  DatatypePtr send_type = sendtype;
  if (sendbuf == kInPlace) {
    coll::local_copy(recvbuf, recvcount * n, *recvtype, outgoing.data(), recvcount * n, *recvtype, where);
    send = outgoing.data();
    send_count = recvcount;
    send_type = recvtype;
  } else {
    coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", n);
    coll::check_no_alias(sendbuf, sendcount * n, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  }
  coll::local_copy(coll::block(send, rank, send_count, *send_type), send_count, *send_type,
                   coll::block(recvbuf, rank, recvcount, *recvtype), recvcount, *recvtype, where);
  for (int step = 1; step < n; ++step) {
    const int dest = (rank + step) % n;
    const int source = (rank - step + n) % n;
    coll::sendrecv(context, coll::block(send, dest, send_count, *send_type), send_count, send_type, dest,
                   coll::block(recvbuf, source, recvcount, *recvtype), recvcount, recvtype, source,
                   coll::tag(coll::Kind::Alltoall, step), comm, where);
  }
}

}  // namespace twinfab::mpi
