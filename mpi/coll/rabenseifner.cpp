// Rabenseifner's long-vector reductions (Thakur, Rabenseifner and Gropp 2005; MPICH's
// MPIR_Allreduce_intra_reduce_scatter_allgather and MPIR_Reduce_intra_reduce_scatter_gather):
// a reduce-scatter by recursive halving, then an allgather by recursive doubling
// (allreduce) or a binomial gather of the pieces to the root (reduce). Each rank sends
// and receives about 2 (n-1)/n of the vector instead of log2(n) whole vectors.
//
// With p = 2^k the largest power of two <= n and rem = n - p, the first 2*rem ranks
// fold first: each even one sends its vector to the odd rank after it, which reduces
// and stands for both as "new rank" rank/2; the others are new rank rank - rem. The
// vector is cut into p chunks (count/p elements, one more for the first count % p).
// At each halving step a survivor keeps half of its current range of chunks, sends
// the other half to its partner (new rank ^ mask, mask = 1, 2, ..., p/2) and reduces
// the partner's copy of the half it keeps; partners always hold the same range, so
// after k steps each survivor owns one chunk, fully reduced. The allgather undoes the
// halving in reverse; the gather sends each range towards the root instead, and a
// folded-out root first takes over its survivor's chunk (MPICH's trick, so the
// result needs no extra whole-vector message).
//
// The reductions combine in whatever order the halving meets the operands, so these
// serve commutative ops only, and need count >= p (every chunk non-empty): the
// selection (selection.hpp) sees to both. Each chunk is reduced at one rank and then
// copied, so every rank ends with the same bits, and the order is fixed by the ranks
// alone: no result depends on timing.
#include <bit>
#include <vector>

#include "mpi/coll/algorithms.hpp"
#include "mpi/coll/selection.hpp"

namespace twinfab::mpi::coll {

namespace {

/// The fold and the halving levels as seen from one new rank.
struct Halving {
  int pof2 = 1;
  int rem = 0;
  /// Element offset of chunk i (pof2 + 1 entries).
  std::vector<std::int64_t> chunk;
  struct Level {
    int partner;  ///< new rank
    int keep_lo, keep_hi, give_lo, give_hi;  ///< chunk ranges [lo, hi)
  };
  std::vector<Level> levels;  ///< in halving order (mask 1, 2, ...)

  Halving(int n, std::int64_t count) : pof2(power_of_two_floor(n)), rem(n - pof2) {
    chunk.resize(static_cast<std::size_t>(pof2) + 1);
    for (int i = 0; i < pof2; ++i)
      chunk[static_cast<std::size_t>(i) + 1] =
          chunk[static_cast<std::size_t>(i)] + count / pof2 + (i < count % pof2 ? 1 : 0);
  }
  /// The levels of new rank `new_rank`.
  void plan(int new_rank) {
    levels.clear();
    int lo = 0;
    int hi = pof2;
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int partner = new_rank ^ mask;
      const int mid = (lo + hi) / 2;
      if (new_rank < partner)
        levels.push_back({partner, lo, mid, mid, hi});
      else
        levels.push_back({partner, mid, hi, lo, mid});
      lo = levels.back().keep_lo;
      hi = levels.back().keep_hi;
    }
  }
  /// The real rank of new rank r: the odd one of a folded pair.
  int real(int r) const { return r < rem ? 2 * r + 1 : r + rem; }
  /// The new rank of real rank `rank`, -1 for a folded-out (even) one.
  int new_rank(int rank) const {
    if (rank < 2 * rem) return rank % 2 == 0 ? -1 : rank / 2;
    return rank - rem;
  }
  std::int64_t offset(int lo) const { return chunk[static_cast<std::size_t>(lo)]; }
  std::int64_t count(int lo, int hi) const { return chunk[static_cast<std::size_t>(hi)] - offset(lo); }
};

/// The fold (step 0): even ranks below 2*rem send `work` to the next rank, which
/// reduces it into its own (the lower rank's as the left operand).
void fold(Schedule& s, const Halving& h, void* work, void* incoming, std::int64_t count, const DatatypePtr& type,
          const ReductionOp& op) {
  const int rank = s.rank();
  if (rank >= 2 * h.rem) return;
  if (rank % 2 == 0) {
    s.send(work, count, type, rank + 1, 0);
  } else {
    s.recv(incoming, count, type, rank - 1, 0);
    s.next_round();
    s.reduce(op, incoming, work, count, type);
  }
  s.next_round();
}

/// The halving (steps 1 .. k): afterwards this survivor's last level's keep range of
/// `work` holds that range fully reduced.
void halve(Schedule& s, const Halving& h, void* work, void* incoming, const DatatypePtr& type,
           const ReductionOp& op) {
  const Datatype& t = *type;
  int step = 1;
  for (const Halving::Level& level : h.levels) {
    const int peer = h.real(level.partner);
    const std::int64_t keep = h.count(level.keep_lo, level.keep_hi);
    s.recv(at(incoming, h.offset(level.keep_lo), t), keep, type, peer, step);
    s.send(at(work, h.offset(level.give_lo), t), h.count(level.give_lo, level.give_hi), type, peer, step);
    s.next_round();
    s.reduce(op, at(incoming, h.offset(level.keep_lo), t), at(work, h.offset(level.keep_lo), t), keep, type);
    ++step;
  }
}

}  // namespace

void add_allreduce_rabenseifner(Schedule& s, const void* sendbuf, void* recvbuf, std::int64_t count,
                                const DatatypePtr& type, const ReductionOp& op) {
  if (count == 0 || type->size() == 0) return;
  if (sendbuf != kInPlace) s.copy(sendbuf, count, type, recvbuf, count, type);
  const int n = s.size();
  const int rank = s.rank();
  if (n == 1) return;
  Halving h(n, count);
  void* incoming = s.scratch(count, *type);
  fold(s, h, recvbuf, incoming, count, type, op);
  const int me = h.new_rank(rank);
  const int levels = static_cast<int>(std::countr_zero(static_cast<unsigned>(h.pof2)));
  if (me != -1) {
    h.plan(me);
    halve(s, h, recvbuf, incoming, type, op);
    // The allgather (steps k+1 .. 2k): the halving backwards, whole ranges swapped.
    const Datatype& t = *type;
    int step = levels + 1;
    for (auto level = h.levels.rbegin(); level != h.levels.rend(); ++level, ++step) {
      const int peer = h.real(level->partner);
      s.recv(at(recvbuf, h.offset(level->give_lo), t), h.count(level->give_lo, level->give_hi), type, peer, step);
      s.send(at(recvbuf, h.offset(level->keep_lo), t), h.count(level->keep_lo, level->keep_hi), type, peer, step);
      s.next_round();
    }
  }
  // Unfold (step 2k+1): each odd survivor of the fold gives the result to its partner.
  const int unfold = 2 * levels + 1;
  if (rank < 2 * h.rem) {
    if (rank % 2 == 1)
      s.send(recvbuf, count, type, rank - 1, unfold);
    else
      s.recv(recvbuf, count, type, rank + 1, unfold);
  }
}

void add_reduce_rabenseifner(Schedule& s, const void* input, void* result_at_root, std::int64_t count,
                             const DatatypePtr& type, const ReductionOp& op, int root) {
  if (count == 0 || type->size() == 0) return;
  const int n = s.size();
  const int rank = s.rank();
  const bool is_root = rank == root;
  // The root works in its result buffer; everyone else in scratch.
  void* work = is_root ? result_at_root : s.scratch(count, *type);
  if (input != work) s.copy(input, count, type, work, count, type);
  if (n == 1) return;
  Halving h(n, count);
  void* incoming = s.scratch(count, *type);
  fold(s, h, work, incoming, count, type, op);
  const int levels = static_cast<int>(std::countr_zero(static_cast<unsigned>(h.pof2)));
  const Datatype& t = *type;

  int me = h.new_rank(rank);
  if (me != -1) {
    h.plan(me);
    halve(s, h, work, incoming, type, op);
  }
  // A folded-out root takes the place of the survivor that stands for it (step k+1):
  // that one hands over the chunk it owns and leaves.
  const bool takeover = h.new_rank(root) == -1;
  const int new_root = takeover ? root / 2 : h.new_rank(root);
  const int handover = levels + 1;
  if (takeover && rank == root + 1) {
    const Halving::Level& last = h.levels.back();
    s.send(at(work, h.offset(last.keep_lo), t), h.count(last.keep_lo, last.keep_hi), type, root, handover);
    s.next_round();
    me = -1;
  } else if (takeover && is_root) {
    me = new_root;
    h.plan(me);
    const Halving::Level& last = h.levels.back();
    s.recv(at(work, h.offset(last.keep_lo), t), h.count(last.keep_lo, last.keep_hi), type, root + 1, handover);
    s.next_round();
  }
  if (me == -1) return;
  // The gather (steps k+2 ..): at the level of mask m, of two partners the one whose
  // block of m new ranks does not hold the root sends its range and is done.
  int step = levels + 2;
  int mask = h.pof2 / 2;
  for (auto level = h.levels.rbegin(); level != h.levels.rend(); ++level, ++step, mask >>= 1) {
    const int partner = level->partner;
    const int peer = takeover && partner == new_root ? root : h.real(partner);
    if ((partner & ~(mask - 1)) == (new_root & ~(mask - 1))) {
      s.send(at(work, h.offset(level->keep_lo), t), h.count(level->keep_lo, level->keep_hi), type, peer, step);
      s.next_round();
      return;
    }
    s.recv(at(work, h.offset(level->give_lo), t), h.count(level->give_lo, level->give_hi), type, peer, step);
    s.next_round();
  }
}

}  // namespace twinfab::mpi::coll
