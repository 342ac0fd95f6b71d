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
#include "mpi/coll/schedule.hpp"

namespace twinfab::mpi {
namespace {

RequestId prefix(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
                 const ReductionOp& op, const Communicator& comm, bool inclusive, Mode mode) {
  const char* where = inclusive ? coll::name(mode, "MPI_Scan", "MPI_Iscan") : coll::name(mode, "MPI_Exscan", "MPI_Iexscan");
  context.check_comm(comm, where);
  Context::check_intracomm(comm, where);  // MPI-3.1 §5.11: no scans on intercommunicators
  coll::check_all_reduction(sendbuf, recvbuf, count, type, op, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, inclusive ? coll::Kind::Scan : coll::Kind::Exscan, where,
                                                   mode);
  coll::Schedule& s = *schedule;
  if (count == 0 || type->size() == 0) return coll::execute(context, std::move(schedule));
  const void* input = sendbuf == kInPlace ? recvbuf : sendbuf;
  const int n = comm.size();
  const int rank = comm.rank();
  void* partial = s.scratch(count, *type);
  void* incoming = s.scratch(count, *type);
  s.copy(input, count, type, partial, count, type);
  if (inclusive && sendbuf != kInPlace) s.copy(sendbuf, count, type, recvbuf, count, type);
  bool have_result = inclusive;  // exscan: nothing below this rank folded in yet
  int step = 0;
  for (int mask = 1; mask < n; mask <<= 1, ++step) {
    const int partner = rank ^ mask;
    if (partner >= n) continue;
    s.recv(incoming, count, type, partner, step);
    s.send(partial, count, type, partner, step);
    s.next_round();
    if (partner < rank) {
      // Lower ranks' inputs: they precede this rank's in the prefix.
      if (have_result) {
        s.reduce(op, incoming, recvbuf, count, type);
      } else {
        s.copy(incoming, count, type, recvbuf, count, type);
        have_result = true;
      }
      s.reduce(op, incoming, partial, count, type);
    } else {
      // partial = partial op incoming, in that order: reduce into a copy of incoming.
      s.reduce(op, partial, incoming, count, type);
      s.copy(incoming, count, type, partial, count, type);
    }
  }
  return coll::execute(context, std::move(schedule));
}

}  // namespace

RequestId scan(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
               const ReductionOp& op, const Communicator& comm, Mode mode) {
  return prefix(context, sendbuf, recvbuf, count, type, op, comm, true, mode);
}

RequestId exscan(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
                 const ReductionOp& op, const Communicator& comm, Mode mode) {
  return prefix(context, sendbuf, recvbuf, count, type, op, comm, false, mode);
}

}  // namespace twinfab::mpi
