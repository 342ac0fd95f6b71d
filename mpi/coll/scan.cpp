// Prefix reductions by recursive doubling (MPICH's MPIR_Scan_intra_recursive_doubling
// and MPIR_Exscan_intra_recursive_doubling). Each rank keeps `partial`, the reduction
// of the inputs of the ranks in its current 2^k-aligned group. In step k it exchanges
// `partial` with rank ^ 2^k (when that rank exists) and folds what it got into
// `partial`; when the partner is lower, the partner's partial also belongs to this
// rank's prefix and is folded into the result. ceil(log2 n) steps.
//
// Operands are always combined as (lower ranks) op (higher ranks), the order MPI
// prescribes for a scan and for a non-commutative op: `partial` and the partner's
// partial cover adjacent runs of ranks.
#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {
namespace {

void prefix(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
            const ReductionOp& op, const Communicator& comm, bool inclusive) {
  const char* where = inclusive ? "MPI_Scan" : "MPI_Exscan";
  const coll::Kind kind = inclusive ? coll::Kind::Scan : coll::Kind::Exscan;
  context.check_comm(comm, where);
  coll::check_all_reduction(sendbuf, recvbuf, count, type, op, where);
  const void* input = sendbuf == kInPlace ? recvbuf : sendbuf;
  if (count == 0 || type->size() == 0) return;
  const int n = comm.size();
  const int rank = comm.rank();
  coll::TempBuffer partial(count, *type);
  coll::TempBuffer incoming(count, *type);
  coll::local_copy(input, count, *type, partial.data(), count, *type, where);
  if (inclusive && sendbuf != kInPlace) coll::local_copy(sendbuf, count, *type, recvbuf, count, *type, where);
  bool have_result = inclusive;  // exscan: nothing below this rank folded in yet
  int step = 0;
  for (int mask = 1; mask < n; mask <<= 1, ++step) {
    const int partner = rank ^ mask;
    if (partner >= n) continue;
    coll::sendrecv(context, partial.data(), count, type, partner, incoming.data(), count, type, partner,
                   coll::tag(kind, step), comm, where);
    if (partner < rank) {
      // Lower ranks' inputs: they precede this rank's in the prefix.
      if (have_result) {
        reduce_local(op, incoming.data(), recvbuf, count, *type, where);
      } else {
        coll::local_copy(incoming.data(), count, *type, recvbuf, count, *type, where);
        have_result = true;
      }
      reduce_local(op, incoming.data(), partial.data(), count, *type, where);
    } else {
      // partial = partial op incoming, in that order: reduce into a copy of incoming.
      reduce_local(op, partial.data(), incoming.data(), count, *type, where);
      coll::local_copy(incoming.data(), count, *type, partial.data(), count, *type, where);
    }
  }
}

}  // namespace

void scan(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
          const ReductionOp& op, const Communicator& comm) {
  prefix(context, sendbuf, recvbuf, count, type, op, comm, true);
}

void exscan(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
            const ReductionOp& op, const Communicator& comm) {
  prefix(context, sendbuf, recvbuf, count, type, op, comm, false);
}

}  // namespace twinfab::mpi
