// twinfab MPI coll: the steps of every algorithm, added to a schedule whose call has
// checked its arguments already (the calls are tuned.cpp, which picks the algorithm
// through selection.hpp, and the collectives built from others: reduce-scatter from a
// reduce and a scatterv, MPI_Comm_idup's agreement from allreduces, the
// intercommunicator collectives from their groups' trees). Internal to mpi/coll.
//
// Each builder handles every communicator size and count it is chosen for, including
// one rank and no data; those that apply to some calls only (a power of two of ranks,
// a commutative op, count >= the largest power of two of ranks) say so, and the
// selection never hands them another call. Steps: the `step` numbers of a builder's
// messages, so that a collective made of two builders keeps them apart.
#pragma once

#include <span>

#include "mpi/coll/intercomm.hpp"
#include "mpi/coll/schedule.hpp"
#include "mpi/core/node_map.hpp"

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

/// Rabenseifner's allreduce (rabenseifner.cpp): commutative op, count >= the largest
/// power of two of ranks (or nothing to move). sendbuf may be kInPlace.
void add_allreduce_rabenseifner(Schedule& schedule, const void* sendbuf, void* recvbuf, std::int64_t count,
                                const DatatypePtr& type, const ReductionOp& op);
/// Rabenseifner's reduce (rabenseifner.cpp): reduce-scatter + gather to `root`; the
/// same conditions. `result` matters at the root only (and may be `input` there).
void add_reduce_rabenseifner(Schedule& schedule, const void* input, void* result, std::int64_t count,
                             const DatatypePtr& type, const ReductionOp& op, int root);

// ---- allgather: the ring and recursive doubling expect every rank's own block in
// place in recvbuf already; Bruck's copies it from sendbuf (or kInPlace) itself.
/// Ring (ring.cpp).
void add_allgather_ring(Schedule& schedule, void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype);
/// Recursive doubling (recursive_doubling.cpp): a power of two of ranks.
void add_allgather_recursive_doubling(Schedule& schedule, void* recvbuf, std::int64_t recvcount,
                                      const DatatypePtr& recvtype);
/// Bruck (bruck.cpp).
void add_allgather_bruck(Schedule& schedule, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                         void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype);

/// Scatter + allgather broadcast (scatter_allgather.cpp): the allgather around a
/// `ring`, or by recursive doubling (a power of two of ranks).
void add_bcast_scatter_allgather(Schedule& schedule, void* buffer, std::int64_t count, const DatatypePtr& type,
                                 int root, bool ring);

// ---- alltoall; sendbuf may be kInPlace (the blocks are recvbuf's).
/// Pairwise exchange (pairwise.cpp).
void add_alltoall_pairwise(Schedule& schedule, const void* sendbuf, std::int64_t sendcount,
                           const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                           const DatatypePtr& recvtype);
/// Scattered (pairwise.cpp): `throttle` peers per round (0: all).
void add_alltoall_scattered(Schedule& schedule, const void* sendbuf, std::int64_t sendcount,
                            const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                            const DatatypePtr& recvtype, int throttle);
/// Bruck (bruck.cpp).
void add_alltoall_bruck(Schedule& schedule, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype);

// ---- reduce-scatter: block i (counts[i] elements at displs[i], the prefix sums) of
// the reduced `total`-element input goes to rank i's recvbuf. `input` may be recvbuf
// (in place).
/// A binomial reduce to rank 0, then its scatterv (reduce_scatter.cpp); any op.
void add_reduce_scatter_reduce_scatterv(Schedule& schedule, const void* input, void* recvbuf,
                                        std::span<const std::int64_t> counts, std::span<const std::int64_t> displs,
                                        std::int64_t total, const DatatypePtr& type, const ReductionOp& op);
/// Recursive halving (reduce_scatter.cpp): commutative op.
void add_reduce_scatter_recursive_halving(Schedule& schedule, const void* input, void* recvbuf,
                                          std::span<const std::int64_t> counts,
                                          std::span<const std::int64_t> displs, std::int64_t total,
                                          const DatatypePtr& type, const ReductionOp& op);
/// Pairwise exchange (pairwise.cpp): commutative op.
void add_reduce_scatter_pairwise(Schedule& schedule, const void* input, void* recvbuf,
                                 std::span<const std::int64_t> counts, std::span<const std::int64_t> displs,
                                 const DatatypePtr& type, const ReductionOp& op);

// ---- gather and scatter, as MPI_Gather / MPI_Scatter take their arguments (the
// root's own block may be kInPlace).
/// Binomial trees (binomial.cpp).
void add_gather_binomial(Schedule& schedule, const void* sendbuf, std::int64_t sendcount,
                         const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                         const DatatypePtr& recvtype, int root);
void add_scatter_binomial(Schedule& schedule, const void* sendbuf, std::int64_t sendcount,
                          const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                          const DatatypePtr& recvtype, int root);
/// Linear: the root posts a transfer per rank (linear.cpp).
void add_gather_linear(Schedule& schedule, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                       void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root);
void add_scatter_linear(Schedule& schedule, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root);

// ---- node-aware (node_aware.cpp): on a communicator whose node map is hierarchical
// (`map`, kept alive by the schedule's caller); `among_hosts` is the flat algorithm
// the hosts' representatives run (never NodeAware or Auto). Reductions: commutative
// ops only.
void add_barrier_node_aware(Schedule& schedule, const NodeMap& map, const DatatypePtr& byte);
void add_allreduce_node_aware(Schedule& schedule, const NodeMap& map, const void* sendbuf, void* recvbuf,
                              std::int64_t count, const DatatypePtr& type, const ReductionOp& op,
                              AllreduceAlgorithm among_hosts);
void add_bcast_node_aware(Schedule& schedule, const NodeMap& map, void* buffer, std::int64_t count,
                          const DatatypePtr& type, int root, BcastAlgorithm among_hosts);
/// sendbuf may be kInPlace.
void add_allgather_node_aware(Schedule& schedule, const NodeMap& map, const void* sendbuf, std::int64_t sendcount,
                              const DatatypePtr& sendtype, void* recvbuf, std::int64_t recvcount,
                              const DatatypePtr& recvtype);
/// `result` matters at the root only (and may be `input` there).
void add_reduce_node_aware(Schedule& schedule, const NodeMap& map, const void* input, void* result,
                           std::int64_t count, const DatatypePtr& type, const ReductionOp& op, int root,
                           ReduceAlgorithm among_hosts);

/// The root's linear scatterv (vector.cpp): block i, recvcounts[i] elements at
/// displs[i], to rank i; the root's own block is copied into (recvbuf, recvcount,
/// recvtype) unless recvbuf is kInPlace. Its messages use `step`.
void add_scatterv_from_root(Schedule& schedule, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                            std::span<const std::int64_t> displs, const DatatypePtr& sendtype, void* recvbuf,
                            std::int64_t recvcount, const DatatypePtr& recvtype, int step);

}  // namespace twinfab::mpi::coll
