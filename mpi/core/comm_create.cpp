// Communicator construction: MPI_Comm_dup, MPI_Comm_split, MPI_Comm_free,
// MPI_Comm_group.
//
// Context ids. Each rank keeps the smallest even id it has not used
// (next_context_id_). A new communicator takes the max of that over the parent's
// members, found in the same collective that builds it (an allreduce for dup, the
// allgather of (color, key) for split): the result is unused on every member, so the
// new communicator's traffic cannot match any other communicator's on any of them.
// Every member of the parent advances past it, even one that gets no communicator,
// which keeps later agreements monotone. This is MPICH's context-id mask reduced to
// one counter: ids are never reused, so a freed communicator's late messages can
// never match a new one (2^31 communicators per rank are enough here).
//
// This file sits in core but calls mpi/coll: agreeing on an id is a collective, as
// it is in MPICH (MPIR_Get_contextid_sparse uses MPIR_Allreduce).
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "mpi/coll/collectives.hpp"
#include "mpi/core/context.hpp"

namespace twinfab::mpi {

std::vector<int> Communicator::world_ranks() const {
  if (!identity_) return world_ranks_;
  std::vector<int> ranks(static_cast<std::size_t>(size_));
  for (int i = 0; i < size_; ++i) ranks[static_cast<std::size_t>(i)] = i;
  return ranks;
}

const Communicator* Context::add_communicator(ContextId context_id, int rank, std::vector<int> world_ranks) {
  next_context_id_ = std::max(next_context_id_, context_id + 2);
  if (rank < 0) return nullptr;
  auto communicator = std::make_unique<Communicator>(context_id, rank, std::move(world_ranks));
  const Communicator* result = communicator.get();
  communicators_.emplace(context_id, std::move(communicator));
  return result;
}

const Communicator* Context::comm_dup(const Communicator& comm) {
  check_comm(comm, "MPI_Comm_dup");
  std::uint32_t id = next_context_id_;
  allreduce(*this, kInPlace, &id, 1, datatype(BasicKind::Uint32), Op::Max, comm);
  return add_communicator(id, comm.rank(), comm.world_ranks());
}

const Communicator* Context::comm_split(const Communicator& comm, int color, int key) {
  const char* where = "MPI_Comm_split";
  check_comm(comm, where);
  if (color < 0 && color != kUndefined)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(color={})", where, color),
                "color must be non-negative or MPI_UNDEFINED");
  // One allgather carries what every rank needs: the colors and keys to form the
  // groups, and the next free ids to agree on the context id.
  const int n = comm.size();
  const int mine[3] = {color, key, static_cast<int>(next_context_id_)};
  std::vector<int> all(static_cast<std::size_t>(3 * n));
  allgather(*this, mine, 3, datatype(BasicKind::Int), all.data(), 3, datatype(BasicKind::Int), comm);
  ContextId id = 0;
  std::vector<std::tuple<int, int>> members;  // (key, old rank) of this rank's color
  for (int r = 0; r < n; ++r) {
    const auto base = static_cast<std::size_t>(3 * r);
    id = std::max(id, static_cast<ContextId>(all[base + 2]));
    if (color != kUndefined && all[base] == color) members.emplace_back(all[base + 1], r);
  }
  std::sort(members.begin(), members.end());
  std::vector<int> world_ranks;
  int new_rank = -1;
  for (const auto& [member_key, old_rank] : members) {
    if (old_rank == comm.rank()) new_rank = static_cast<int>(world_ranks.size());
    world_ranks.push_back(comm.world_rank(old_rank));
  }
  return add_communicator(id, new_rank, std::move(world_ranks));
}

void Context::comm_free(const Communicator*& comm) {
  const char* where = "MPI_Comm_free";
  if (comm == nullptr) throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where), "comm is MPI_COMM_NULL");
  if (comm == &world_ || comm == &self_)
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where),
                "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
  check_comm(*comm, where);
  auto node = communicators_.extract(comm->context_id());
  node.mapped()->mark_freed();
  freed_communicators_.push_back(std::move(node.mapped()));
  comm = nullptr;
}

GroupPtr Context::comm_group(const Communicator& comm) const {
  check_comm(comm, "MPI_Comm_group");
  return std::make_shared<const Group>(comm.world_ranks(),
                                       world_.rank());
}

}  // namespace twinfab::mpi
