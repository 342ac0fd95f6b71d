// twinfab MPI coll: the collectives on an intercommunicator (MPI-3.1 §5.2.2), which
// the public collectives (collectives.hpp) hand over to when `comm.is_inter()`. The
// arguments are those of the public call; what the standard says of an
// intercommunicator applies:
// - rooted calls: `root` is kRoot (MPI_ROOT) at the root, kProcNull at the other
//   members of its group, and the root's rank in the remote group in the other group;
// - the data a rank sends goes to the remote group and what it receives comes from
//   there (an allreduce in group A gives the reduction of group B's inputs);
// - per-rank arrays (counts, displacements, types) have one entry per rank of the
//   remote group, except reduce_scatter's recvcounts (the local group's blocks);
// - MPI_IN_PLACE is not allowed (MPI_ERR_BUFFER).
// Internal to mpi/coll.
#pragma once

#include <span>

#include "mpi/coll/schedule.hpp"

namespace twinfab::mpi::coll {

RequestId inter_barrier(Context& context, const Communicator& comm, Mode mode);
RequestId inter_bcast(Context& context, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
                      const Communicator& comm, Mode mode);
RequestId inter_reduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count,
                       const DatatypePtr& type, const ReductionOp& op, int root, const Communicator& comm, Mode mode);
RequestId inter_allreduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count,
                          const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode);
RequestId inter_gather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                       void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                       const Communicator& comm, Mode mode);
RequestId inter_scatter(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                        const Communicator& comm, Mode mode);
RequestId inter_gatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> displs,
                        const DatatypePtr& recvtype, int root, const Communicator& comm, Mode mode);
RequestId inter_scatterv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                         std::span<const std::int64_t> displs, const DatatypePtr& sendtype, void* recvbuf,
                         std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm,
                         Mode mode);
RequestId inter_allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                          void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                          const Communicator& comm, Mode mode);
RequestId inter_allgatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                           void* recvbuf, std::span<const std::int64_t> recvcounts,
                           std::span<const std::int64_t> displs, const DatatypePtr& recvtype, const Communicator& comm,
                           Mode mode);
RequestId inter_alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                         void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                         const Communicator& comm, Mode mode);
/// Alltoallv and alltoallw: `sendtypes`/`recvtypes` one per remote rank, and
/// `byte_displacements` says whether the displacements count bytes (alltoallw) or
/// extents of the type (alltoallv, where every entry of a span is the same type).
RequestId inter_alltoallw(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                          std::span<const std::int64_t> sdispls, std::span<const DatatypePtr> sendtypes, void* recvbuf,
                          std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                          std::span<const DatatypePtr> recvtypes, bool byte_displacements, const Communicator& comm,
                          Mode mode, const char* where);
/// Reduce_scatter (recvcounts: the local group's blocks) and reduce_scatter_block
/// (recvcounts empty: every block `recvcount`). As in MPICH, every input vector is as
/// long as the local group's blocks together, and both groups' blocks must add up to
/// the same total.
RequestId inter_reduce_scatter(Context& context, const void* sendbuf, void* recvbuf,
                               std::span<const std::int64_t> recvcounts, std::int64_t recvcount,
                               const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode,
                               const char* where);

/// `value` (in place) becomes `op` over every member of both groups of the schedule's
/// intercommunicator, not only the other group's as MPI's allreduce: a reduction in
/// each group, the leaders swap theirs, each group broadcasts the other's, and every
/// member combines the two. MPI_Comm_idup's agreement on an intercommunicator.
void add_allreduce_both_groups(Schedule& schedule, void* value, std::int64_t count, const DatatypePtr& type,
                               const ReductionOp& op);

}  // namespace twinfab::mpi::coll
