// twinfab MPI coll: what every collective algorithm shares (internal to mpi/coll and
// the communicator constructors): tags, argument checks, temporary buffers laid out
// like the user's, local copies between (count, type) pairs, and point-to-point
// steps in the collective matching space.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <span>
#include <string_view>
#include <vector>

#include "mpi/coll/collectives.hpp"

namespace twinfab::mpi::coll {

/// Tag ranges of the collective kinds inside a communicator's collective space: the
/// kind in bits 16 and up, the round/step in the low 16 bits. Distinct kinds keep a
/// late message of one collective from matching a receive of a different kind.
enum class Kind : int {
  Barrier = 1, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall,
  Gatherv, Scatterv, Allgatherv, Alltoallv, Scan, Exscan, Alltoallw, ReduceScatter,
  CreateGroup,  ///< MPI_Comm_create_group's agreement (mpi/core/comm_create.cpp)
  InterAgreement,  ///< the leaders' exchange of the intercommunicator constructors (mpi/core/intercomm.cpp)
  /// The neighbourhood collectives (neighbor.cpp)
  NeighborAllgather, NeighborAllgatherv, NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw,
  NodeMap,  ///< the allgather of the members' hosts (node_map.cpp)
};
constexpr int tag(Kind kind, int step = 0) noexcept { return (static_cast<int>(kind) << 16) | (step & 0xffff); }

// ---- argument checks; `where` is the MPI function name ("MPI_Bcast")
void check_root(int root, const Communicator& comm, const char* where);
/// (count, type) and the buffer of `blocks` such blocks (one per rank for the
/// root's side of gather/scatter): MPI_ERR_COUNT/MPI_ERR_TYPE as for point-to-point,
/// MPI_ERR_BUFFER naming `buffer_name` for a null buffer with data, and for
/// MPI_IN_PLACE (callers check the buffers the standard lets be MPI_IN_PLACE only
/// when they are not).
void check_buffer(const void* buffer, std::int64_t count, const DatatypePtr& type, const char* where,
                  const char* buffer_name, int blocks = 1);
/// The op is a predefined reduction defined on the type (MPI_REPLACE and MPI_NO_OP
/// belong to one-sided accumulate only), or a user-defined op (any type).
void check_reduction(const ReductionOp& op, const DatatypePtr& type, const char* where);
/// The buffers and op of an allreduce-like call (allreduce, scan, exscan), where every
/// rank passes `sendbuf` (or kInPlace: the input is in `recvbuf`) and `recvbuf`.
void check_all_reduction(const void* sendbuf, const void* recvbuf, std::int64_t count, const DatatypePtr& type,
                         const ReductionOp& op, const char* where);
/// Whether the bytes `a_count` elements of `a_type` at `a` span (from the first one
/// touched to the last) and those of (b, b_count, b_type) overlap.
bool buffers_overlap(const void* a, std::int64_t a_count, const Datatype& a_type, const void* b, std::int64_t b_count,
                     const Datatype& b_type);
/// MPI_ERR_BUFFER when the bytes of (send, send_count, send_type) and (recv,
/// recv_count, recv_type) overlap: MPI forbids aliasing unless MPI_IN_PLACE is used.
void check_no_alias(const void* send, std::int64_t send_count, const Datatype& send_type, const void* recv,
                    std::int64_t recv_count, const Datatype& recv_type, const char* where);

/// Byte address of block `index` of an array of `count`-element blocks of `type`.
inline std::byte* block(void* buffer, std::int64_t index, std::int64_t count, const Datatype& type) noexcept {
  return static_cast<std::byte*>(buffer) + index * count * type.extent();
}
inline const std::byte* block(const void* buffer, std::int64_t index, std::int64_t count,
                              const Datatype& type) noexcept {
  return static_cast<const std::byte*>(buffer) + index * count * type.extent();
}

/// Scratch memory for `count` elements of `type`, laid out as the user's buffer would
/// be (lower bound, holes and all), so it can be sent, received and reduced with the
/// same (count, type) as the user's buffer (MPICH's true_lb/true_extent trick). It
/// also spans each element's [lb, ub), which a user-defined op may write.
class TempBuffer {
 public:
  /// `memory`: where the bytes come from (a schedule's arena; the heap by default).
  TempBuffer(std::int64_t count, const Datatype& type,
             std::pmr::memory_resource* memory = std::pmr::get_default_resource());
  /// The address to pass as the buffer (may point before the allocation when the
  /// type's lower bounds are positive; only [data + min(lb, true_lb), ...) is touched).
  void* data() noexcept { return base_; }

 private:
  /// In chunks aligned as malloc's memory: the reduction kernels may use aligned
  /// loads on 16-byte types, and an arena hands out bytes at any address.
  struct alignas(alignof(std::max_align_t)) Chunk {
    std::byte bytes[alignof(std::max_align_t)];
  };
  std::pmr::vector<Chunk> storage_;
  void* base_ = nullptr;
};

/// Copies (in_count, in_type) at `in` into (out_count, out_type) at `out` by packing,
/// as a message to oneself would. MPI_ERR_TRUNCATE when the input is longer.
void local_copy(const void* in, std::int64_t in_count, const Datatype& in_type, void* out, std::int64_t out_count,
                const Datatype& out_type, const char* where);

/// Throws MPI_ERR_TRUNCATE when a receive of a collective was truncated (the ranks'
/// counts or types disagree).
void check_received(const MessageStatus& status, const char* where);

/// Per-rank (counts, displacements) arrays of a v-collective: one entry per rank of
/// the communicator, counts non-negative (MPI_ERR_COUNT naming `counts_name`).
void check_counts(std::span<const std::int64_t> counts, std::span<const std::int64_t> displs, int ranks,
                  const char* where, const char* counts_name);
/// Byte address of the block at displacement `displ` (in extents of `type`).
inline std::byte* at(void* buffer, std::int64_t displ, const Datatype& type) noexcept {
  return static_cast<std::byte*>(buffer) + displ * type.extent();
}
inline const std::byte* at(const void* buffer, std::int64_t displ, const Datatype& type) noexcept {
  return static_cast<const std::byte*>(buffer) + displ * type.extent();
}

/// The v-collectives' aliasing check (MPICH's): MPI_ERR_BUFFER when `send` and `recv`
/// are one address. Their blocks lie where the displacements put them, so a partial
/// overlap is not looked for (the fixed-size collectives use check_no_alias).
void check_distinct(const void* send, const void* recv, const char* where);

/// The checks every rank of a rooted gather (gather, gatherv) makes first: the
/// communicator, the root and the contribution (MPI_IN_PLACE is only valid at the
/// root). Returns whether this rank is the root.
bool check_gather_contribution(Context& context, const void* sendbuf, std::int64_t sendcount,
                               const DatatypePtr& sendtype, int root, const Communicator& comm, const char* where);
/// The same for a rooted scatter (scatter, scatterv) and its receive buffer.
bool check_scatter_destination(Context& context, void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                               int root, const Communicator& comm, const char* where);

/// The MPI function's name for the mode it runs in: `blocking` or `nonblocking`.
constexpr const char* name(Mode mode, const char* blocking, const char* nonblocking) noexcept {
  return mode == Mode::Nonblocking ? nonblocking : blocking;
}

}  // namespace twinfab::mpi::coll
