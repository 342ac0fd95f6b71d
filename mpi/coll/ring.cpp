// Ring allgather: in step s (0 <= s < n-1) every rank sends to its right neighbour
// the block it received in the previous step (its own block first) and receives the
// block of rank - s - 1 from its left neighbour. n-1 steps, each moving one block per
// link, so every link carries (n-1)/n of the data: bandwidth-optimal for large blocks.
#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

namespace coll {

void add_allgather_ring(Schedule& s, void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype) {
  const int n = s.size();
  const int rank = s.rank();
  const Datatype& t = *recvtype;
  if (n == 1 || recvcount == 0 || t.size() == 0) return;
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int send_block = (rank - step + n) % n;
    const int recv_block = (rank - step - 1 + n) % n;
    s.recv(block(recvbuf, recv_block, recvcount, t), recvcount, recvtype, left, step);
    s.send(block(recvbuf, send_block, recvcount, t), recvcount, recvtype, right, step);
    s.next_round();
  }
}

}  // namespace coll
}  // namespace twinfab::mpi
