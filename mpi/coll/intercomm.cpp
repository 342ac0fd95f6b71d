// The collectives on an intercommunicator (intercomm.hpp), MPICH's algorithms for
// them: the data between the groups goes through the groups' leaders (local rank 0)
// or directly rank to rank, and the work inside a group runs on the
// intercommunicator's local intracommunicator with the intracommunicator builders
// (Schedule::local_group):
// - barrier: a barrier in each group, the leaders exchange a zero-byte message, each
//   leader releases its group by a binomial bcast;
// - bcast: the root sends to the remote leader, which bcasts in its group;
// - reduce: a reduce in the contributing group to its leader, which sends to the root;
// - allreduce: a reduce in each group, the leaders swap the results, a bcast in each;
// - gather / scatter: a gather to (scatter from) the leader, one message between the
//   leader and the root;
// - allgather: a gather in each group, the leaders swap, a bcast in each;
// - reduce_scatter(_block): a reduce in each group, the leaders swap, a scatter in each;
// - gatherv, scatterv, allgatherv, alltoall(v,w): rank to rank, all at once.
// The local steps run in the local intracommunicator's matching space, the others in
// the intercommunicator's; the latter carry steps of their own (kLeaderStep,
// kRankStep), which keeps them apart from the local builders' steps in traces.
#include <fmt/format.h>

#include <numeric>

#include "mpi/coll/algorithms.hpp"

namespace twinfab::mpi::coll {

namespace {

constexpr int kLeaderStep = 100;  ///< the leaders' exchange
constexpr int kRankStep = 101;    ///< rank-to-rank messages between the groups

/// What a rank does in a rooted collective on an intercommunicator.
enum class Role { Root, Idle, Contributor };

Role role_of(int root, const Communicator& comm, const char* where) {
  if (root == kRoot) return Role::Root;
  if (root == kProcNull) return Role::Idle;
  if (root < 0 || root >= comm.peer_count())
    throw Error(ErrorClass::MPI_ERR_ROOT, fmt::format("{}(root={})", where, root),
                fmt::format("invalid root on an intercommunicator: MPI_ROOT at the root, MPI_PROC_NULL at the rest "
                            "of its group, and the root's rank in the remote group ({} ranks) in the other group",
                            comm.peer_count()));
  return Role::Contributor;
}

bool leader(const Communicator& comm) { return comm.rank() == 0; }

/// Gathers (sendbuf, sendcount, sendtype) of every member of the local group into
/// `gathered` (size() blocks) at the local leader.
void add_local_gather(Schedule& schedule, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                      void* gathered) {
  schedule.local_group(true);
  const Communicator& local = schedule.comm();
  if (leader(local)) {
    schedule.copy(sendbuf, sendcount, sendtype, gathered, sendcount, sendtype);
    for (int i = 1; i < local.size(); ++i)
      schedule.recv(block(gathered, i, sendcount, *sendtype), sendcount, sendtype, i);
  } else {
    schedule.send(sendbuf, sendcount, sendtype, 0);
  }
  schedule.next_round();
  schedule.local_group(false);
}

/// Scatters blocks of `counts[i]` elements of `type` (consecutive, from `blocks` at
/// the leader) to the local group's members: member i receives its block into
/// (recvbuf, counts[i], type).
void add_local_scatter(Schedule& schedule, const void* blocks, std::span<const std::int64_t> counts,
                       const DatatypePtr& type, void* recvbuf) {
  schedule.local_group(true);
  const Communicator& local = schedule.comm();
  if (leader(local)) {
    std::int64_t offset = 0;
    for (int i = 0; i < local.size(); ++i) {
      const std::int64_t count = counts[static_cast<std::size_t>(i)];
      const std::byte* at_block = static_cast<const std::byte*>(blocks) + offset * type->extent();
      if (i == 0)
        schedule.copy(at_block, count, type, recvbuf, count, type);
      else
        schedule.send(at_block, count, type, i);
      offset += count;
    }
  } else {
    schedule.recv(recvbuf, counts[static_cast<std::size_t>(local.rank())], type, 0);
  }
  schedule.next_round();
  schedule.local_group(false);
}

}  // namespace

RequestId inter_barrier(Context& context, const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Barrier", "MPI_Ibarrier");
  auto schedule = std::make_unique<Schedule>(comm, Kind::Barrier, where, mode);
  const DatatypePtr& byte = context.datatype(BasicKind::Byte);
  schedule->local_group(true);
  add_barrier(*schedule, byte);  // every member of this group has entered
  schedule->local_group(false);
  void* token = schedule->scratch(1, *byte);
  if (leader(comm)) {  // ... and of the other group
    schedule->send(token, 1, byte, 0, kLeaderStep);
    schedule->recv(token, 1, byte, 0, kLeaderStep);
    schedule->next_round();
  }
  schedule->local_group(true);
  add_bcast(*schedule, token, 1, byte, 0);
  return execute(context, std::move(schedule));
}

RequestId inter_bcast(Context& context, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
                      const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Bcast", "MPI_Ibcast");
  const Role role = role_of(root, comm, where);
  if (role != Role::Idle) check_buffer(buffer, count, type, where, "buffer");
  auto schedule = std::make_unique<Schedule>(comm, Kind::Bcast, where, mode);
  if (role == Role::Root) {
    schedule->send(buffer, count, type, 0, kLeaderStep);
  } else if (role == Role::Contributor) {
    if (leader(comm)) {
      schedule->recv(buffer, count, type, root, kLeaderStep);
      schedule->next_round();
    }
    schedule->local_group(true);
    add_bcast(*schedule, buffer, count, type, 0);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_reduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count,
                       const DatatypePtr& type, const ReductionOp& op, int root, const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Reduce", "MPI_Ireduce");
  const Role role = role_of(root, comm, where);
  if (role == Role::Root) check_buffer(recvbuf, count, type, where, "recvbuf");
  if (role == Role::Contributor) check_buffer(sendbuf, count, type, where, "sendbuf");
  if (role != Role::Idle) check_reduction(op, type, where);
  auto schedule = std::make_unique<Schedule>(comm, Kind::Reduce, where, mode);
  if (role == Role::Root) {
    schedule->recv(recvbuf, count, type, 0, kLeaderStep);
  } else if (role == Role::Contributor) {
    void* result = leader(comm) ? schedule->scratch(count, *type) : nullptr;
    schedule->local_group(true);
    add_reduce(*schedule, sendbuf, result, count, type, op, 0);
    schedule->next_round();
    schedule->local_group(false);
    if (leader(comm)) schedule->send(result, count, type, root, kLeaderStep);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_allreduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count,
                          const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Allreduce", "MPI_Iallreduce");
  check_buffer(sendbuf, count, type, where, "sendbuf");
  check_buffer(recvbuf, count, type, where, "recvbuf");
  check_reduction(op, type, where);
  check_no_alias(sendbuf, count, *type, recvbuf, count, *type, where);
  auto schedule = std::make_unique<Schedule>(comm, Kind::Allreduce, where, mode);
  void* mine = leader(comm) ? schedule->scratch(count, *type) : nullptr;
  schedule->local_group(true);
  add_reduce(*schedule, sendbuf, mine, count, type, op, 0);
  schedule->next_round();
  schedule->local_group(false);
  if (leader(comm)) {
    schedule->send(mine, count, type, 0, kLeaderStep);
    schedule->recv(recvbuf, count, type, 0, kLeaderStep);
    schedule->next_round();
  }
  schedule->local_group(true);
  add_bcast(*schedule, recvbuf, count, type, 0);
  return execute(context, std::move(schedule));
}

RequestId inter_gather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                       void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                       const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Gather", "MPI_Igather");
  const Role role = role_of(root, comm, where);
  if (role == Role::Root) check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", comm.peer_count());
  if (role == Role::Contributor) check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  auto schedule = std::make_unique<Schedule>(comm, Kind::Gather, where, mode);
  if (role == Role::Root) {
    schedule->recv(recvbuf, recvcount * comm.peer_count(), recvtype, 0, kLeaderStep);
  } else if (role == Role::Contributor) {
    void* gathered = leader(comm) ? schedule->scratch(sendcount * comm.size(), *sendtype) : nullptr;
    add_local_gather(*schedule, sendbuf, sendcount, sendtype, gathered);
    if (leader(comm)) schedule->send(gathered, sendcount * comm.size(), sendtype, root, kLeaderStep);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_scatter(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                        const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Scatter", "MPI_Iscatter");
  const Role role = role_of(root, comm, where);
  if (role == Role::Root) check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", comm.peer_count());
  if (role == Role::Contributor) check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf");
  auto schedule = std::make_unique<Schedule>(comm, Kind::Scatter, where, mode);
  if (role == Role::Root) {
    schedule->send(sendbuf, sendcount * comm.peer_count(), sendtype, 0, kLeaderStep);
  } else if (role == Role::Contributor) {
    void* blocks = leader(comm) ? schedule->scratch(recvcount * comm.size(), *recvtype) : nullptr;
    if (leader(comm)) {
      schedule->recv(blocks, recvcount * comm.size(), recvtype, root, kLeaderStep);
      schedule->next_round();
    }
    const std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()), recvcount);
    add_local_scatter(*schedule, blocks, counts, recvtype, recvbuf);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_gatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                        void* recvbuf, std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> displs,
                        const DatatypePtr& recvtype, int root, const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Gatherv", "MPI_Igatherv");
  const Role role = role_of(root, comm, where);
  if (role == Role::Root) {
    check_counts(recvcounts, displs, comm.peer_count(), where, "recvcounts");
    for (int count : recvcounts) check_buffer(recvbuf, count, recvtype, where, "recvbuf");
  }
  if (role == Role::Contributor) check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  auto schedule = std::make_unique<Schedule>(comm, Kind::Gatherv, where, mode);
  if (role == Role::Root) {
    for (int i = 0; i < comm.peer_count(); ++i) {
      const auto at_i = static_cast<std::size_t>(i);
      schedule->recv(at(recvbuf, displs[at_i], *recvtype), recvcounts[at_i], recvtype, i, kRankStep);
    }
  } else if (role == Role::Contributor) {
    schedule->send(sendbuf, sendcount, sendtype, root, kRankStep);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_scatterv(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                         std::span<const std::int64_t> displs, const DatatypePtr& sendtype, void* recvbuf,
                         std::int64_t recvcount, const DatatypePtr& recvtype, int root, const Communicator& comm,
                         Mode mode) {
  const char* where = name(mode, "MPI_Scatterv", "MPI_Iscatterv");
  const Role role = role_of(root, comm, where);
  if (role == Role::Root) {
    check_counts(sendcounts, displs, comm.peer_count(), where, "sendcounts");
    for (int count : sendcounts) check_buffer(sendbuf, count, sendtype, where, "sendbuf");
  }
  if (role == Role::Contributor) check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf");
  auto schedule = std::make_unique<Schedule>(comm, Kind::Scatterv, where, mode);
  if (role == Role::Root) {
    for (int i = 0; i < comm.peer_count(); ++i) {
      const auto at_i = static_cast<std::size_t>(i);
      schedule->send(at(sendbuf, displs[at_i], *sendtype), sendcounts[at_i], sendtype, i, kRankStep);
    }
  } else if (role == Role::Contributor) {
    schedule->recv(recvbuf, recvcount, recvtype, root, kRankStep);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                          void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                          const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Allgather", "MPI_Iallgather");
  check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", comm.peer_count());
  auto schedule = std::make_unique<Schedule>(comm, Kind::Allgather, where, mode);
  const std::int64_t remote_count = recvcount * comm.peer_count();
  void* gathered = leader(comm) ? schedule->scratch(sendcount * comm.size(), *sendtype) : nullptr;
  add_local_gather(*schedule, sendbuf, sendcount, sendtype, gathered);
  if (leader(comm)) {
    schedule->send(gathered, sendcount * comm.size(), sendtype, 0, kLeaderStep);
    schedule->recv(recvbuf, remote_count, recvtype, 0, kLeaderStep);
    schedule->next_round();
  }
  schedule->local_group(true);
  add_bcast(*schedule, recvbuf, remote_count, recvtype, 0);
  return execute(context, std::move(schedule));
}

RequestId inter_allgatherv(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                           void* recvbuf, std::span<const std::int64_t> recvcounts,
                           std::span<const std::int64_t> displs, const DatatypePtr& recvtype, const Communicator& comm,
                           Mode mode) {
  const char* where = name(mode, "MPI_Allgatherv", "MPI_Iallgatherv");
  check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  check_counts(recvcounts, displs, comm.peer_count(), where, "recvcounts");
  for (int count : recvcounts) check_buffer(recvbuf, count, recvtype, where, "recvbuf");
  auto schedule = std::make_unique<Schedule>(comm, Kind::Allgatherv, where, mode);
  for (int i = 0; i < comm.peer_count(); ++i) {
    const auto at_i = static_cast<std::size_t>(i);
    schedule->recv(at(recvbuf, displs[at_i], *recvtype), recvcounts[at_i], recvtype, i, kRankStep);
    schedule->send(sendbuf, sendcount, sendtype, i, kRankStep);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                         void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                         const Communicator& comm, Mode mode) {
  const char* where = name(mode, "MPI_Alltoall", "MPI_Ialltoall");
  const int n = comm.peer_count();
  check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", n);
  check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  auto schedule = std::make_unique<Schedule>(comm, Kind::Alltoall, where, mode);
  // Starting at this rank's own index spreads the first messages over the remote group.
  for (int k = 0; k < n; ++k) {
    const int i = (comm.rank() + k) % n;
    schedule->recv(block(recvbuf, i, recvcount, *recvtype), recvcount, recvtype, i, kRankStep);
    schedule->send(block(sendbuf, i, sendcount, *sendtype), sendcount, sendtype, i, kRankStep);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_alltoallw(Context& context, const void* sendbuf, std::span<const std::int64_t> sendcounts,
                          std::span<const std::int64_t> sdispls, std::span<const DatatypePtr> sendtypes, void* recvbuf,
                          std::span<const std::int64_t> recvcounts, std::span<const std::int64_t> rdispls,
                          std::span<const DatatypePtr> recvtypes, bool byte_displacements, const Communicator& comm,
                          Mode mode, const char* where) {
  const int n = comm.peer_count();
  check_counts(sendcounts, sdispls, n, where, "sendcounts");
  check_counts(recvcounts, rdispls, n, where, "recvcounts");
  if (sendtypes.size() != static_cast<std::size_t>(n) || recvtypes.size() != static_cast<std::size_t>(n))
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "not one datatype per rank of the remote group");
  for (int i = 0; i < n; ++i) {
    const auto at_i = static_cast<std::size_t>(i);
    check_buffer(sendbuf, sendcounts[at_i], sendtypes[at_i], where, "sendbuf");
    check_buffer(recvbuf, recvcounts[at_i], recvtypes[at_i], where, "recvbuf");
  }
  auto address = [&](auto* buffer, int displ, const Datatype& type) {
    return byte_displacements ? buffer + displ : at(buffer, displ, type);
  };
  auto schedule = std::make_unique<Schedule>(comm, Kind::Alltoallw, where, mode);
  for (int k = 0; k < n; ++k) {
    const int i = (comm.rank() + k) % n;
    const auto at_i = static_cast<std::size_t>(i);
    schedule->recv(address(static_cast<std::byte*>(recvbuf), rdispls[at_i], *recvtypes[at_i]), recvcounts[at_i],
                   recvtypes[at_i], i, kRankStep);
    schedule->send(address(static_cast<const std::byte*>(sendbuf), sdispls[at_i], *sendtypes[at_i]),
                   sendcounts[at_i], sendtypes[at_i], i, kRankStep);
  }
  return execute(context, std::move(schedule));
}

RequestId inter_reduce_scatter(Context& context, const void* sendbuf, void* recvbuf,
                               std::span<const std::int64_t> recvcounts, std::int64_t recvcount,
                               const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode,
                               const char* where) {
  // The local group's blocks. Every input vector, here and in the other group, is as
  // long as their total (MPICH's reading of MPI-3.1 §5.10): the other group's blocks
  // must add up to the same.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()), recvcount);
  if (!recvcounts.empty()) {
    check_counts(recvcounts, recvcounts, comm.size(), where, "recvcounts");  // no displacements: the counts twice
    std::copy(recvcounts.begin(), recvcounts.end(), counts.begin());
  }
  const std::int64_t mine = counts[static_cast<std::size_t>(comm.rank())];
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  const std::int64_t input = total;
  check_buffer(sendbuf, input, type, where, "sendbuf");
  check_buffer(recvbuf, mine, type, where, "recvbuf");
  check_reduction(op, type, where);
  auto schedule = std::make_unique<Schedule>(comm, Kind::ReduceScatter, where, mode);
  // This group's inputs reduced at its leader go to the other group; the other
  // group's come back to be scattered here.
  void* reduced = leader(comm) ? schedule->scratch(input, *type) : nullptr;
  void* incoming = leader(comm) ? schedule->scratch(total, *type) : nullptr;
  schedule->local_group(true);
  add_reduce(*schedule, sendbuf, reduced, input, type, op, 0);
  schedule->next_round();
  schedule->local_group(false);
  if (leader(comm)) {
    schedule->send(reduced, input, type, 0, kLeaderStep);
    schedule->recv(incoming, total, type, 0, kLeaderStep);
    schedule->next_round();
  }
  add_local_scatter(*schedule, incoming, counts, type, recvbuf);
  return execute(context, std::move(schedule));
}

void add_allreduce_both_groups(Schedule& schedule, void* value, std::int64_t count, const DatatypePtr& type,
                               const ReductionOp& op) {
  void* remote = schedule.scratch(count, *type);
  schedule.local_group(true);
  add_allreduce(schedule, kInPlace, value, count, type, op);
  schedule.next_round();
  schedule.local_group(false);
  if (leader(schedule.comm())) {
    schedule.send(value, count, type, 0, kLeaderStep);
    schedule.recv(remote, count, type, 0, kLeaderStep);
    schedule.next_round();
  }
  schedule.local_group(true);
  add_bcast(schedule, remote, count, type, 0);
  schedule.next_round();
  schedule.local_group(false);
  schedule.reduce(op, remote, value, count, type);
}

}  // namespace twinfab::mpi::coll
