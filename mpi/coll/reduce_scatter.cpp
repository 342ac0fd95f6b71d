// Reduce-scatter (MPI_Reduce_scatter, MPI_Reduce_scatter_block) by halving, or by a
// reduce then a scatterv. (The pairwise exchange, the long-message algorithm, is in
// pairwise.cpp.)
//
// reduce_scatterv: a binomial reduce of the whole vector to rank 0, then a linear
// scatterv of the blocks. 2 log2(n)-ish steps; the reduce moves the full vector at
// each level, so this is for small vectors, and for non-commutative ops: the reduce
// is rooted at rank 0, so it combines in rank order at no extra message
// (binomial.cpp).
//
// Recursive halving (MPICH's MPIR_Reduce_scatter_intra_recursive_halving, its choice
// for a commutative op below the long-message threshold): with p = 2^k <= n, the first
// 2*(n - p) ranks fold pairwise (the even one sends its vector to the odd one, which
// then also computes its partner's block and hands it back at the end); the p
// survivors halve the vector log2(p) times, at each step sending the half of their
// current range that the partner keeps (mask p/2, p/4, ...) and reducing the half
// they keep, so that each ends with its own block(s). The reductions meet the
// operands in the order the halving brings them: commutative ops only.
#include <bit>
#include <vector>

#include "mpi/coll/algorithms.hpp"
#include "mpi/coll/selection.hpp"

namespace twinfab::mpi::coll {

void add_reduce_scatter_reduce_scatterv(Schedule& s, const void* input, void* recvbuf,
                                        std::span<const std::int64_t> counts, std::span<const std::int64_t> displs,
                                        std::int64_t total, const DatatypePtr& type, const ReductionOp& op) {
  const int rank = s.rank();
  const std::int64_t own = counts[static_cast<std::size_t>(rank)];
  // The whole reduced vector lands in scratch at rank 0 (its recvbuf holds one
  // block); the reduce's messages are steps 0 and 1, the scatter's step 2.
  void* reduced = rank == 0 ? s.scratch(total, *type) : nullptr;
  add_reduce(s, input, reduced, total, type, op, 0);
  s.next_round();
  if (rank == 0)
    add_scatterv_from_root(s, reduced, counts, displs, type, recvbuf, own, type, 2);
  else
    s.recv(recvbuf, own, type, 0, 2);
}

void add_reduce_scatter_recursive_halving(Schedule& s, const void* input, void* recvbuf,
                                          std::span<const std::int64_t> counts,
                                          std::span<const std::int64_t> displs, std::int64_t total,
                                          const DatatypePtr& type, const ReductionOp& op) {
  const int n = s.size();
  const int rank = s.rank();
  const Datatype& t = *type;
  const auto u = [](int i) { return static_cast<std::size_t>(i); };
  void* results = s.scratch(total, t);
  void* incoming = s.scratch(total, t);
  s.copy(input, total, type, results, total, type);
  const int pof2 = power_of_two_floor(n);
  const int rem = n - pof2;
  const int levels = static_cast<int>(std::countr_zero(static_cast<unsigned>(pof2)));

  // Fold (step 0): the lower rank's vector is the left operand.
  int new_rank = rank - rem;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      s.send(results, total, type, rank + 1, 0);
      new_rank = -1;
    } else {
      s.recv(incoming, total, type, rank - 1, 0);
      s.next_round();
      s.reduce(op, incoming, results, total, type);
      new_rank = rank / 2;
    }
    s.next_round();
  }

  if (new_rank != -1) {
    // The survivors' blocks: new rank i computes the blocks of real rank old(i) and,
    // for a folded pair, of the even rank before it; they are consecutive.
    std::vector<std::int64_t> first(u(pof2) + 1, 0);
    for (int i = 0; i < pof2; ++i) {
      const int old = i < rem ? 2 * i + 1 : i + rem;
      const std::int64_t blocks = counts[u(old)] + (old < 2 * rem ? counts[u(old - 1)] : 0);
      first[u(i) + 1] = first[u(i)] + blocks;
    }
    const auto elements = [&](int from, int to) { return first[u(to)] - first[u(from)]; };
    // Halving (steps 1 .. k): [lo, hi) is the range of new blocks this rank still
    // reduces; the partner keeps the other half.
    int lo = 0;
    int hi = pof2;
    int step = 1;
    for (int mask = pof2 / 2; mask > 0; mask >>= 1, ++step) {
      const int partner_new = new_rank ^ mask;
      const int partner = partner_new < rem ? 2 * partner_new + 1 : partner_new + rem;
      const int mid = lo + mask;
      const int keep_lo = new_rank < partner_new ? lo : mid;
      const int keep_hi = new_rank < partner_new ? mid : hi;
      const int give_lo = new_rank < partner_new ? mid : lo;
      const int give_hi = new_rank < partner_new ? hi : mid;
      s.recv(at(incoming, first[u(keep_lo)], t), elements(keep_lo, keep_hi), type, partner, step);
      s.send(at(results, first[u(give_lo)], t), elements(give_lo, give_hi), type, partner, step);
      s.next_round();
      s.reduce(op, at(incoming, first[u(keep_lo)], t), at(results, first[u(keep_lo)], t), elements(keep_lo, keep_hi),
               type);
      lo = keep_lo;
      hi = keep_hi;
    }
    s.copy(at(results, displs[u(rank)], t), counts[u(rank)], type, recvbuf, counts[u(rank)], type);
  }
  // Unfold (step k + 1): the odd rank of a pair hands its partner its block.
  if (rank < 2 * rem) {
    if (rank % 2 == 1)
      s.send(at(results, displs[u(rank - 1)], t), counts[u(rank - 1)], type, rank - 1, levels + 1);
    else
      s.recv(recvbuf, counts[u(rank)], type, rank + 1, levels + 1);
  }
}

}  // namespace twinfab::mpi::coll
