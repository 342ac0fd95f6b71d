// Exchanges with every other rank, for alltoall and reduce-scatter.
//
// Pairwise alltoall: in step i (1 <= i < n) every rank sends its block for rank + i
// and receives the block from rank - i. Each step is a permutation, so no rank is
// flooded (unlike posting all n-1 sends at once), and every step keeps all links
// busy; n-1 steps. MPICH's long-message alltoall.
//
// Scattered alltoall (MPICH's MPIR_Alltoall_intra_scattered, its medium-message one):
// the receives from and sends to `throttle` peers at a time are posted together, in
// rounds, so that many transfers overlap without every rank posting n - 1 at once.
//
// Pairwise reduce-scatter (MPICH's MPIR_Reduce_scatter_intra_pairwise, its
// long-message one for a commutative op): in step i every rank sends rank + i its
// block of the input and receives its own block from rank - i, reducing it into an
// accumulator. Each rank moves its input once; the order of the operands is rank -
// 1, rank - 2, ... (commutative ops only), the same on every run.
#include <algorithm>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi::coll {

namespace {

/// The outgoing blocks: sendbuf's, or in place a scratch copy of recvbuf's (the
/// exchange overwrites them; MPI_IN_PLACE saves the user a buffer, not us).
struct Outgoing {
  const void* data;
  std::int64_t count;
  DatatypePtr type;
};
Outgoing outgoing(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype, void* recvbuf,
                  std::int64_t recvcount, const DatatypePtr& recvtype) {
  const int n = s.size();
  if (sendbuf != kInPlace) return {sendbuf, sendcount, sendtype};
  void* copy = s.scratch(recvcount * n, *recvtype);
  s.copy(recvbuf, recvcount * n, recvtype, copy, recvcount * n, recvtype);
  return {copy, recvcount, recvtype};
}

}  // namespace

void add_alltoall_pairwise(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                           void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype) {
  const int n = s.size();
  const int rank = s.rank();
  const Outgoing out = outgoing(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  s.copy(block(out.data, rank, out.count, *out.type), out.count, out.type, block(recvbuf, rank, recvcount, *recvtype),
         recvcount, recvtype);
  for (int step = 1; step < n; ++step) {
    const int dest = (rank + step) % n;
    const int source = (rank - step + n) % n;
    s.recv(block(recvbuf, source, recvcount, *recvtype), recvcount, recvtype, source, step);
    s.send(block(out.data, dest, out.count, *out.type), out.count, out.type, dest, step);
    s.next_round();
  }
}

void add_alltoall_scattered(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                            void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int throttle) {
  const int n = s.size();
  const int rank = s.rank();
  const Outgoing out = outgoing(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  s.copy(block(out.data, rank, out.count, *out.type), out.count, out.type, block(recvbuf, rank, recvcount, *recvtype),
         recvcount, recvtype);
  const int batch = throttle <= 0 ? n : throttle;
  // Batch b exchanges with ranks rank + b*batch + i (receives) and rank - b*batch - i
  // (sends), i < batch: the partners of one message are in the same batch.
  int step = 0;
  for (int first = 0; first < n; first += batch, ++step) {
    const int size = std::min(n - first, batch);
    for (int i = 0; i < size; ++i) {
      const int source = (rank + first + i) % n;
      if (source != rank) s.recv(block(recvbuf, source, recvcount, *recvtype), recvcount, recvtype, source, step);
    }
    for (int i = 0; i < size; ++i) {
      const int dest = (rank - first - i + n) % n;
      if (dest != rank) s.send(block(out.data, dest, out.count, *out.type), out.count, out.type, dest, step);
    }
    s.next_round();
  }
}

void add_reduce_scatter_pairwise(Schedule& s, const void* input, void* recvbuf, std::span<const std::int64_t> counts,
                                 std::span<const std::int64_t> displs, const DatatypePtr& type,
                                 const ReductionOp& op) {
  const int n = s.size();
  const int rank = s.rank();
  const Datatype& t = *type;
  const auto u = [](int i) { return static_cast<std::size_t>(i); };
  const std::int64_t own = counts[u(rank)];
  // The accumulator is scratch: in place the input is recvbuf, whose other blocks
  // are still to be sent.
  void* sum = s.scratch(own, t);
  void* incoming = s.scratch(own, t);
  s.copy(at(input, displs[u(rank)], t), own, type, sum, own, type);
  for (int step = 1; step < n; ++step) {
    const int source = (rank - step + n) % n;
    const int dest = (rank + step) % n;
    s.recv(incoming, own, type, source, step);
    s.send(at(input, displs[u(dest)], t), counts[u(dest)], type, dest, step);
    s.next_round();
    s.reduce(op, incoming, sum, own, type);
  }
  s.copy(sum, own, type, recvbuf, own, type);
}

}  // namespace twinfab::mpi::coll
