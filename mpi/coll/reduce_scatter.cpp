// Reduce-scatter (MPI_Reduce_scatter, MPI_Reduce_scatter_block): a binomial reduce of
// the whole vector to rank 0, then a linear scatterv of the blocks. 2 log2(n)-ish
// steps; the reduce moves the full vector at each level, so this is for small and
// medium vectors (a pairwise-exchange variant that moves only 1/n per step is the
// long-message algorithm, left for later). The reduce is rooted at rank 0, so a
// non-commutative op costs no extra message (binomial.cpp). The arguments are checked
// here first, so errors name the function the program called.
#include <fmt/format.h>

#include <limits>
#include <numeric>
#include <vector>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

RequestId reduce_scatter(Context& context, const void* sendbuf, void* recvbuf, std::span<const std::int64_t> recvcounts,
                         const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode,
                         const char* where) {
  if (where == nullptr) where = coll::name(mode, "MPI_Reduce_scatter", "MPI_Ireduce_scatter");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_reduce_scatter(context, sendbuf, recvbuf, recvcounts, 0, type, op, comm, mode, where);
  const int n = comm.size();
  const int rank = comm.rank();
  std::vector<std::int64_t> displs(static_cast<std::size_t>(n));
  coll::check_counts(recvcounts, displs, n, where, "recvcounts");
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    displs[static_cast<std::size_t>(i)] = total;
    // Large-count callers (MPI_Reduce_scatter_c) could overflow the sum.
    if (__builtin_add_overflow(total, recvcounts[static_cast<std::size_t>(i)], &total))
      throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(recvcounts)", where), "the counts overflow 64 bits");
  }
  const std::int64_t own = recvcounts[static_cast<std::size_t>(rank)];
  const void* input = sendbuf == kInPlace ? recvbuf : sendbuf;
  coll::check_buffer(recvbuf, own, type, where, "recvbuf");
  coll::check_buffer(input, total, type, where, "sendbuf");
  coll::check_reduction(op, type, where);
  if (sendbuf != kInPlace) coll::check_no_alias(sendbuf, total, *type, recvbuf, own, *type, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::ReduceScatter, where, mode);
  // The whole reduced vector lands in scratch at rank 0 (its recvbuf holds one
  // block); the reduce's messages are steps 0 and 1, the scatter's step 2.
  void* reduced = rank == 0 ? schedule->scratch(total, *type) : nullptr;
  coll::add_reduce(*schedule, input, reduced, total, type, op, 0);
  schedule->next_round();
  if (rank == 0)
    coll::add_scatterv_from_root(*schedule, reduced, recvcounts, displs, type, recvbuf, own, type, 2);
  else
    schedule->recv(recvbuf, own, type, 0, 2);
  return coll::execute(context, std::move(schedule));
}

RequestId reduce_scatter_block(Context& context, const void* sendbuf, void* recvbuf, std::int64_t recvcount,
                               const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block");
  context.check_comm(comm, where);
  if (recvcount < 0)
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(recvcount={})", where, recvcount), "must not be negative");
  if (comm.is_inter())
    return coll::inter_reduce_scatter(context, sendbuf, recvbuf, {}, recvcount, type, op, comm, mode, where);
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()), recvcount);
  return reduce_scatter(context, sendbuf, recvbuf, counts, type, op, comm, mode, where);
}

}  // namespace twinfab::mpi
