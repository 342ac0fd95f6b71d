// Bruck's algorithms (Bruck, Ho, Kipnis, Upfal and Weathersby 1997; MPICH's
// MPIR_Allgather_intra_brucks and MPIR_Alltoall_intra_brucks): ceil(log2 n) steps for
// any n, at the price of local rotations, for short messages where the number of
// steps is what costs.
//
// Allgather: a scratch vector whose block i is rank (rank + i) % n's. It starts with
// the own block; at step k every rank sends its first 2^k blocks to rank - 2^k and
// receives rank + 2^k's first 2^k after them (the last step only the blocks still
// missing), then rotates the vector into place.
//
// Alltoall: the outgoing blocks rotated so that block i is for rank (rank + i) % n; at
// step k every rank sends the blocks whose index has bit k set to rank + 2^k (one
// message, described by an hindexed-block datatype over the scratch vector, so no
// packing of our own), receives the same positions from rank - 2^k, and after the
// last step block i holds what rank - i sent it: the inverse rotation puts it in
// place.
#include <vector>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi::coll {

void add_allgather_bruck(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                         void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype) {
  const int n = s.size();
  const int rank = s.rank();
  const Datatype& t = *recvtype;
  if (n == 1 || recvcount == 0 || t.size() == 0) {
    if (sendbuf != kInPlace) s.copy(sendbuf, sendcount, sendtype, block(recvbuf, rank, recvcount, t), recvcount, recvtype);
    return;
  }
  void* gathered = s.scratch(n * recvcount, t);
  if (sendbuf != kInPlace)
    s.copy(sendbuf, sendcount, sendtype, gathered, recvcount, recvtype);
  else
    s.copy(block(recvbuf, rank, recvcount, t), recvcount, recvtype, gathered, recvcount, recvtype);
  int step = 0;
  int have = 1;
  for (; have * 2 <= n; have *= 2, ++step) {
    s.recv(block(gathered, have, recvcount, t), have * recvcount, recvtype, (rank + have) % n, step);
    s.send(gathered, have * recvcount, recvtype, (rank - have + n) % n, step);
    s.next_round();
  }
  if (const int missing = n - have; missing > 0) {
    s.recv(block(gathered, have, recvcount, t), missing * recvcount, recvtype, (rank + have) % n, step);
    s.send(gathered, missing * recvcount, recvtype, (rank - have + n) % n, step);
    s.next_round();
  }
  // Block i is rank (rank + i)'s: two runs.
  s.copy(gathered, (n - rank) * recvcount, recvtype, block(recvbuf, rank, recvcount, t), (n - rank) * recvcount,
         recvtype);
  if (rank > 0)
    s.copy(block(gathered, n - rank, recvcount, t), rank * recvcount, recvtype, recvbuf, rank * recvcount, recvtype);
}

void add_alltoall_bruck(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype) {
  const int n = s.size();
  const int rank = s.rank();
  const Datatype& t = *recvtype;
  // In place the outgoing blocks are recvbuf's; they are all copied out first.
  const void* out = sendbuf == kInPlace ? recvbuf : sendbuf;
  const std::int64_t out_count = sendbuf == kInPlace ? recvcount : sendcount;
  const DatatypePtr& out_type = sendbuf == kInPlace ? recvtype : sendtype;
  if (n == 1 || recvcount == 0 || t.size() == 0) {
    if (sendbuf != kInPlace) s.copy(out, out_count, out_type, recvbuf, recvcount, recvtype);
    return;
  }
  void* blocks = s.scratch(n * recvcount, t);
  void* arrived = s.scratch(n * recvcount, t);
  // Block i of `blocks` is for rank (rank + i) % n.
  s.copy(block(out, rank, out_count, *out_type), (n - rank) * out_count, out_type, blocks, (n - rank) * recvcount,
         recvtype);
  if (rank > 0)
    s.copy(out, rank * out_count, out_type, block(blocks, n - rank, recvcount, t), rank * recvcount, recvtype);
  int step = 0;
  for (int bit = 1; bit < n; bit <<= 1, ++step) {
    std::vector<std::int64_t> displacements;
    for (int i = 1; i < n; ++i)
      if (i & bit) displacements.push_back(i * recvcount * t.extent());
    DatatypePtr positions = Datatype::hindexed_block(recvcount, displacements, recvtype);
    positions->commit();
    s.recv(arrived, 1, positions, (rank - bit + n) % n, step);
    s.send(blocks, 1, positions, (rank + bit) % n, step);
    s.next_round();
    s.copy(arrived, 1, positions, blocks, 1, positions);
  }
  // Block i came from rank - i.
  for (int i = 0; i < n; ++i)
    s.copy(block(blocks, i, recvcount, t), recvcount, recvtype, block(recvbuf, (rank - i + n) % n, recvcount, t),
           recvcount, recvtype);
}

}  // namespace twinfab::mpi::coll
