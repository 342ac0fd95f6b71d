// The vector collectives (gatherv, scatterv, allgatherv, alltoallv): per-rank counts
// and displacements, with the algorithms of their fixed-size counterparts. Linear
// gatherv/scatterv through the root (every block goes straight between its place in
// the user's buffer and its rank), ring allgatherv (step s forwards the block
// received in step s-1; each block has its own count), pairwise-exchange alltoallv
// (step i sends to rank + i and receives from rank - i). The counts and displacements
// are read when the call is made: a nonblocking call's schedule holds what they said.
#include <algorithm>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

RequestId gatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                  void* recvbuf, std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> displs,
                  const DatatypePtr& recvtype, int root, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Gatherv", "MPI_Igatherv");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_gatherv(context, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                               comm, mode);
  const bool is_root = coll::check_gather_contribution(context, sendbuf, sendcount, sendtype, root, comm, where);
  const int n = comm.size();
  if (is_root) {
    coll::check_counts(recvcounts, displs, n, where, "recvcounts");
    for (int i = 0; i < n; ++i)
      coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(i)], recvtype, where, "recvbuf");
    coll::check_distinct(sendbuf, recvbuf, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Gatherv, where, mode);
  if (!is_root) {
    schedule->send(sendbuf, sendcount, sendtype, root);
    return coll::execute(context, std::move(schedule));
  }
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (i != root) schedule->recv(coll::at(recvbuf, displs[k], *recvtype), recvcounts[k], recvtype, i);
  }
  const auto me = static_cast<std::size_t>(root);
  if (sendbuf != kInPlace)
    schedule->copy(sendbuf, sendcount, sendtype, coll::at(recvbuf, displs[me], *recvtype), recvcounts[me], recvtype);
  return coll::execute(context, std::move(schedule));
}

namespace coll {

void add_scatterv_from_root(Schedule& schedule, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                            std::span<const std::int64_t> displs, const DatatypePtr& sendtype, void* recvbuf,
                            std::int64_t recvcount, const DatatypePtr& recvtype, int step) {
  const int root = schedule.comm().rank();
  for (int i = 0; i < schedule.comm().size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (i != root) schedule.send(at(sendbuf, displs[k], *sendtype), sendcounts[k], sendtype, i, step);
  }
  const auto me = static_cast<std::size_t>(root);
  if (recvbuf != kInPlace)
    schedule.copy(at(sendbuf, displs[me], *sendtype), sendcounts[me], sendtype, recvbuf, recvcount, recvtype);
}

}  // namespace coll

RequestId scatterv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                   std::span<const std::int64_t> displs, const DatatypePtr& sendtype, void* recvbuf,
                   std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Scatterv", "MPI_Iscatterv");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_scatterv(context, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                                comm, mode);
  const bool is_root = coll::check_scatter_destination(context, recvbuf, recvcount, recvtype, root, comm, where);
  const int n = comm.size();
  if (is_root) {
    coll::check_counts(sendcounts, displs, n, where, "sendcounts");
    for (int i = 0; i < n; ++i)
      coll::check_buffer(sendbuf, sendcounts[static_cast<std::size_t>(i)], sendtype, where, "sendbuf");
    coll::check_distinct(sendbuf, recvbuf, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Scatterv, where, mode);
  if (is_root)
    coll::add_scatterv_from_root(*schedule, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, 0);
  else
    schedule->recv(recvbuf, recvcount, recvtype, root);
  return coll::execute(context, std::move(schedule));
}

RequestId allgatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                     void* recvbuf, std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> displs,
                     const DatatypePtr& recvtype, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Allgatherv", "MPI_Iallgatherv");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_allgatherv(context, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                  mode);
  const int n = comm.size();
  const int rank = comm.rank();
  coll::check_counts(recvcounts, displs, n, where, "recvcounts");
  for (int i = 0; i < n; ++i)
    coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(i)], recvtype, where, "recvbuf");
  if (sendbuf != kInPlace) {
    coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
    coll::check_distinct(sendbuf, recvbuf, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Allgatherv, where, mode);
  const auto me = static_cast<std::size_t>(rank);
  if (sendbuf != kInPlace)
    schedule->copy(sendbuf, sendcount, sendtype, coll::at(recvbuf, displs[me], *recvtype), recvcounts[me], recvtype);
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const auto send_block = static_cast<std::size_t>((rank - step + n) % n);
    const auto recv_block = static_cast<std::size_t>((rank - step - 1 + n) % n);
    schedule->recv(coll::at(recvbuf, displs[recv_block], *recvtype), recvcounts[recv_block], recvtype, left, step);
    schedule->send(coll::at(recvbuf, displs[send_block], *recvtype), recvcounts[send_block], recvtype, right, step);
    schedule->next_round();
  }
  return coll::execute(context, std::move(schedule));
}

RequestId alltoallv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                    std::span<const std::int64_t> sdispls, const DatatypePtr& sendtype, void* recvbuf,
                    std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                    const DatatypePtr& recvtype, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Alltoallv", "MPI_Ialltoallv");
  context.check_comm(comm, where);
  if (comm.is_inter()) {
    reject_in_place(sendbuf, where, "sendbuf");  // not on an intercommunicator
    const std::vector<DatatypePtr> sendtypes(static_cast<std::size_t>(comm.peer_count()), sendtype);
    const std::vector<DatatypePtr> recvtypes(static_cast<std::size_t>(comm.peer_count()), recvtype);
    return coll::inter_alltoallw(context, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                 recvtypes, false, comm, mode, where);
  }
  const int n = comm.size();
  const int rank = comm.rank();
  coll::check_counts(recvcounts, rdispls, n, where, "recvcounts");
  for (int i = 0; i < n; ++i)
    coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(i)], recvtype, where, "recvbuf");
  if (sendbuf != kInPlace) {
    coll::check_counts(sendcounts, sdispls, n, where, "sendcounts");
    for (int i = 0; i < n; ++i)
      coll::check_buffer(sendbuf, sendcounts[static_cast<std::size_t>(i)], sendtype, where, "sendbuf");
    coll::check_distinct(sendbuf, recvbuf, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Alltoallv, where, mode);
  // In place: the outgoing blocks are recvbuf's (recvcounts, rdispls, recvtype), which
  // the exchange overwrites, so they are first copied out, each to the same relative
  // place in a scratch buffer spanning them all.
  const void* send = sendbuf;
  std::span<const std::int64_t> send_counts = sendcounts;
  std::span<const std::int64_t> send_displs = sdispls;
  DatatypePtr send_type = sendtype;
  if (sendbuf == kInPlace) {
    std::int64_t span = 0;
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      span = std::max<std::int64_t>(span, static_cast<std::int64_t>(rdispls[k]) + recvcounts[k]);
    }
    void* outgoing = schedule->scratch(span, *recvtype);
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      schedule->copy(coll::at(recvbuf, rdispls[k], *recvtype), recvcounts[k], recvtype,
                     coll::at(outgoing, rdispls[k], *recvtype), recvcounts[k], recvtype);
    }
    send = outgoing;
    send_counts = recvcounts;
    send_displs = rdispls;
    send_type = recvtype;
  }
  const auto me = static_cast<std::size_t>(rank);
  schedule->copy(coll::at(send, send_displs[me], *send_type), send_counts[me], send_type,
                 coll::at(recvbuf, rdispls[me], *recvtype), recvcounts[me], recvtype);
  for (int step = 1; step < n; ++step) {
    const auto dest = static_cast<std::size_t>((rank + step) % n);
    const auto source = static_cast<std::size_t>((rank - step + n) % n);
    schedule->recv(coll::at(recvbuf, rdispls[source], *recvtype), recvcounts[source], recvtype,
                   static_cast<int>(source), step);
    schedule->send(coll::at(send, send_displs[dest], *send_type), send_counts[dest], send_type,
                   static_cast<int>(dest), step);
    schedule->next_round();
  }
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
