// Intercommunicators (MPI-3.1 §6.6): MPI_Intercomm_create, MPI_Intercomm_merge, and
// MPI_Comm_dup / MPI_Comm_split / MPI_Comm_create on an intercommunicator.
//
// Every one of these is the same exchange: each member contributes a record of a few
// ints (its color and key, its next free context id, ...), the records are gathered
// in its local group (an allgather), the two groups' leaders swap their groups'
// records and each leader broadcasts the other group's in its own group. Then every
// member of both groups holds every record and computes the same result: the groups
// of the new communicator, and its context id, the max of every next free id of both
// groups (so that it is unused on every member, as for an intracommunicator's
// constructors, comm_create.cpp). An intercommunicator takes four ids, id and id + 1
// for its own point-to-point and collective spaces, id + 2 and id + 3 for its local
// intracommunicator's.
//
// The leaders swap over peer_comm's point-to-point space with the user's tag in
// MPI_Intercomm_create (MPI-3.1 §6.6.2: the tag is there to keep this exchange apart
// from other traffic on peer_comm; Open MPI does the same), and over the
// intercommunicator's collective space (local rank 0 with remote rank 0) in the others.
//
// This is MPICH's MPIR_Intercomm_create / MPIR_Intercomm_merge scheme, with the
// context-id agreement folded into the same exchange.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <tuple>

#include "mpi/coll/schedule.hpp"
#include "mpi/core/context.hpp"

namespace twinfab::mpi {

namespace {

/// The records of both groups, each in its group's rank order.
struct GroupRecords {
  std::vector<int> local;
  std::vector<int> remote;
};

/// What a leader does with its group's records: gives them to the other group's
/// leader and returns that group's.
using LeaderSwap = std::function<std::vector<int>(const std::vector<int>&)>;

/// Sent instead of the remote records' length when the local leader refused its own
/// arguments (MPI_Intercomm_create's peer_comm and remote_leader are checked there
/// only): the other members then fail too instead of waiting.
constexpr int kLeaderFailed = -1;

/// Allgathers `record` (the same length on every member) over `local`, has the leader
/// swap the result with the remote group's, and broadcasts what came back. `swap`
/// may throw at the leader: the other members then throw MPI_ERR_COMM too.
GroupRecords exchange_records(Context& context, const Communicator& local, int leader,
                                     std::span<const int> record, const LeaderSwap& swap, const char* where) {
  const DatatypePtr& type = context.datatype(BasicKind::Int);
  const auto length = static_cast<std::int64_t>(record.size());
  GroupRecords records;
  records.local.resize(record.size() * static_cast<std::size_t>(local.size()));
  allgather(context, record.data(), length, type, records.local.data(), length, type, local);
  int remote_length = 0;
  std::optional<Error> failure;
  if (local.rank() == leader) {
    try {
      records.remote = swap(records.local);
      remote_length = static_cast<int>(records.remote.size());
    } catch (const Error& error) {
      failure = error;
      remote_length = kLeaderFailed;
    }
  }
  bcast(context, &remote_length, 1, type, leader, local);
  if (failure) throw *failure;
  if (remote_length == kLeaderFailed)
    throw Error(ErrorClass::MPI_ERR_COMM, where,
                fmt::format("the local leader (rank {}) failed to exchange with the remote group", leader));
  records.remote.resize(static_cast<std::size_t>(remote_length));
  bcast(context, records.remote.data(), remote_length, type, leader, local);
  return records;
}

/// Sends `mine` to `peer` and receives its vector of ints: the length, then the data,
/// in the point-to-point space of `comm` or in its collective space.
std::vector<int> swap_vectors(Context& context, const std::vector<int>& mine, int peer, int tag,
                                     const Communicator& comm, bool collective_space, const char* where) {
  const DatatypePtr& type = context.datatype(BasicKind::Int);
  auto post_send = [&](const void* data, std::int64_t count) {
    return collective_space ? context.coll_isend(data, count, type, peer, tag, comm, where)
                            : context.isend(data, count, type, peer, tag, comm, SendMode::Standard, where);
  };
  auto post_recv = [&](void* data, std::int64_t count) {
    return collective_space ? context.coll_irecv(data, count, type, peer, tag, comm, where)
                            : context.irecv(data, count, type, peer, tag, comm, where);
  };
  const int my_length = static_cast<int>(mine.size());
  int length = 0;
  RequestId lengths[2] = {post_recv(&length, 1), post_send(&my_length, 1)};
  context.waitall(lengths);
  std::vector<int> theirs(static_cast<std::size_t>(length));
  RequestId data[2] = {post_recv(theirs.data(), length), post_send(mine.data(), my_length)};
  context.waitall(data);
  return theirs;
}

/// The max of the next-free-id field (at `field` of every `width` ints) of both
/// groups' records.
ContextId agreed_id(const GroupRecords& records, std::size_t width, std::size_t field) {
  ContextId id = 0;
  for (const auto* side : {&records.local, &records.remote})
    for (std::size_t i = field; i < side->size(); i += width) id = std::max(id, static_cast<ContextId>((*side)[i]));
  return id;
}

/// The exchange over an existing intercommunicator: the local leader is rank 0, who
/// swaps with the remote group's rank 0 in the intercommunicator's collective space.
GroupRecords exchange_over(Context& context, const Communicator& inter, std::span<const int> record,
                           const char* where) {
  const int tag = coll::tag(coll::Kind::InterAgreement);
  return exchange_records(
      context, *inter.local_comm(), 0, record,
      [&](const std::vector<int>& mine) { return swap_vectors(context, mine, 0, tag, inter, true, where); }, where);
}

}  // namespace

void Context::check_intracomm(const Communicator& comm, const char* where) {
  if (comm.is_inter())
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where),
                "is an intercommunicator; this call needs an intracommunicator");
}

Communicator* Context::add_intercommunicator(ContextId context_id, int rank, std::vector<int> local_world_ranks,
                                             std::vector<int> remote_world_ranks) {
  next_context_id_ = std::max(next_context_id_, context_id + 4);
  if (rank < 0 || local_world_ranks.empty() || remote_world_ranks.empty()) return nullptr;
  return emplace_intercommunicator(context_id, rank, std::move(local_world_ranks), std::move(remote_world_ranks));
}

Communicator* Context::emplace_intercommunicator(ContextId context_id, int rank, std::vector<int> local_world_ranks,
                                                 std::vector<int> remote_world_ranks) {
  auto local = std::make_unique<Communicator>(context_id + 2, rank, std::move(local_world_ranks));
  auto inter = std::make_unique<Communicator>(
      Communicator::inter(context_id, rank, *local, std::move(remote_world_ranks)));
  Communicator* result = inter.get();
  communicators_.emplace(context_id + 2, std::move(local));
  communicators_.emplace(context_id, std::move(inter));
  return result;
}

const Communicator* Context::intercomm_create(const Communicator& local_comm, int local_leader,
                                              const Communicator* peer_comm, int remote_leader, int tag) {
  const char* where = "MPI_Intercomm_create";
  check_comm(local_comm, where);
  check_intracomm(local_comm, where);
  if (local_leader < 0 || local_leader >= local_comm.size())
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(local_leader={})", where, local_leader),
                fmt::format("invalid rank; local_comm has {} ranks", local_comm.size()));
  if (tag < 0 || tag > kTagUpperBound)
    throw Error(ErrorClass::MPI_ERR_TAG, fmt::format("{}(tag={})", where, tag),
                fmt::format("invalid tag; must be in [0, {}]", kTagUpperBound));
  // A record per member: its world rank and its next free context id.
  const int record[2] = {world_.rank(), static_cast<int>(next_context_id_)};
  const GroupRecords records = exchange_records(
      *this, local_comm, local_leader, record,
      [&](const std::vector<int>& mine) {
        // peer_comm and remote_leader are significant at the local leader only.
        if (peer_comm == nullptr)
          throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(peer_comm)", where),
                      "peer_comm is MPI_COMM_NULL at the local leader");
        check_comm(*peer_comm, where);
        if (remote_leader < 0 || remote_leader >= peer_comm->peer_count())
          throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(remote_leader={})", where, remote_leader),
                      fmt::format("invalid rank; peer_comm has {} ranks", peer_comm->peer_count()));
        if (remote_leader == peer_comm->rank() && !peer_comm->is_inter())
          throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(remote_leader={})", where, remote_leader),
                      "the remote leader is the local leader itself; the two groups must be disjoint");
        return swap_vectors(*this, mine, remote_leader, tag, *peer_comm, false, where);
      },
      where);
  std::vector<int> local_world, remote_world;
  for (std::size_t i = 0; i < records.local.size(); i += 2) local_world.push_back(records.local[i]);
  for (std::size_t i = 0; i < records.remote.size(); i += 2) remote_world.push_back(records.remote[i]);
  const ContextId id = agreed_id(records, 2, 1);
  // Erroneous programs are told so on every member, after the agreement (so the
  // counters of both groups still move together).
  const std::set<int> local_set(local_world.begin(), local_world.end());
  for (int w : remote_world)
    if (local_set.contains(w)) {
      next_context_id_ = std::max(next_context_id_, id + 4);
      throw Error(ErrorClass::MPI_ERR_COMM, where,
                  fmt::format("world rank {} is in both groups; the local and remote groups must be disjoint", w));
    }
  return add_intercommunicator(id, local_comm.rank(), std::move(local_world), std::move(remote_world));
}

const Communicator* Context::intercomm_merge(const Communicator& intercomm, bool high) {
  const char* where = "MPI_Intercomm_merge";
  check_comm(intercomm, where);
  if (!intercomm.is_inter())
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(intercomm)", where), "is not an intercommunicator");
  const int record[2] = {high ? 1 : 0, static_cast<int>(next_context_id_)};
  const GroupRecords records = exchange_over(*this, intercomm, record, where);
  // The group whose leader said high = false comes first; when both said the same,
  // the one whose first member has the lower world rank (any order both sides agree
  // on will do, MPI-3.1 §6.6.2).
  const std::vector<int> local_world = intercomm.world_ranks();
  std::vector<int> remote_world(static_cast<std::size_t>(intercomm.peer_count()));
  for (int r = 0; r < intercomm.peer_count(); ++r) remote_world[static_cast<std::size_t>(r)] = intercomm.world_rank(r);
  const bool local_high = records.local[0] != 0, remote_high = records.remote[0] != 0;
  const bool local_first =
      local_high != remote_high ? !local_high : local_world.front() < remote_world.front();
  std::vector<int> members = local_first ? local_world : remote_world;
  const std::vector<int>& second = local_first ? remote_world : local_world;
  members.insert(members.end(), second.begin(), second.end());
  const int rank = intercomm.rank() + (local_first ? 0 : intercomm.peer_count());
  return add_communicator(agreed_id(records, 2, 1), rank, std::move(members));
}

Communicator* Context::inter_split(const Communicator& inter, int color, int key, const char* where) {
  const int record[3] = {color, key, static_cast<int>(next_context_id_)};
  const GroupRecords records = exchange_over(*this, inter, record, where);
  // The members of a color in each group, ordered by key, then by rank.
  auto members_of = [&](const std::vector<int>& all, auto world_rank) {
    std::vector<std::tuple<int, int>> chosen;  // (key, rank)
    for (std::size_t r = 0; 3 * r < all.size(); ++r)
      if (color != kUndefined && all[3 * r] == color) chosen.emplace_back(all[3 * r + 1], static_cast<int>(r));
    std::sort(chosen.begin(), chosen.end());
    std::vector<int> world;
    for (const auto& [member_key, rank] : chosen) world.push_back(world_rank(rank));
    return std::pair{world, chosen};
  };
  const Communicator& local = *inter.local_comm();
  auto [local_world, local_chosen] = members_of(records.local, [&](int r) { return local.world_rank(r); });
  auto [remote_world, remote_chosen] = members_of(records.remote, [&](int r) { return inter.world_rank(r); });
  int rank = -1;
  for (std::size_t i = 0; i < local_chosen.size(); ++i)
    if (std::get<1>(local_chosen[i]) == inter.rank()) rank = static_cast<int>(i);
  return add_intercommunicator(agreed_id(records, 3, 2), rank, std::move(local_world), std::move(remote_world));
}

GroupPtr Context::comm_remote_group(const Communicator& comm) const {
  const char* where = "MPI_Comm_remote_group";
  check_comm(comm, where);
  if (!comm.is_inter())
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where),
                "is an intracommunicator, which has no remote group");
  std::vector<int> remote(static_cast<std::size_t>(comm.peer_count()));
  for (int r = 0; r < comm.peer_count(); ++r) remote[static_cast<std::size_t>(r)] = comm.world_rank(r);
  return std::make_shared<const Group>(std::move(remote), world_.rank());
}

}  // namespace twinfab::mpi
