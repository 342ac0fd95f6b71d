// twinfab MPI coll: the collectives, blocking and nonblocking, built on the
// point-to-point engine.
//
// Every collective runs in its communicator's collective matching space
// (Communicator::collective_context_id, through Context::coll_isend/coll_irecv), so
// its messages never match a user's receive or probe, whatever the tags. Each
// algorithm is written once, as a schedule of rounds (schedule.hpp), which a blocking
// call runs to completion and a nonblocking one (Mode::Nonblocking, MPI_Ibcast and
// the like) leaves to the progress engine. Blocking collectives tag their messages by
// kind (coll_support.hpp), with the step in the low bits; back-to-back ones on one
// communicator cannot mix, since MPI requires every member to call them in the same
// order, they finish in order on each rank, and the engine keeps messages of one
// (sender, context, tag) in order (non-overtaking). Nonblocking ones carry the call's
// sequence number on the communicator instead, so any number may run at once, beside
// blocking ones.
//
// Algorithms (one file per family). The collectives with several choose one per
// call (tuned.cpp, selection.hpp): MPICH's table by communicator size and message
// size, or the one a TWINFAB_<COLLECTIVE> parameter names (docs/collectives.md).
//   barrier    dissemination, ceil(log2 n) rounds of zero-byte messages  (barrier.cpp)
//   bcast      binomial tree from the root                                (binomial.cpp)
//              scatter + allgather by recursive doubling or a ring
//              (van de Geijn, long messages)                             (scatter_allgather.cpp)
//   reduce     binomial tree to the root, fixed rank order; for a
//              non-commutative op the tree is rooted at rank 0 and rank 0
//              sends the result to the root (MPICH's scheme)              (binomial.cpp)
//              Rabenseifner: reduce-scatter + gather (commutative, long)  (rabenseifner.cpp)
//   allreduce  recursive doubling; with n not a power of two, the first
//              2*(n - 2^k) ranks fold pairwise first and get the result back
//              at the end (MPICH's scheme)                                (recursive_doubling.cpp)
//              Rabenseifner: reduce-scatter by recursive halving +
//              allgather by recursive doubling (commutative, long)        (rabenseifner.cpp)
//   gather, scatter  binomial tree of runs of blocks                      (binomial.cpp)
//              linear: the root posts one receive/send per rank           (linear.cpp)
//   allgather  recursive doubling (power of two of ranks)                (recursive_doubling.cpp)
//              Bruck                                                      (bruck.cpp)
//              ring, n-1 steps, each rank forwards the block it got last  (ring.cpp)
//   alltoall   Bruck (short blocks)                                       (bruck.cpp)
//              scattered: a throttled window of peers per round; pairwise
//              exchange: step i sends to rank+i, receives from rank-i     (pairwise.cpp)
//   gatherv, scatterv, allgatherv, alltoallv: as their fixed-size
//              counterparts' linear, ring and pairwise algorithms, with
//              per-rank counts and displacements                          (vector.cpp)
//   scan, exscan  recursive doubling, ceil(log2 n) exchanges              (scan.cpp)
//   reduce_scatter(_block)  recursive halving, pairwise (commutative), or
//              reduce to rank 0 then scatterv       (reduce_scatter.cpp, pairwise.cpp)
//   reduce_local  MPI_Reduce_local's checks around mpi::reduce_local      (reduce_local.cpp)
//   neighbor_*  one round: a receive from every source and a send to every
//              destination of the communicator's topology                 (neighbor.cpp)
//
// Reductions take a ReductionOp (op.hpp): a predefined op or a user-defined one. The
// tree of each algorithm is fixed, so a result does not depend on timing. The
// algorithms a non-commutative op may use combine operands in rank order, (lower
// ranks) op (higher ranks), as MPI prescribes: each step joins two partial results
// that cover adjacent ranges of ranks, the lower range as the left operand (`in` of
// reduce_local). Only the binomial reduce needs a different tree for it (above); for
// a commutative op it keeps its tree rooted at the root. Rabenseifner's, recursive
// halving and the pairwise reduce-scatter serve commutative ops only.
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
// All calls are collective; the blocking ones wait only through Context::wait (the
// fabric runtime), never through the out-of-band exchange.
#pragma once

#include <cstdint>
#include <span>

#include "mpi/core/communicator.hpp"
#include "mpi/core/context.hpp"
#include "mpi/core/datatype.hpp"
#include "mpi/core/in_place.hpp"
#include "mpi/core/op.hpp"

namespace twinfab::mpi {

/// How a collective call runs. Blocking: it returns once done (kRequestNull).
/// Nonblocking (MPI_Ibarrier, MPI_Ibcast, ...): the same algorithm as a schedule the
/// context advances (schedule.hpp); the call returns its request at once, and the
/// buffers must stay as they are until the request completes. Both modes check the
/// arguments in the call itself, and name the function the program called in errors.
enum class Mode : bool { Blocking, Nonblocking };

/// MPI_Barrier.
RequestId barrier(Context& context, const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Bcast: `count` elements of `type` at `buffer` from `root` to every rank.
RequestId bcast(Context& context, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
           const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Reduce. At the root `sendbuf` may be kInPlace (the input is in `recvbuf`);
/// `recvbuf` is used at the root only.
RequestId reduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
            const ReductionOp& op, int root, const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Allreduce. `sendbuf` may be kInPlace (the input is in `recvbuf`).
RequestId allreduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
               const ReductionOp& op, const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Gather: rank i's (sendcount, sendtype) lands at the root in recvbuf block i
/// (recvcount elements of recvtype). At the root `sendbuf` may be kInPlace (its block
/// is already in place); the recv arguments matter at the root only.
RequestId gather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
            void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Scatter: the root's sendbuf block i goes to rank i. At the root `recvbuf` may
/// be kInPlace (it keeps its block where it is); the send arguments matter at the
/// root only.
RequestId scatter(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
             void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Allgather. `sendbuf` may be kInPlace (each rank's block is in recvbuf).
RequestId allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
               void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Alltoall: block j of rank i's sendbuf lands in block i of rank j's recvbuf.
/// `sendbuf` may be kInPlace (recvbuf holds the outgoing blocks and is overwritten).
RequestId alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
              void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm, Mode mode = Mode::Blocking);

// ---- vector variants (vector.cpp): per-rank counts and displacements (in extents
// of the type), one entry per rank; the arrays matter where MPI says (the root's side
// of gatherv/scatterv, every rank for allgatherv/alltoallv). One algorithm each:
// linear through the root, ring, pairwise exchange.

/// MPI_Gatherv. At the root `sendbuf` may be kInPlace.
RequestId gatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                  void* recvbuf, std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> displs,
                  const DatatypePtr& recvtype, int root, const Communicator& comm, Mode mode = Mode::Blocking);
/// MPI_Scatterv. At the root `recvbuf` may be kInPlace.
RequestId scatterv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                   std::span<const std::int64_t> displs, const DatatypePtr& sendtype, void* recvbuf,
                   std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm,
                   Mode mode = Mode::Blocking);
/// MPI_Allgatherv. `sendbuf` may be kInPlace (each rank's block is at its displacement).
RequestId allgatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                     void* recvbuf, std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> displs,
                     const DatatypePtr& recvtype, const Communicator& comm, Mode mode = Mode::Blocking);
/// MPI_Alltoallv. `sendbuf` may be kInPlace (the outgoing blocks are recvbuf's, by
/// recvcounts and rdispls, and are overwritten).
RequestId alltoallv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                    std::span<const std::int64_t> sdispls, const DatatypePtr& sendtype, void* recvbuf,
                    std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                    const DatatypePtr& recvtype, const Communicator& comm, Mode mode = Mode::Blocking);

/// MPI_Alltoallw (alltoallw.cpp): alltoallv with a datatype per peer and byte
/// displacements. `sendbuf` may be kInPlace (the outgoing blocks are recvbuf's).
RequestId alltoallw(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                    std::span<const std::int64_t> sdispls, std::span<const DatatypePtr> sendtypes, void* recvbuf,
                    std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                    std::span<const DatatypePtr> recvtypes, const Communicator& comm, Mode mode = Mode::Blocking);

// ---- reduce-scatter: recursive halving, pairwise, or a binomial reduce to rank 0 then
// scatterv (selection.hpp).

/// MPI_Reduce_scatter: block i (recvcounts[i] elements) of the reduced vector goes to
/// rank i. `sendbuf` may be kInPlace (the whole input is in recvbuf). `where` names
/// the calling function in errors.
RequestId reduce_scatter(Context& context, const void* sendbuf, void* recvbuf, std::span<const std::int64_t> recvcounts,
                         const DatatypePtr& type, const ReductionOp& op, const Communicator& comm,
                         Mode mode = Mode::Blocking, const char* where = nullptr);
/// MPI_Reduce_scatter_block: every block has `recvcount` elements.
RequestId reduce_scatter_block(Context& context, const void* sendbuf, void* recvbuf, std::int64_t recvcount,
                          const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode = Mode::Blocking);

// ---- prefix reductions (scan.cpp): recursive doubling (MPICH's), ceil(log2 n) steps.

/// MPI_Scan: rank i gets the reduction of the inputs of ranks 0..i. `sendbuf` may be
/// kInPlace.
RequestId scan(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
          const ReductionOp& op, const Communicator& comm, Mode mode = Mode::Blocking);
/// MPI_Exscan: rank i > 0 gets the reduction of ranks 0..i-1; rank 0's recvbuf is left
/// as it was (MPI leaves it undefined). `sendbuf` may be kInPlace.
RequestId exscan(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
            const ReductionOp& op, const Communicator& comm, Mode mode = Mode::Blocking);

// ---- neighbourhood collectives (neighbor.cpp, MPI-3.1 §7.6) on a communicator with
// a topology (MPI_ERR_TOPOLOGY otherwise): block j of the receive side comes from
// source j, block i of the send side goes to destination i, in the order
// mpi::neighbourhood (topology.hpp) gives; a kProcNull neighbour's block is neither
// sent nor touched. Per-neighbour arrays have one entry per source (receive side) or
// destination (send side). MPI_IN_PLACE is not valid (MPI_ERR_BUFFER).

/// MPI_Neighbor_allgather: sendbuf to every destination; block j of recvbuf from source j.
RequestId neighbor_allgather(Context& context, const void* sendbuf, std::int64_t sendcount,
                             const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                             const DatatypePtr& recvtype, const Communicator& comm, Mode mode = Mode::Blocking);
/// MPI_Neighbor_allgatherv: source j's block at displacement displs[j] (in extents of
/// recvtype), recvcounts[j] elements.
RequestId neighbor_allgatherv(Context& context, const void* sendbuf, std::int64_t sendcount,
                              const DatatypePtr& sendtype, void* recvbuf, std::span<const std::int64_t> recvcounts,
                              std::span<const std::int64_t> displs, const DatatypePtr& recvtype,
                              const Communicator& comm, Mode mode = Mode::Blocking);
/// MPI_Neighbor_alltoall: block i of sendbuf to destination i.
RequestId neighbor_alltoall(Context& context, const void* sendbuf, std::int64_t sendcount,
                            const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                            const DatatypePtr& recvtype, const Communicator& comm, Mode mode = Mode::Blocking);
/// MPI_Neighbor_alltoallv.
RequestId neighbor_alltoallv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                             std::span<const std::int64_t> sdispls, const DatatypePtr& sendtype, void* recvbuf,
                             std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                             const DatatypePtr& recvtype, const Communicator& comm, Mode mode = Mode::Blocking);
/// MPI_Neighbor_alltoallw: a datatype per neighbour, displacements in bytes.
RequestId neighbor_alltoallw(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                             std::span<const std::int64_t> sdispls, std::span<const DatatypePtr> sendtypes,
                             void* recvbuf, std::span<const std::int64_t> recvcounts,
                             std::span<const std::int64_t> rdispls, std::span<const DatatypePtr> recvtypes,
                             const Communicator& comm, Mode mode = Mode::Blocking);

// ---- local reduction (reduce_local.cpp)

/// MPI_Reduce_local: inoutbuf[i] = inbuf[i] op inoutbuf[i], after the checks every
/// reduction makes: (count, type) and the op as for MPI_Reduce, MPI_ERR_BUFFER for a
/// null buffer with data, for MPI_IN_PLACE (not valid here) and for buffers that
/// overlap (MPICH's classes). No communication.
void reduce_local_checked(const void* inbuf, void* inoutbuf, std::int64_t count, const DatatypePtr& type,
                          const ReductionOp& op);

}  // namespace twinfab::mpi
