// Long-message broadcast by scatter + allgather (van de Geijn; Thakur, Rabenseifner
// and Gropp 2005; MPICH's MPIR_Bcast_intra_scatter_recursive_doubling_allgather and
// MPIR_Bcast_intra_scatter_ring_allgather): the root's vector is cut into n chunks of
// ceil(count / n) elements (the last ones shorter or empty), scattered down a binomial
// tree, then allgathered, by recursive doubling (a power of two of ranks) or around a
// ring. Each rank sends and receives about twice the vector, against log2(n) times in
// the binomial tree.
//
// Chunks are cut on element boundaries (MPICH cuts the packed bytes), so a derived
// datatype moves straight from and to the user's buffer; a vector of fewer elements
// than ranks leaves some chunks empty, which move no message on either side.
// Ranks are numbered relative to the root, as in the binomial tree (binomial.cpp).
#include <algorithm>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi::coll {

void add_bcast_scatter_allgather(Schedule& s, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
                                 bool ring) {
  const int n = s.size();
  if (n == 1 || count == 0 || type->size() == 0) return;
  const Datatype& t = *type;
  const int rel = (s.rank() - root + n) % n;
  const std::int64_t chunk = (count + n - 1) / n;
  // The elements of relative chunks [from, to), and where they start.
  const auto first = [&](int c) { return std::min<std::int64_t>(count, std::int64_t{c} * chunk); };
  const auto elements = [&](int from, int to) { return first(std::min(to, n)) - first(from); };
  const auto real = [&](int r) { return (r + root) % n; };

  // Scatter (step 0): a rank receives its subtree's chunks [rel, rel + lowbit(rel))
  // from its parent and sends each child its subtree's.
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (rel & mask) {
      if (const std::int64_t k = elements(rel, rel + mask); k > 0)
        s.recv(at(buffer, first(rel), t), k, type, real(rel - mask), 0);
      s.next_round();
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask >= n) continue;
    if (const std::int64_t k = elements(rel + mask, rel + 2 * mask); k > 0)
      s.send(at(buffer, first(rel + mask), t), k, type, real(rel + mask), 0);
  }
  s.next_round();

  if (!ring) {
    // Recursive doubling (steps 1 .. log2 n): partners swap their aligned blocks of
    // `mask` chunks.
    int step = 1;
    for (mask = 1; mask < n; mask <<= 1, ++step) {
      const int partner = rel ^ mask;
      const int mine = rel & ~(mask - 1);
      const int theirs = partner & ~(mask - 1);
      if (const std::int64_t k = elements(theirs, theirs + mask); k > 0)
        s.recv(at(buffer, first(theirs), t), k, type, real(partner), step);
      if (const std::int64_t k = elements(mine, mine + mask); k > 0)
        s.send(at(buffer, first(mine), t), k, type, real(partner), step);
      s.next_round();
    }
    return;
  }
  // Ring (steps 1 .. n-1): pass on the chunk received last, own chunk first.
  const int left = real((rel - 1 + n) % n);
  const int right = real((rel + 1) % n);
  int sending = rel;
  for (int step = 1; step < n; ++step) {
    const int receiving = (sending - 1 + n) % n;
    if (const std::int64_t k = elements(receiving, receiving + 1); k > 0)
      s.recv(at(buffer, first(receiving), t), k, type, left, step);
    if (const std::int64_t k = elements(sending, sending + 1); k > 0)
      s.send(at(buffer, first(sending), t), k, type, right, step);
    s.next_round();
    sending = receiving;
  }
}

}  // namespace twinfab::mpi::coll
