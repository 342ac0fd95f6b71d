// Binomial trees: bcast (root to leaves) and reduce (leaves to root).
//
// Ranks are renumbered relative to the root (relative = (rank - root) mod n). In the
// bcast, a rank receives from the rank that differs in its lowest set bit and then
// sends to relative + mask for every smaller power of two mask; the reduce runs the
// same tree backwards (rooted at rank 0 for a non-commutative op, see reduce()).
// log2(n) steps on the critical path; every message is the full
// buffer, which is what one wants for small and medium sizes (long-message variants
// such as scatter + allgather are left for later).
#include <fmt/format.h>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

RequestId bcast(Context& context, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
                const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Bcast", "MPI_Ibcast");
  context.check_comm(comm, where);
  if (comm.is_inter()) return coll::inter_bcast(context, buffer, count, type, root, comm, mode);
  coll::check_root(root, comm, where);
  coll::check_buffer(buffer, count, type, where, "buffer");
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Bcast, where, mode);
  coll::add_bcast(*schedule, buffer, count, type, root);
  return coll::execute(context, std::move(schedule));
}

namespace coll {

void add_bcast(Schedule& schedule, void* buffer, std::int64_t count, const DatatypePtr& type, int root) {
  const Communicator& comm = schedule.comm();
  const int n = comm.size();
  if (n == 1 || count == 0 || type->size() == 0) return;
  const int relative = (comm.rank() - root + n) % n;
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
  const Communicator& comm = schedule.comm();
  const int n = comm.size();
  const bool is_root = comm.rank() == root;
  // Relative to the tree's root, the subtree of relative rank r at level 2^k holds
  // relative ranks [r, r + 2^k). Rooted anywhere but rank 0 those wrap around the end
  // of the communicator, out of rank order: a non-commutative op is reduced on a tree
  // rooted at rank 0 instead, whose subtrees are runs of ascending ranks, and rank 0
  // sends the result to the root (one more message, MPICH's scheme).
  const bool ordered = !op.is_commutative();
  const int tree_root = ordered ? 0 : root;
  const int relative = (comm.rank() - tree_root + n) % n;

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
    if (comm.rank() == tree_root)
      schedule.send(result, count, type, root, 1);
    else if (is_root)
      schedule.recv(result_at_root, count, type, tree_root, 1);
    schedule.next_round();
  }
}

}  // namespace coll

RequestId reduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
                 const ReductionOp& op, int root, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Reduce", "MPI_Ireduce");
  context.check_comm(comm, where);
  if (comm.is_inter()) return coll::inter_reduce(context, sendbuf, recvbuf, count, type, op, root, comm, mode);
  coll::check_root(root, comm, where);
  const bool is_root = comm.rank() == root;
  if (sendbuf == kInPlace && !is_root)
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(sendbuf)", where),
                "MPI_IN_PLACE is only valid at the root of a reduce");
  if (is_root) coll::check_buffer(recvbuf, count, type, where, "recvbuf");
  if (sendbuf != kInPlace) coll::check_buffer(sendbuf, count, type, where, "sendbuf");
  coll::check_reduction(op, type, where);
  if (is_root && sendbuf != kInPlace) coll::check_no_alias(sendbuf, count, *type, recvbuf, count, *type, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Reduce, where, mode);
  coll::add_reduce(*schedule, sendbuf == kInPlace ? recvbuf : sendbuf, recvbuf, count, type, op, root);
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
