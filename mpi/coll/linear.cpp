// Linear gather and scatter: the root posts one receive (gather) or send (scatter)
// per rank, all at once, and waits for them together; the other ranks do one send or
// receive. n-1 messages through the root, which the engine overlaps; with derived
// datatypes each block goes straight from or to its place in the user's buffer, so
// no intermediate rank has to repack another's data (what a binomial tree would).
// The root's own block is copied in the same round: an error of that copy (its block
// truncated) is reported once every transfer has ended.
#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi::coll {

void add_gather_linear(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                       void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root) {
  const int n = s.size();
  if (s.rank() != root) {
    s.send(sendbuf, sendcount, sendtype, root);
    return;
  }
  for (int i = 0; i < n; ++i) {
    if (i != root) s.recv(block(recvbuf, i, recvcount, *recvtype), recvcount, recvtype, i);
  }
  if (sendbuf != kInPlace)
    s.copy(sendbuf, sendcount, sendtype, block(recvbuf, root, recvcount, *recvtype), recvcount, recvtype);
}

void add_scatter_linear(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root) {
  const int n = s.size();
  if (s.rank() != root) {
    s.recv(recvbuf, recvcount, recvtype, root);
    return;
  }
  for (int i = 0; i < n; ++i) {
    if (i != root) s.send(block(sendbuf, i, sendcount, *sendtype), sendcount, sendtype, i);
  }
  if (recvbuf != kInPlace)
    s.copy(block(sendbuf, root, sendcount, *sendtype), sendcount, sendtype, recvbuf, recvcount, recvtype);
}

}  // namespace twinfab::mpi::coll
