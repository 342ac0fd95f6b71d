// The vector collectives (gatherv, scatterv, allgatherv, alltoallv): per-rank counts
// and displacements, with the algorithms of their fixed-size counterparts. Linear
// gatherv/scatterv through the root (every block goes straight between its place in
// the user's buffer and its rank), ring allgatherv (step s forwards the block
// received in step s-1; each block has its own count), pairwise-exchange alltoallv
// (step i sends to rank + i and receives from rank - i).
#include <fmt/format.h>

#include <vector>

#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void gatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
             void* recvbuf, std::span<const int> recvcounts, std::span<const int> displs, const DatatypePtr& recvtype,
             int root, const Communicator& comm) {
  const char* where = "MPI_Gatherv";
  if (coll::gather_contribute(context, sendbuf, sendcount, sendtype, root, comm, coll::Kind::Gatherv, where)) return;
  const int rank = comm.rank();  // the root
  const int n = comm.size();
  coll::check_counts(recvcounts, displs, n, where, "recvcounts");
  for (int i = 0; i < n; ++i) coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(i)], recvtype, where, "recvbuf");
  coll::check_distinct(sendbuf, recvbuf, where);
  std::vector<RequestId> requests;
  requests.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (i == rank) continue;
    const auto k = static_cast<std::size_t>(i);
    requests.push_back(context.coll_irecv(coll::at(recvbuf, displs[k], *recvtype), recvcounts[k], recvtype, i,
                                          coll::tag(coll::Kind::Gatherv), comm, where));
  }
  const auto me = static_cast<std::size_t>(rank);
  coll::finish_at_root(context, requests, where, [&] {
    if (sendbuf != kInPlace)
      coll::local_copy(sendbuf, sendcount, *sendtype, coll::at(recvbuf, displs[me], *recvtype), recvcounts[me],
                       *recvtype, where);
  });
}

void scatterv(Context& context, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
              const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
              const Communicator& comm) {
  const char* where = "MPI_Scatterv";
  if (coll::scatter_receive(context, recvbuf, recvcount, recvtype, root, comm, coll::Kind::Scatterv, where)) return;
  const int rank = comm.rank();  // the root
  const int n = comm.size();
  coll::check_counts(sendcounts, displs, n, where, "sendcounts");
  for (int i = 0; i < n; ++i) coll::check_buffer(sendbuf, sendcounts[static_cast<std::size_t>(i)], sendtype, where, "sendbuf");
  coll::check_distinct(sendbuf, recvbuf, where);
  std::vector<RequestId> requests;
  requests.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (i == rank) continue;
    const auto k = static_cast<std::size_t>(i);
    requests.push_back(context.coll_isend(coll::at(sendbuf, displs[k], *sendtype), sendcounts[k], sendtype, i,
                                          coll::tag(coll::Kind::Scatterv), comm, where));
  }
  const auto me = static_cast<std::size_t>(rank);
  coll::finish_at_root(context, requests, where, [&] {
    if (recvbuf != kInPlace)
      coll::local_copy(coll::at(sendbuf, displs[me], *sendtype), sendcounts[me], *sendtype, recvbuf, recvcount,
                       *recvtype, where);
  });
}

void allgatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                void* recvbuf, std::span<const int> recvcounts, std::span<const int> displs,
                const DatatypePtr& recvtype, const Communicator& comm) {
  const char* where = "MPI_Allgatherv";
  context.check_comm(comm, where);
  const int n = comm.size();
  const int rank = comm.rank();
  coll::check_counts(recvcounts, displs, n, where, "recvcounts");
  for (int i = 0; i < n; ++i) coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(i)], recvtype, where, "recvbuf");
  const auto me = static_cast<std::size_t>(rank);
  if (sendbuf != kInPlace) {
    coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
    coll::check_distinct(sendbuf, recvbuf, where);
    coll::local_copy(sendbuf, sendcount, *sendtype, coll::at(recvbuf, displs[me], *recvtype), recvcounts[me],
                     *recvtype, where);
  }
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const auto send_block = static_cast<std::size_t>((rank - step + n) % n);
    const auto recv_block = static_cast<std::size_t>((rank - step - 1 + n) % n);
    coll::sendrecv(context, coll::at(recvbuf, displs[send_block], *recvtype), recvcounts[send_block], recvtype, right,
                   coll::at(recvbuf, displs[recv_block], *recvtype), recvcounts[recv_block], recvtype, left,
                   coll::tag(coll::Kind::Allgatherv, step), comm, where);
  }
}

void alltoallv(Context& context, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
               const DatatypePtr& sendtype, void* recvbuf, std::span<const int> recvcounts,
               std::span<const int> rdispls, const DatatypePtr& recvtype, const Communicator& comm) {
  const char* where = "MPI_Alltoallv";
  context.check_comm(comm, where);
  const int n = comm.size();
  const int rank = comm.rank();
  coll::check_counts(recvcounts, rdispls, n, where, "recvcounts");
  for (int i = 0; i < n; ++i) coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(i)], recvtype, where, "recvbuf");
  // In place: the outgoing blocks are recvbuf's (recvcounts, rdispls, recvtype), which
  // the exchange overwrites, so they are first copied out, each to the same relative
  // place in a scratch buffer spanning them all.
  const void* send = sendbuf;
  std::span<const int> send_counts = sendcounts;
  std::span<const int> send_displs = sdispls;
  DatatypePtr send_type = sendtype;
  std::int64_t span = 0;
  if (sendbuf == kInPlace) {
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      span = std::max<std::int64_t>(span, static_cast<std::int64_t>(rdispls[k]) + recvcounts[k]);
    }
  }
  coll::TempBuffer outgoing(span, *recvtype);
  if (sendbuf == kInPlace) {
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      coll::local_copy(coll::at(recvbuf, rdispls[k], *recvtype), recvcounts[k], *recvtype,
                       coll::at(outgoing.data(), rdispls[k], *recvtype), recvcounts[k], *recvtype, where);
    }
    send = outgoing.data();
    send_counts = recvcounts;
    send_displs = rdispls;
    send_type = recvtype;
  } else {
    coll::check_counts(sendcounts, sdispls, n, where, "sendcounts");
    for (int i = 0; i < n; ++i) coll::check_buffer(sendbuf, sendcounts[static_cast<std::size_t>(i)], sendtype, where, "sendbuf");
    coll::check_distinct(sendbuf, recvbuf, where);
  }
  const auto me = static_cast<std::size_t>(rank);
  coll::local_copy(coll::at(send, send_displs[me], *send_type), send_counts[me], *send_type,
                   coll::at(recvbuf, rdispls[me], *recvtype), recvcounts[me], *recvtype, where);
  for (int step = 1; step < n; ++step) {
    const auto dest = static_cast<std::size_t>((rank + step) % n);
    const auto source = static_cast<std::size_t>((rank - step + n) % n);
    coll::sendrecv(context, coll::at(send, send_displs[dest], *send_type), send_counts[dest], send_type,
                   static_cast<int>(dest), coll::at(recvbuf, rdispls[source], *recvtype), recvcounts[source], recvtype,
                   static_cast<int>(source), coll::tag(coll::Kind::Alltoallv, step), comm, where);
  }
}

}  // namespace twinfab::mpi
