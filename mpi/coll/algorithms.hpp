// twinfab MPI coll: the steps of the algorithms that other collectives are built from
// (reduce-scatter is a reduce, then a scatterv; MPI_Comm_idup's agreement is
// allreduces), added to a schedule whose call has
// checked its arguments already. Internal to mpi/coll.
#pragma once

#include <span>

#include "mpi/coll/intercomm.hpp"
#include "mpi/coll/schedule.hpp"

namespace twinfab::mpi::coll {

/// The dissemination barrier (barrier.cpp), zero-byte messages of `byte`. Its
/// messages use steps 0 to log2(size) - 1.
void add_barrier(Schedule& schedule, const DatatypePtr& byte);
/// The binomial bcast of (buffer, count, type) from `root` (binomial.cpp). Its
/// messages use step 0.
void add_bcast(Schedule& schedule, void* buffer, std::int64_t count, const DatatypePtr& type, int root);
/// The recursive-doubling allreduce (recursive_doubling.cpp): sendbuf may be kInPlace.
/// Its messages use steps 0 to log2(size) + 1.
void add_allreduce(Schedule& schedule, const void* sendbuf, void* recvbuf, std::int64_t count,
                   const DatatypePtr& type, const ReductionOp& op);

/// The binomial reduce of (input, count, type) into `result` at `root` (binomial.cpp);
/// `result` matters at the root only. Its messages use steps 0 and 1.
void add_reduce(Schedule& schedule, const void* input, void* result, std::int64_t count, const DatatypePtr& type,
                const ReductionOp& op, int root);

/// The root's linear scatterv (vector.cpp): block i, recvcounts[i] elements at
/// displs[i], to rank i; the root's own block is copied into (recvbuf, recvcount,
/// recvtype) unless recvbuf is kInPlace. Its messages use `step`.
void add_scatterv_from_root(Schedule& schedule, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                            std::span<const std::int64_t> displs, const DatatypePtr& sendtype, void* recvbuf,
                            std::int64_t recvcount, const DatatypePtr& recvtype, int step);

}  // namespace twinfab::mpi::coll
