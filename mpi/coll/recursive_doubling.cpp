// Allreduce by recursive doubling (Thakur, Rabenseifner and Gropp 2005; MPICH's
// MPIR_Allreduce_intra_recursive_doubling).
//
// With p = 2^k the largest power of two <= n and rem = n - p: among the first 2*rem
// ranks, each even rank sends its input to the odd rank after it and sits out; the
// odd ones continue as "new rank" rank/2, the rest as rank - rem. The p survivors then
// exchange full buffers with the partner new_rank ^ mask for mask = 1, 2, ... p/2 and
// reduce; finally each odd survivor hands the result back to the even rank it folded.
// log2(p) + 2 steps at most, every step a full-buffer exchange.
//
// Each pair reduces as (lower rank's data) op (higher rank's data), the lower one's as
// the left operand, on both sides, so all ranks end with identical results, and a
// non-commutative op sees its operands in rank order: a survivor's data covers a run
// of ascending ranks (new ranks keep the order of the ranks they stand for), and its
// partner's run lies wholly below or above it.
//
// Allgather by recursive doubling (MPICH's MPIR_Allgather_intra_recursive_doubling), on
// a power of two of ranks only (MPICH 4 falls back otherwise, and so does the
// selection here): at the step of mask m, partners rank and rank ^ m swap the aligned
// runs of m blocks they hold, so log2(n) steps move the n - 1 missing blocks.
#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

namespace coll {

void add_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
                   const ReductionOp& op) {
  if (count == 0 || type->size() == 0) return;
  if (sendbuf != kInPlace) s.copy(sendbuf, count, type, recvbuf, count, type);

  const int n = s.size();
  const int rank = s.rank();
  if (n == 1) return;
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  void* incoming = s.scratch(count, *type);
  int step = 0;

  // Fold: the first 2*rem ranks pair up so that a power of two remains.
  int new_rank;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      s.send(recvbuf, count, type, rank + 1, step);
      s.next_round();
      new_rank = -1;
    } else {
      s.recv(incoming, count, type, rank - 1, step);
      s.next_round();
      s.reduce(op, incoming, recvbuf, count, type);
      new_rank = rank / 2;
    }
  } else {
    new_rank = rank - rem;
  }
  ++step;

  if (new_rank != -1) {
    for (int mask = 1; mask < pof2; mask <<= 1, ++step) {
      const int new_partner = new_rank ^ mask;
      const int partner = new_partner < rem ? new_partner * 2 + 1 : new_partner + rem;
      s.recv(incoming, count, type, partner, step);
      s.send(recvbuf, count, type, partner, step);
      s.next_round();
      // Always combine as (lower rank's data) op (higher rank's data), with the same
      // buffer roles on both sides, so both hold bit-identical results even for
      // floating point. One side copies either way.
      if (partner < rank) {
        // result = partner's (lower) op mine: straight into mine.
        s.reduce(op, incoming, recvbuf, count, type);
      } else {
        // result = mine op partner's (higher): into theirs, then copied back.
        s.reduce(op, recvbuf, incoming, count, type);
        s.copy(incoming, count, type, recvbuf, count, type);
      }
    }
  } else {
    // Sat out; keep the step numbering in line with the survivors'.
    int mask = 1;
    while (mask < pof2) mask <<= 1, ++step;
  }

  // Unfold: odd survivors of the fold give the result to their even partner.
  if (rank < 2 * rem) {
    if (rank % 2 == 1)
      s.send(recvbuf, count, type, rank - 1, step);
    else
      s.recv(recvbuf, count, type, rank + 1, step);
  }
}

void add_allgather_recursive_doubling(Schedule& s, void* recvbuf, std::int64_t recvcount,
                                      const DatatypePtr& recvtype) {
  const int n = s.size();
  const int rank = s.rank();
  const Datatype& t = *recvtype;
  if (n == 1 || recvcount == 0 || t.size() == 0) return;
  int step = 0;
  for (int mask = 1; mask < n; mask <<= 1, ++step) {
    const int partner = rank ^ mask;
    const int mine = rank & ~(mask - 1);
    const int theirs = partner & ~(mask - 1);
    s.recv(block(recvbuf, theirs, recvcount, t), mask * recvcount, recvtype, partner, step);
    s.send(block(recvbuf, mine, recvcount, t), mask * recvcount, recvtype, partner, step);
    s.next_round();
  }
}

}  // namespace coll
}  // namespace twinfab::mpi
