#include "mpi/coll/coll_support.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace twinfab::mpi::coll {

void check_root(int root, const Communicator& comm, const char* where) {
  if (root < 0 || root >= comm.size())
    throw Error(ErrorClass::MPI_ERR_ROOT, fmt::format("{}(root={})", where, root),
                fmt::format("invalid root; communicator has {} ranks", comm.size()));
}

void check_buffer(const void* buffer, std::int64_t count, const DatatypePtr& type, const char* where,
                  const char* buffer_name, int blocks) {
  reject_in_place(buffer, where, buffer_name);
  check_buffer_type(count, type.get(), where);
  const std::int64_t bytes = packed_size(count * blocks, *type, where);
  if (buffer == nullptr && bytes > 0 && !type->may_be_absolute())
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}({})", where, buffer_name),
                "null buffer with a non-empty message");
}

void check_all_reduction(const void* sendbuf, const void* recvbuf, std::int64_t count, const DatatypePtr& type,
                         const ReductionOp& op, const char* where) {
  check_buffer(recvbuf, count, type, where, "recvbuf");
  if (sendbuf != kInPlace) check_buffer(sendbuf, count, type, where, "sendbuf");
  check_reduction(op, type, where);
  if (sendbuf != kInPlace) check_no_alias(sendbuf, count, *type, recvbuf, count, *type, where);
}

void check_counts(std::span<const std::int64_t> counts, std::span<const std::int64_t> displs, int ranks,
                  const char* where, const char* counts_name) {
  if (counts.size() < static_cast<std::size_t>(ranks) || displs.size() < static_cast<std::size_t>(ranks))
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({})", where, counts_name),
                fmt::format("{} counts and {} displacements for {} ranks", counts.size(), displs.size(), ranks));
  for (int i = 0; i < ranks; ++i)
    if (counts[static_cast<std::size_t>(i)] < 0)
      throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}({}[{}]={})", where, counts_name, i, counts[static_cast<std::size_t>(i)]),
                  "count must be non-negative");
}

void check_reduction(const ReductionOp& op, const DatatypePtr& type, const char* where) {
  if (!op.is_user() && (op.predefined() == Op::Replace || op.predefined() == Op::NoOp))
    throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op={})", where, to_string(op.predefined())),
                "not a reduction operation; it is for MPI_Accumulate and MPI_Get_accumulate only");
  check_op(op, type.get(), where);
}

namespace {
// [first, last) of the bytes `count` elements of `type` at `buffer` touch.
std::pair<std::uintptr_t, std::uintptr_t> byte_range(const void* buffer, std::int64_t count, const Datatype& type) {
  const auto base = reinterpret_cast<std::uintptr_t>(buffer);
  const std::int64_t first = type.true_lb() + std::min<std::int64_t>(0, (count - 1) * type.extent());
  const std::int64_t last = type.true_lb() + type.true_extent() + std::max<std::int64_t>(0, (count - 1) * type.extent());
  return {base + static_cast<std::uintptr_t>(first), base + static_cast<std::uintptr_t>(last)};
}
}  // namespace

bool buffers_overlap(const void* a, std::int64_t a_count, const Datatype& a_type, const void* b, std::int64_t b_count,
                     const Datatype& b_type) {
  if (a == nullptr || b == nullptr || a_count == 0 || b_count == 0) return false;
  if (a_type.size() == 0 || b_type.size() == 0) return false;
  const auto [a0, a1] = byte_range(a, a_count, a_type);
  const auto [b0, b1] = byte_range(b, b_count, b_type);
  return a0 < b1 && b0 < a1;
}

void check_no_alias(const void* send, std::int64_t send_count, const Datatype& send_type, const void* recv,
                    std::int64_t recv_count, const Datatype& recv_type, const char* where) {
  if (buffers_overlap(send, send_count, send_type, recv, recv_count, recv_type))
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(sendbuf)", where),
                "send and receive buffers overlap; pass MPI_IN_PLACE as sendbuf to work in the receive buffer");
}

void check_distinct(const void* send, const void* recv, const char* where) {
  if (send != nullptr && send != kInPlace && send == recv)
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(sendbuf)", where),
                "sendbuf and recvbuf are the same buffer; pass MPI_IN_PLACE as sendbuf to work in the receive "
                "buffer");
}

TempBuffer::TempBuffer(std::int64_t count, const Datatype& type, std::pmr::memory_resource* memory)
    : storage_(memory) {
  if (count <= 0 || type.size() == 0) return;
  // The bytes the type touches (true_extent for the first element, one extent per
  // further one) plus one more extent: the reduction kernels work on whole C
  // elements, so for a pair type they also write the struct's trailing padding,
  // which lies past true_extent. A user-defined op's function sees the elements as
  // the program declared them (a C struct from lb to ub, say) and may write all of
  // one, holes included, so [lb, ub) of the first element is covered as well. (A
  // negative extent is legal MPI, but no block layout of a collective uses one.)
  const std::int64_t extent = std::max<std::int64_t>(type.extent(), 0);
  const std::int64_t first = std::min(type.true_lb(), type.lb());
  const std::int64_t last = std::max(type.true_lb() + type.true_extent(), type.ub()) + count * extent;
  storage_.resize((static_cast<std::size_t>(last - first) + sizeof(Chunk) - 1) / sizeof(Chunk));
  base_ = reinterpret_cast<std::byte*>(storage_.data()) - first;
}

void local_copy(const void* in, std::int64_t in_count, const Datatype& in_type, void* out, std::int64_t out_count,
                const Datatype& out_type, const char* where) {
  const auto in_bytes = static_cast<std::size_t>(packed_size(in_count, in_type, where));
  const auto out_bytes = static_cast<std::size_t>(packed_size(out_count, out_type, where));
  if (in_bytes > out_bytes)
    throw Error(ErrorClass::MPI_ERR_TRUNCATE, fmt::format("{}(recvcount={})", where, out_count),
                fmt::format("{} bytes sent into a {}-byte receive; counts or types do not match", in_bytes, out_bytes));
  if (in_bytes == 0) return;
  if (in_type.is_contiguous() && out_type.is_contiguous()) {
    std::copy_n(static_cast<const std::byte*>(in) + in_type.blocks().front().offset, in_bytes,
                static_cast<std::byte*>(out) + out_type.blocks().front().offset);
    return;
  }
  std::vector<std::byte> packed(in_bytes);
  pack(in, in_count, in_type, 0, packed, where);
  unpack(packed, out, out_count, out_type, 0, where);
}

void check_received(const MessageStatus& status, const char* where) {
  if (status.error == ErrorClass::MPI_ERR_TRUNCATE)
    throw Error(ErrorClass::MPI_ERR_TRUNCATE, fmt::format("{}(count)", where),
                fmt::format("rank {} sent more than this rank receives; the ranks' counts or types do not match",
                            status.source));
  if (status.error != ErrorClass::MPI_SUCCESS)
    throw Error(status.error, where, fmt::format("a message from rank {} failed", status.source));
}

bool check_gather_contribution(Context& context, const void* sendbuf, std::int64_t sendcount,
                               const DatatypePtr& sendtype, int root, const Communicator& comm, const char* where) {
  context.check_comm(comm, where);
  check_root(root, comm, where);
  const bool is_root = comm.rank() == root;
  if (sendbuf == kInPlace && !is_root)
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(sendbuf)", where),
                "MPI_IN_PLACE is only valid at the root of a gather");
  if (sendbuf != kInPlace) check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  return is_root;
}

bool check_scatter_destination(Context& context, void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                               int root, const Communicator& comm, const char* where) {
  context.check_comm(comm, where);
  check_root(root, comm, where);
  const bool is_root = comm.rank() == root;
  if (recvbuf == kInPlace && !is_root)
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(recvbuf)", where),
                "MPI_IN_PLACE is only valid at the root of a scatter");
  if (recvbuf != kInPlace) check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf");
  return is_root;
}

}  // namespace twinfab::mpi::coll
