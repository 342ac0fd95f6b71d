// The neighbourhood collectives (MPI-3.1 §7.6): one round that posts a receive from
// every source of the communicator's topology and a send to every destination
// (MPICH's linear schedule), in the order mpi::neighbourhood gives. kProcNull
// neighbours (the borders of a non-periodic grid) keep their block but move nothing.
//
// Matching. Messages between two ranks match in the order they are posted, so
// repeated edges of a graph pair up in order. A Cartesian grid needs more: along a
// periodic dimension of 1 or 2 processes one rank is both the negative and the
// positive neighbour, and the block a rank sends in the positive direction must land
// in the receiver's block from its negative neighbour. The direction is the step of
// the message (cartesian_send_step / cartesian_recv_step), so each block finds its
// place whatever the grid.
#include <fmt/format.h>

#include "mpi/coll/schedule.hpp"

namespace twinfab::mpi {

namespace {

int send_step(const Neighbourhood& n, std::size_t i) noexcept { return n.cartesian ? cartesian_send_step(i) : 0; }
int recv_step(const Neighbourhood& n, std::size_t j) noexcept { return n.cartesian ? cartesian_recv_step(j) : 0; }

/// The neighbourhood of `comm` after the communicator check (MPI_ERR_COMM first).
Neighbourhood neighbours_of(Context& context, const Communicator& comm, const char* where) {
  context.check_comm(comm, where);
  return neighbourhood(comm, where);
}

/// MPI_ERR_ARG when a per-neighbour array has fewer entries than neighbours.
void check_length(std::size_t size, std::size_t neighbours, const char* where, const char* arg) {
  if (size < neighbours)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({})", where, arg),
                fmt::format("{} entries for {} neighbours", size, neighbours));
}

/// The fixed-size forms' aliasing check: the bytes the send side reads and those the
/// receive side writes must not overlap (MPI_IN_PLACE has no meaning here).
void check_no_overlap(const void* send, std::int64_t send_count, const Datatype& send_type, const void* recv,
                      std::int64_t recv_count, const Datatype& recv_type, const char* where) {
  if (coll::buffers_overlap(send, send_count, send_type, recv, recv_count, recv_type))
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(sendbuf)", where), "send and receive buffers overlap");
}

std::byte* at_bytes(void* buffer, std::int64_t displ) noexcept { return static_cast<std::byte*>(buffer) + displ; }
const std::byte* at_bytes(const void* buffer, std::int64_t displ) noexcept {
  return static_cast<const std::byte*>(buffer) + displ;
}

/// One neighbour's block: where it is, and its (count, type).
struct NeighbourBlock {
  const void* buffer;
  std::int64_t count;
  const DatatypePtr& type;
};

/// Receives every source's block (`block(j)` for source j) but kProcNull's.
template <class BlockOf>
void receive_from_sources(coll::Schedule& schedule, const Neighbourhood& n, BlockOf block) {
  for (std::size_t j = 0; j < n.sources.size(); ++j) {
    if (n.sources[j] == kProcNull) continue;
    const NeighbourBlock b = block(j);
    // A receive block lies in the caller's (writable) recvbuf; NeighbourBlock is shared with
    // the send side, hence const.
    schedule.recv(const_cast<void*>(b.buffer), b.count, b.type, n.sources[j], recv_step(n, j));
  }
}

/// Sends every destination's block (`block(i)` for destination i) but kProcNull's.
template <class BlockOf>
void send_to_destinations(coll::Schedule& schedule, const Neighbourhood& n, BlockOf block) {
  for (std::size_t i = 0; i < n.destinations.size(); ++i) {
    if (n.destinations[i] == kProcNull) continue;
    const NeighbourBlock b = block(i);
    schedule.send(b.buffer, b.count, b.type, n.destinations[i], send_step(n, i));
  }
}

}  // namespace

RequestId neighbor_allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                             void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                             const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Neighbor_allgather", "MPI_Ineighbor_allgather");
  const Neighbourhood n = neighbours_of(context, comm, where);
  const auto in = static_cast<std::int64_t>(n.sources.size());
  coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", static_cast<int>(in));
  check_no_overlap(sendbuf, sendcount, *sendtype, recvbuf, recvcount * in, *recvtype, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::NeighborAllgather, where, mode);
  receive_from_sources(*schedule, n, [&](std::size_t j) {
    return NeighbourBlock{coll::block(recvbuf, static_cast<std::int64_t>(j), recvcount, *recvtype), recvcount,
                          recvtype};
  });
  send_to_destinations(*schedule, n, [&](std::size_t) { return NeighbourBlock{sendbuf, sendcount, sendtype}; });
  return coll::execute(context, std::move(schedule));
}

RequestId neighbor_allgatherv(Context& context, const void* sendbuf, std::int64_t sendcount,
                              const DatatypePtr& sendtype, void* recvbuf, std::span<const std::int64_t> recvcounts,
                              std::span<const std::int64_t> displs, const DatatypePtr& recvtype,
                              const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Neighbor_allgatherv", "MPI_Ineighbor_allgatherv");
  const Neighbourhood n = neighbours_of(context, comm, where);
  coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  const auto in = static_cast<int>(n.sources.size());
  coll::check_counts(recvcounts, displs, in, where, "recvcounts");
  for (int j = 0; j < in; ++j)
    coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(j)], recvtype, where, "recvbuf");
  coll::check_distinct(sendbuf, recvbuf, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::NeighborAllgatherv, where, mode);
  receive_from_sources(*schedule, n, [&](std::size_t j) {
    return NeighbourBlock{coll::at(recvbuf, displs[j], *recvtype), recvcounts[j], recvtype};
  });
  send_to_destinations(*schedule, n, [&](std::size_t) { return NeighbourBlock{sendbuf, sendcount, sendtype}; });
  return coll::execute(context, std::move(schedule));
}

RequestId neighbor_alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                            void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                            const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Neighbor_alltoall", "MPI_Ineighbor_alltoall");
  const Neighbourhood n = neighbours_of(context, comm, where);
  const auto in = static_cast<std::int64_t>(n.sources.size());
  const auto out = static_cast<std::int64_t>(n.destinations.size());
  coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", static_cast<int>(out));
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", static_cast<int>(in));
  check_no_overlap(sendbuf, sendcount * out, *sendtype, recvbuf, recvcount * in, *recvtype, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::NeighborAlltoall, where, mode);
  receive_from_sources(*schedule, n, [&](std::size_t j) {
    return NeighbourBlock{coll::block(recvbuf, static_cast<std::int64_t>(j), recvcount, *recvtype), recvcount,
                          recvtype};
  });
  send_to_destinations(*schedule, n, [&](std::size_t i) {
    return NeighbourBlock{coll::block(sendbuf, static_cast<std::int64_t>(i), sendcount, *sendtype), sendcount,
                          sendtype};
  });
  return coll::execute(context, std::move(schedule));
}

RequestId neighbor_alltoallv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                             std::span<const std::int64_t> sdispls, const DatatypePtr& sendtype, void* recvbuf,
                             std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                             const DatatypePtr& recvtype, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Neighbor_alltoallv", "MPI_Ineighbor_alltoallv");
  const Neighbourhood n = neighbours_of(context, comm, where);
  const auto in = static_cast<int>(n.sources.size());
  const auto out = static_cast<int>(n.destinations.size());
  coll::check_counts(sendcounts, sdispls, out, where, "sendcounts");
  for (int i = 0; i < out; ++i)
    coll::check_buffer(sendbuf, sendcounts[static_cast<std::size_t>(i)], sendtype, where, "sendbuf");
  coll::check_counts(recvcounts, rdispls, in, where, "recvcounts");
  for (int j = 0; j < in; ++j)
    coll::check_buffer(recvbuf, recvcounts[static_cast<std::size_t>(j)], recvtype, where, "recvbuf");
  coll::check_distinct(sendbuf, recvbuf, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::NeighborAlltoallv, where, mode);
  receive_from_sources(*schedule, n, [&](std::size_t j) {
    return NeighbourBlock{coll::at(recvbuf, rdispls[j], *recvtype), recvcounts[j], recvtype};
  });
  send_to_destinations(*schedule, n, [&](std::size_t i) {
    return NeighbourBlock{coll::at(sendbuf, sdispls[i], *sendtype), sendcounts[i], sendtype};
  });
  return coll::execute(context, std::move(schedule));
}

RequestId neighbor_alltoallw(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                             std::span<const std::int64_t> sdispls, std::span<const DatatypePtr> sendtypes,
                             void* recvbuf, std::span<const std::int64_t> recvcounts,
                             std::span<const std::int64_t> rdispls, std::span<const DatatypePtr> recvtypes,
                             const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw");
  const Neighbourhood n = neighbours_of(context, comm, where);
  // Per neighbour: counts non-negative, types committed, a buffer where there is data.
  const auto check_side = [&](const void* buffer, std::span<const std::int64_t> counts,
                              std::span<const std::int64_t> displs, std::span<const DatatypePtr> types,
                              std::size_t neighbours, const char* counts_name, const char* displs_name,
                              const char* types_name, const char* buffer_name) {
    check_length(counts.size(), neighbours, where, counts_name);
    check_length(displs.size(), neighbours, where, displs_name);
    check_length(types.size(), neighbours, where, types_name);
    for (std::size_t k = 0; k < neighbours; ++k) {
      if (counts[k] < 0)
        throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}({}[{}]={})", where, counts_name, k, counts[k]),
                    "count must be non-negative");
      coll::check_buffer(buffer, counts[k], types[k], where, buffer_name);
    }
  };
  check_side(sendbuf, sendcounts, sdispls, sendtypes, n.destinations.size(), "sendcounts", "sdispls", "sendtypes",
             "sendbuf");
  check_side(recvbuf, recvcounts, rdispls, recvtypes, n.sources.size(), "recvcounts", "rdispls", "recvtypes",
             "recvbuf");
  coll::check_distinct(sendbuf, recvbuf, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::NeighborAlltoallw, where, mode);
  receive_from_sources(*schedule, n, [&](std::size_t j) {
    return NeighbourBlock{at_bytes(recvbuf, rdispls[j]), recvcounts[j], recvtypes[j]};
  });
  send_to_destinations(*schedule, n, [&](std::size_t i) {
    return NeighbourBlock{at_bytes(sendbuf, sdispls[i]), sendcounts[i], sendtypes[i]};
  });
  return coll::execute(context, std::move(schedule));
}

}  // namespace twinfab::mpi
