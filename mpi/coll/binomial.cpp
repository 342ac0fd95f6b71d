// Binomial trees: bcast (root to leaves) and reduce (leaves to root).
//
// Ranks are renumbered relative to the root (relative = (rank - root) mod n). In the
// bcast, a rank receives from the rank that differs in its lowest set bit and then
// sends to relative + mask for every smaller power of two mask; the reduce runs the
// same tree backwards (rooted at rank 0 for a non-commutative op, see reduce()).
// log2(n) steps on the critical path; every message is the full
// buffer, which is what one wants for small and medium sizes (the long-message
// variants are scatter_allgather.cpp and rabenseifner.cpp).
//
// Gather and scatter (MPICH's MPIR_Gather_intra_binomial, MPIR_Scatter_intra_binomial)
// use the same tree: a rank's subtree is the run of relative ranks [rel, rel + m),
// m its lowest set bit, so a rank gathers its children's runs behind its own block
// in scratch and sends the run up in one message (scatter: receives its run and hands
// on the children's parts). log2(n) steps instead of the linear algorithm's n - 1
// messages at the root. An intermediate rank holds its run as its own (count, type)
// blocks: MPI requires every rank's type signature to match, so it may receive a
// child's blocks with its own type.
#include <algorithm>

#include <vector>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

namespace coll {

void add_bcast(Schedule& schedule, void* buffer, std::int64_t count, const DatatypePtr& type, int root) {
  const int n = schedule.size();
  if (n == 1 || count == 0 || type->size() == 0) return;
  const int relative = (schedule.rank() - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (relative & mask) {
      schedule.recv(buffer, count, type, (relative - mask + root) % n);
      schedule.next_round();
      break;
    }
    mask <<= 1;
  }
  // Children: relative + m for every power of two m below the bit we received on,
  // sent all at once so they proceed in parallel.
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < n) schedule.send(buffer, count, type, (relative + mask + root) % n);
  }
  schedule.next_round();
}

void add_reduce(Schedule& schedule, const void* input, void* result_at_root, std::int64_t count,
                const DatatypePtr& type, const ReductionOp& op, int root) {
  if (count == 0 || type->size() == 0) return;
  const int n = schedule.size();
  const int rank = schedule.rank();
  const bool is_root = rank == root;
  // Relative to the tree's root, the subtree of relative rank r at level 2^k holds
  // relative ranks [r, r + 2^k). Rooted anywhere but rank 0 those wrap around the end
  // of the communicator, out of rank order: a non-commutative op is reduced on a tree
  // rooted at rank 0 instead, whose subtrees are runs of ascending ranks, and rank 0
  // sends the result to the root (one more message, MPICH's scheme).
  const bool ordered = !op.is_commutative();
  const int tree_root = ordered ? 0 : root;
  const int relative = (rank - tree_root + n) % n;

  // The running result: the root accumulates straight into its result buffer;
  // everyone else in scratch (their recvbuf is not significant and may be null).
  void* result = is_root ? result_at_root : schedule.scratch(count, *type);
  if (input != result) schedule.copy(input, count, type, result, count, type);

  void* incoming = n > 1 ? schedule.scratch(count, *type) : nullptr;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((relative & mask) == 0) {
      const int child_relative = relative | mask;
      if (child_relative >= n) continue;
      schedule.recv(incoming, count, type, (child_relative + tree_root) % n, 0);
      schedule.next_round();
      // Children come in increasing rank order (relative to the tree's root): the
      // same combination order on every run, so floating-point results are
      // reproducible.
      if (!ordered) {
        schedule.reduce(op, incoming, result, count, type);
      } else {
        // The child's ranks follow this rank's: result = result op incoming, reduced
        // into the incoming buffer and copied back.
        schedule.reduce(op, result, incoming, count, type);
        schedule.copy(incoming, count, type, result, count, type);
      }
    } else {
      schedule.send(result, count, type, ((relative & ~mask) + tree_root) % n, 0);
      schedule.next_round();
      break;
    }
  }
  if (tree_root != root) {
    // Step 1: the tree's messages are step 0.
    if (rank == tree_root)
      schedule.send(result, count, type, root, 1);
    else if (is_root)
      schedule.recv(result_at_root, count, type, tree_root, 1);
    schedule.next_round();
  }
}

namespace {

/// A rank's place in the binomial tree rooted at `root`: its relative rank, the
/// lowest set bit of it (n rounded up to a power of two for the root), and the size
/// of its subtree.
struct TreePlace {
  int rel;
  int mask;
  int size;
  TreePlace(int rank, int root, int n) : rel((rank - root + n) % n), mask(1) {
    while (mask < n && (rel & mask) == 0) mask <<= 1;
    size = std::min(mask, n - rel);
  }
};

}  // namespace

void add_gather_binomial(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                         void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root) {
  const int n = s.size();
  const int rank = s.rank();
  const TreePlace me(rank, root, n);
  const auto real = [&](int r) { return (r + root) % n; };
  if (rank == root) {
    const Datatype& t = *recvtype;
    if (sendbuf != kInPlace)
      s.copy(sendbuf, sendcount, sendtype, block(recvbuf, root, recvcount, t), recvcount, recvtype);
    if (n == 1 || recvcount == 0 || t.size() == 0) return;
    // A child's run of relative ranks maps to the real blocks from real(child) on,
    // wrapping past the last rank when the root is not 0: such a run lands in
    // scratch and is copied into its two places.
    struct Wrapped {
      void* data;
      int first;
      int blocks;
    };
    std::vector<Wrapped> wrapped;
    for (int m = 1; m < me.mask && m < n; m <<= 1) {
      const int first = real(m);
      const int blocks = std::min(m, n - m);
      if (first + blocks <= n) {
        s.recv(block(recvbuf, first, recvcount, t), blocks * recvcount, recvtype, first);
      } else {
        void* data = s.scratch(blocks * recvcount, t);
        s.recv(data, blocks * recvcount, recvtype, first);
        wrapped.push_back({data, first, blocks});
      }
    }
    s.next_round();
    for (const Wrapped& w : wrapped) {
      const int tail = n - w.first;
      s.copy(w.data, tail * recvcount, recvtype, block(recvbuf, w.first, recvcount, t), tail * recvcount, recvtype);
      s.copy(block(w.data, tail, recvcount, t), (w.blocks - tail) * recvcount, recvtype, recvbuf,
             (w.blocks - tail) * recvcount, recvtype);
    }
    return;
  }
  const Datatype& t = *sendtype;
  if (sendcount == 0 || t.size() == 0) return;
  const int parent = real(me.rel - me.mask);
  if (me.size == 1) {
    s.send(sendbuf, sendcount, sendtype, parent);
    return;
  }
  void* run = s.scratch(me.size * sendcount, t);
  s.copy(sendbuf, sendcount, sendtype, run, sendcount, sendtype);
  for (int m = 1; m < me.mask && me.rel + m < n; m <<= 1)
    s.recv(block(run, m, sendcount, t), std::min(m, n - me.rel - m) * sendcount, sendtype, real(me.rel + m));
  s.next_round();
  s.send(run, me.size * sendcount, sendtype, parent);
}

void add_scatter_binomial(Schedule& s, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                          void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root) {
  const int n = s.size();
  const int rank = s.rank();
  const TreePlace me(rank, root, n);
  const auto real = [&](int r) { return (r + root) % n; };
  if (rank == root) {
    const Datatype& t = *sendtype;
    if (recvbuf != kInPlace)
      s.copy(block(sendbuf, root, sendcount, t), sendcount, sendtype, recvbuf, recvcount, recvtype);
    if (n == 1 || sendcount == 0 || t.size() == 0) return;
    for (int m = 1; m < me.mask && m < n; m <<= 1) {
      const int first = real(m);
      const int blocks = std::min(m, n - m);
      if (first + blocks <= n) {
        s.send(block(sendbuf, first, sendcount, t), blocks * sendcount, sendtype, first);
        continue;
      }
      // The run wraps past the last rank: assembled in scratch (the copies run
      // before the round's sends are posted).
      void* data = s.scratch(blocks * sendcount, t);
      const int tail = n - first;
      s.copy(block(sendbuf, first, sendcount, t), tail * sendcount, sendtype, data, tail * sendcount, sendtype);
      s.copy(sendbuf, (blocks - tail) * sendcount, sendtype, block(data, tail, sendcount, t),
             (blocks - tail) * sendcount, sendtype);
      s.send(data, blocks * sendcount, sendtype, first);
    }
    s.next_round();
    return;
  }
  const Datatype& t = *recvtype;
  if (recvcount == 0 || t.size() == 0) return;
  const int parent = real(me.rel - me.mask);
  if (me.size == 1) {
    s.recv(recvbuf, recvcount, recvtype, parent);
    return;
  }
  void* run = s.scratch(me.size * recvcount, t);
  s.recv(run, me.size * recvcount, recvtype, parent);
  s.next_round();
  s.copy(run, recvcount, recvtype, recvbuf, recvcount, recvtype);
  for (int m = 1; m < me.mask && me.rel + m < n; m <<= 1)
    s.send(block(run, m, recvcount, t), std::min(m, n - me.rel - m) * recvcount, recvtype, real(me.rel + m));
  s.next_round();
}

}  // namespace coll

}  // namespace twinfab::mpi
