// Linear gather and scatter: the root posts one receive (gather) or send (scatter)
// per rank, all at once, and waits for them together; the other ranks do one send or
// receive. n-1 messages through the root, which the engine overlaps; with derived
// datatypes each block goes straight from or to its place in the user's buffer, so
// no intermediate rank has to repack another's data (what a binomial tree would).
#include <fmt/format.h>

#include <vector>

#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void gather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
            void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm) {
  const char* where = "MPI_Gather";
  if (coll::gather_contribute(context, sendbuf, sendcount, sendtype, root, comm, coll::Kind::Gather, where)) return;
  const int rank = comm.rank();  // the root
  const int n = comm.size();
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  void* own_block = coll::block(recvbuf, rank, recvcount, *recvtype);
  if (sendbuf != kInPlace)
    coll::check_no_alias(sendbuf, sendcount, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  std::vector<RequestId> requests;
  requests.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (i == rank) continue;
    requests.push_back(context.coll_irecv(coll::block(recvbuf, i, recvcount, *recvtype), recvcount, recvtype, i,
                                          coll::tag(coll::Kind::Gather), comm, where));
  }
  coll::finish_at_root(context, requests, where, [&] {
    if (sendbuf != kInPlace) coll::local_copy(sendbuf, sendcount, *sendtype, own_block, recvcount, *recvtype, where);
  });
}

void scatter(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
             void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm) {
  const char* where = "MPI_Scatter";
  if (coll::scatter_receive(context, recvbuf, recvcount, recvtype, root, comm, coll::Kind::Scatter, where)) return;
  const int rank = comm.rank();  // the root
  const int n = comm.size();
  coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", n);
  if (recvbuf != kInPlace)
    coll::check_no_alias(sendbuf, sendcount * n, *sendtype, recvbuf, recvcount, *recvtype, where);
  std::vector<RequestId> requests;
  requests.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (i == rank) continue;
    requests.push_back(context.coll_isend(coll::block(sendbuf, i, sendcount, *sendtype), sendcount, sendtype, i,
                                          coll::tag(coll::Kind::Scatter), comm, where));
  }
  coll::finish_at_root(context, requests, where, [&] {
    if (recvbuf != kInPlace)
      coll::local_copy(coll::block(sendbuf, rank, sendcount, *sendtype), sendcount, *sendtype, recvbuf, recvcount,
                       *recvtype, where);
  });
}

}  // namespace twinfab::mpi
