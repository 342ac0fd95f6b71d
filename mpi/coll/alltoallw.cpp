// MPI_Alltoallw: the pairwise exchange of alltoallv (step i sends to rank + i and
// receives from rank - i), with a datatype per peer and displacements in bytes.
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi {

namespace {

std::byte* at_bytes(void* buffer, int displ) noexcept { return static_cast<std::byte*>(buffer) + displ; }
const std::byte* at_bytes(const void* buffer, int displ) noexcept {
  return static_cast<const std::byte*>(buffer) + displ;
}

/// Per-peer (count, type) blocks of one side: counts non-negative, types committed,
/// buffer present where a block has data.
void check_blocks(const void* buffer, std::span<const std::int64_t> counts, std::span<const std::int64_t> displs,
                  std::span<const DatatypePtr> types, int ranks, const char* where, const char* counts_name,
                  const char* buffer_name) {
  coll::check_counts(counts, displs, ranks, where, counts_name);
  if (types.size() < static_cast<std::size_t>(ranks))
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({})", where, counts_name),
                fmt::format("{} datatypes for {} ranks", types.size(), ranks));
  for (int i = 0; i < ranks; ++i) {
    const auto k = static_cast<std::size_t>(i);
    coll::check_buffer(buffer, counts[k], types[k], where, buffer_name);
  }
}

}  // namespace

RequestId alltoallw(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                    std::span<const std::int64_t> sdispls, std::span<const DatatypePtr> sendtypes, void* recvbuf,
                    std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                    std::span<const DatatypePtr> recvtypes, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Alltoallw", "MPI_Ialltoallw");
  context.check_comm(comm, where);
  if (comm.is_inter()) {
    reject_in_place(sendbuf, where, "sendbuf");  // not on an intercommunicator
    return coll::inter_alltoallw(context, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                 recvtypes, true, comm, mode, where);
  }
  const int n = comm.size();
  const int rank = comm.rank();
  check_blocks(recvbuf, recvcounts, rdispls, recvtypes, n, where, "recvcounts", "recvbuf");
  if (sendbuf != kInPlace) {
    check_blocks(sendbuf, sendcounts, sdispls, sendtypes, n, where, "sendcounts", "sendbuf");
    coll::check_distinct(sendbuf, recvbuf, where);
  }
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Alltoallw, where, mode);
  const DatatypePtr& byte = context.datatype(BasicKind::Byte);
  // In place: the outgoing blocks are recvbuf's, which the exchange overwrites, so
  // each is first packed into scratch of its own and sent from there as bytes (the
  // receiver's type decides the layout; messages match by bytes).
  std::vector<std::pair<const void*, std::int64_t>> packed;  // per peer: scratch, bytes
  if (sendbuf == kInPlace) {
    packed.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (i == rank) continue;  // its own block stays where it is
      const std::int64_t bytes = packed_size(recvcounts[k], *recvtypes[k], where);
      void* copy = schedule->scratch(bytes, *byte);
      schedule->copy(at_bytes(recvbuf, rdispls[k]), recvcounts[k], recvtypes[k], copy, bytes, byte);
      packed[k] = {copy, bytes};
    }
  } else {
    const auto me = static_cast<std::size_t>(rank);
    schedule->copy(at_bytes(sendbuf, sdispls[me]), sendcounts[me], sendtypes[me], at_bytes(recvbuf, rdispls[me]),
                   recvcounts[me], recvtypes[me]);
  }
  for (int step = 1; step < n; ++step) {
    const auto dest = static_cast<std::size_t>((rank + step) % n);
    const auto source = static_cast<std::size_t>((rank - step + n) % n);
    schedule->recv(at_bytes(recvbuf, rdispls[source]), recvcounts[source], recvtypes[source],
                   static_cast<int>(source), step);
    if (sendbuf == kInPlace)
      schedule->send(packed[dest].first, packed[dest].second, byte, static_cast<int>(dest), step);
    else
      schedule->send(at_bytes(sendbuf, sdispls[dest]), sendcounts[dest], sendtypes[dest], static_cast<int>(dest),
                     step);
    schedule->next_round();
  }
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
