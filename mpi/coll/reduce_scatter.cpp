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

#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void reduce_scatter(Context& context, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                    const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, const char* where) {
  context.check_comm(comm, where);
  const int n = comm.size();
  const int rank = comm.rank();
  std::vector<int> displs(static_cast<std::size_t>(n));
  coll::check_counts(recvcounts, displs, n, where, "recvcounts");
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    displs[static_cast<std::size_t>(i)] = static_cast<int>(total);
    total += recvcounts[static_cast<std::size_t>(i)];
  }
  if (total > std::numeric_limits<int>::max())
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(recvcounts)", where),
                fmt::format("the counts add up to {} elements, more than an int", total));
  const void* input = sendbuf == kInPlace ? recvbuf : sendbuf;
  coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(rank)], type, where, "recvbuf");
  coll::check_buffer(input, total, type, where, "sendbuf");
  coll::check_reduction(op, type, where);
  if (sendbuf != kInPlace)
    coll::check_no_alias(sendbuf, total, *type, recvbuf, recvcounts[static_cast<std::size_t>(rank)], *type, where);
  // The whole reduced vector lands in scratch at rank 0 (its recvbuf holds one block).
  coll::TempBuffer reduced(rank == 0 ? total : 0, *type);
  reduce(context, input, rank == 0 ? reduced.data() : nullptr, total, type, op, 0, comm);
  scatterv(context, reduced.data(), recvcounts, displs, type, recvbuf, recvcounts[static_cast<std::size_t>(rank)],
           type, 0, comm);
}

void reduce_scatter_block(Context& context, const void* sendbuf, void* recvbuf, std::int64_t recvcount,
                          const DatatypePtr& type, const ReductionOp& op, const Communicator& comm) {
  const char* where = "MPI_Reduce_scatter_block";
  context.check_comm(comm, where);
  if (recvcount < 0 || recvcount > std::numeric_limits<int>::max())
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(recvcount={})", where, recvcount),
                "must be a non-negative int");
  const std::vector<int> counts(static_cast<std::size_t>(comm.size()), static_cast<int>(recvcount));
  reduce_scatter(context, sendbuf, recvbuf, counts, type, op, comm, where);
}

}  // namespace twinfab::mpi
