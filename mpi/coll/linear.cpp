// Linear gather and scatter: the root posts one receive (gather) or send (scatter)
// per rank, all at once, and waits for them together; the other ranks do one send or
// receive. n-1 messages through the root, which the engine overlaps; with derived
// datatypes each block goes straight from or to its place in the user's buffer, so
// no intermediate rank has to repack another's data (what a binomial tree would).
// The root's own block is copied in the same round: an error of that copy (its block
// truncated) is reported once every transfer has ended.
#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

RequestId gather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                 void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                 const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Gather", "MPI_Igather");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_gather(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, mode);
  const bool is_root = coll::check_gather_contribution(context, sendbuf, sendcount, sendtype, root, comm, where);
  const int n = comm.size();
  if (is_root) {
    coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
    if (sendbuf != kInPlace)
      coll::check_no_alias(sendbuf, sendcount, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Gather, where, mode);
  if (!is_root) {
    schedule->send(sendbuf, sendcount, sendtype, root);
    return coll::execute(context, std::move(schedule));
  }
  for (int i = 0; i < n; ++i) {
    if (i != root) schedule->recv(coll::block(recvbuf, i, recvcount, *recvtype), recvcount, recvtype, i);
  }
  if (sendbuf != kInPlace)
    schedule->copy(sendbuf, sendcount, sendtype, coll::block(recvbuf, root, recvcount, *recvtype), recvcount,
                   recvtype);
  return coll::execute(context, std::move(schedule));
}

RequestId scatter(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                  void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                  const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Scatter", "MPI_Iscatter");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_scatter(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, mode);
  const bool is_root = coll::check_scatter_destination(context, recvbuf, recvcount, recvtype, root, comm, where);
  const int n = comm.size();
  if (is_root) {
    coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", n);
    if (recvbuf != kInPlace)
      coll::check_no_alias(sendbuf, sendcount * n, *sendtype, recvbuf, recvcount, *recvtype, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Scatter, where, mode);
  if (!is_root) {
    schedule->recv(recvbuf, recvcount, recvtype, root);
    return coll::execute(context, std::move(schedule));
  }
  for (int i = 0; i < n; ++i) {
    if (i != root) schedule->send(coll::block(sendbuf, i, sendcount, *sendtype), sendcount, sendtype, i);
  }
  if (recvbuf != kInPlace)
    schedule->copy(coll::block(sendbuf, root, sendcount, *sendtype), sendcount, sendtype, recvbuf, recvcount,
                   recvtype);
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
