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

#include <vector>

#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void bcast(Context& context, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
           const Communicator& comm) {
  const char* where = "MPI_Bcast";
  context.check_comm(comm, where);
  coll::check_root(root, comm, where);
  coll::check_buffer(buffer, count, type, where, "buffer");
  const int n = comm.size();
  if (n == 1 || count == 0 || type->size() == 0) return;
  const int relative = (comm.rank() - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (relative & mask) {
      const int parent = (relative - mask + root) % n;
      RequestId request = context.coll_irecv(buffer, count, type, parent, coll::tag(coll::Kind::Bcast), comm, where);
      coll::wait_all(context, {&request, 1}, where);
      break;
    }
    mask <<= 1;
  }
  // Children: relative + m for every power of two m below the bit we received on,
  // sent all at once so they proceed in parallel.
  std::vector<RequestId> sends;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < n) {
      const int child = (relative + mask + root) % n;
      sends.push_back(context.coll_isend(buffer, count, type, child, coll::tag(coll::Kind::Bcast), comm, where));
    }
  }
  coll::wait_all(context, sends, where);
}

void reduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
            const ReductionOp& op, int root, const Communicator& comm) {
  const char* where = "MPI_Reduce";
  context.check_comm(comm, where);
  coll::check_root(root, comm, where);
  const bool is_root = comm.rank() == root;
  if (sendbuf == kInPlace && !is_root)
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(sendbuf)", where),
                "MPI_IN_PLACE is only valid at the root of a reduce");
  const void* input = sendbuf == kInPlace ? recvbuf : sendbuf;
  if (is_root) coll::check_buffer(recvbuf, count, type, where, "recvbuf");
  if (sendbuf != kInPlace) coll::check_buffer(sendbuf, count, type, where, "sendbuf");
  coll::check_reduction(op, type, where);
  if (is_root && sendbuf != kInPlace) coll::check_no_alias(sendbuf, count, *type, recvbuf, count, *type, where);
  if (count == 0 || type->size() == 0) return;
  const int n = comm.size();
  // Relative to the tree's root, the subtree of relative rank r at level 2^k holds
  // relative ranks [r, r + 2^k). Rooted anywhere but rank 0 those wrap around the end
  // of the communicator, out of rank order: a non-commutative op is reduced on a tree
  // rooted at rank 0 instead, whose subtrees are runs of ascending ranks, and rank 0
  // sends the result to the root (one more message, MPICH's scheme).
  const bool ordered = !op.is_commutative();
  const int tree_root = ordered ? 0 : root;
  const int relative = (comm.rank() - tree_root + n) % n;

  // The running result: the root accumulates straight into recvbuf; everyone else
  // in scratch (their recvbuf is not significant and may be null).
  coll::TempBuffer scratch_result(is_root ? 0 : count, *type);
  void* result = is_root ? recvbuf : scratch_result.data();
  if (input != result) coll::local_copy(input, count, *type, result, count, *type, where);

  coll::TempBuffer incoming(n > 1 ? count : 0, *type);
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((relative & mask) == 0) {
      const int child_relative = relative | mask;
      if (child_relative >= n) continue;
      RequestId request = context.coll_irecv(incoming.data(), count, type, (child_relative + tree_root) % n,
                                             coll::tag(coll::Kind::Reduce), comm, where);
      coll::wait_all(context, {&request, 1}, where);
      // Children come in increasing rank order (relative to the tree's root): the
      // same combination order on every run, so floating-point results are
      // reproducible.
      if (!ordered) {
        reduce_local(op, incoming.data(), result, count, *type, where);
      } else {
        // The child's ranks follow this rank's: result = result op incoming, reduced
        // into the incoming buffer and copied back.
        reduce_local(op, result, incoming.data(), count, *type, where);
        coll::local_copy(incoming.data(), count, *type, result, count, *type, where);
      }
    } else {
      const int parent = ((relative & ~mask) + tree_root) % n;
      RequestId request = context.coll_isend(result, count, type, parent, coll::tag(coll::Kind::Reduce), comm, where);
      coll::wait_all(context, {&request, 1}, where);
      break;
    }
  }
  if (tree_root != root) {
    // Step 1 of the Reduce tag: the tree's messages are step 0.
    const int result_tag = coll::tag(coll::Kind::Reduce, 1);
    RequestId request = kRequestNull;
    if (comm.rank() == tree_root)
      request = context.coll_isend(result, count, type, root, result_tag, comm, where);
    else if (is_root)
      request = context.coll_irecv(recvbuf, count, type, tree_root, result_tag, comm, where);
    if (request != kRequestNull) coll::wait_all(context, {&request, 1}, where);
  }
}

}  // namespace twinfab::mpi
