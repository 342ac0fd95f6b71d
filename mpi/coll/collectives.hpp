// twinfab MPI coll: the blocking collectives, built on the point-to-point engine.
//
// Every collective runs in its communicator's collective matching space
// (Communicator::collective_context_id, through Context::coll_isend/coll_irecv), so
// its messages never match a user's receive or probe, whatever the tags. Within that
// space each collective kind has its own tag range (coll_support.hpp), with the round
// or step in the low bits. Back-to-back collectives on one communicator cannot mix
// either: MPI requires every member to call them in the same order, the blocking
// calls finish in order on each rank, and the engine keeps messages of one
// (sender, context, tag) in order (non-overtaking).
//
// Algorithms (one file per family):
//   barrier    dissemination, ceil(log2 n) rounds of zero-byte messages  (barrier.cpp)
//   bcast      binomial tree from the root                                (binomial.cpp)
//   reduce     binomial tree to the root, fixed rank order                (binomial.cpp)
//   allreduce  recursive doubling; with n not a power of two, the first
//              2*(n - 2^k) ranks fold pairwise first and get the result back
//              at the end (MPICH's scheme)                                (recursive_doubling.cpp)
//   gather, scatter  linear: the root posts one receive/send per rank     (linear.cpp)
//   allgather  ring, n-1 steps, each rank forwards the block it got last  (ring.cpp)
//   alltoall   pairwise exchange: step i sends to rank+i, receives from
//              rank-i                                                     (pairwise.cpp)
//
// Reductions use only the predefined ops of op.hpp (all commutative); the tree of
// each algorithm is fixed, so a result does not depend on timing.
//
// Arguments follow the MPI C bindings, with (count, datatype) pairs as in the
// point-to-point API; buffers are addressed as MPI does (element i of an array of
// `type` is at buffer + i * extent). kInPlace is MPI_IN_PLACE where MPI allows it.
// Argument errors throw mpi::Error naming the function and argument, e.g.
// "MPI_Bcast(root=5): invalid root; communicator has 4 ranks": MPI_ERR_COMM,
// MPI_ERR_ROOT, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_BUFFER (null buffer,
// or send and receive buffers overlapping without MPI_IN_PLACE); a message longer than
// its receive (counts that differ between ranks) is MPI_ERR_TRUNCATE.
//
// All calls are collective and blocking; they wait only through Context::wait (the
// fabric runtime), never through the out-of-band exchange.
#pragma once

#include <cstdint>

#include "mpi/core/communicator.hpp"
#include "mpi/core/context.hpp"
#include "mpi/core/datatype.hpp"
#include "mpi/core/op.hpp"

namespace twinfab::mpi {

/// MPI_IN_PLACE (MPICH's value, so the C API can pass it through unchanged). A
/// constant, not state: it is only ever compared against.
inline void* const kInPlace = reinterpret_cast<void*>(~std::uintptr_t{0});

/// MPI_Barrier.
void barrier(Context& context, const Communicator& comm);

/// MPI_Bcast: `count` elements of `type` at `buffer` from `root` to every rank.
void bcast(Context& context, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
           const Communicator& comm);

/// MPI_Reduce. At the root `sendbuf` may be kInPlace (the input is in `recvbuf`);
/// `recvbuf` is used at the root only.
void reduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
            Op op, int root, const Communicator& comm);

/// MPI_Allreduce. `sendbuf` may be kInPlace (the input is in `recvbuf`).
void allreduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
               Op op, const Communicator& comm);

/// MPI_Gather: rank i's (sendcount, sendtype) lands at the root in recvbuf block i
/// (recvcount elements of recvtype). At the root `sendbuf` may be kInPlace (its block
/// is already in place); the recv arguments matter at the root only.
void gather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
            void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm);

/// MPI_Scatter: the root's sendbuf block i goes to rank i. At the root `recvbuf` may
/// be kInPlace (it keeps its block where it is); the send arguments matter at the
/// root only.
void scatter(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
             void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm);

/// MPI_Allgather. `sendbuf` may be kInPlace (each rank's block is in recvbuf).
void allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
               void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm);

/// MPI_Alltoall: block j of rank i's sendbuf lands in block i of rank j's recvbuf.
/// `sendbuf` may be kInPlace (recvbuf holds the outgoing blocks and is overwritten).
void alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
              void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm);

}  // namespace twinfab::mpi
