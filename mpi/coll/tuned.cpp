// The collectives with several algorithms: each call checks its arguments, asks the
// selection (selection.hpp) which algorithm serves it, and adds that algorithm's
// steps (algorithms.hpp) to its schedule, which a blocking call runs and a
// nonblocking one leaves to progress. Intercommunicators take intercomm.cpp's
// algorithms before any choice.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "mpi/coll/algorithms.hpp"
#include "mpi/coll/node_map.hpp"
#include "mpi/coll/selection.hpp"

namespace twinfab::mpi {

namespace {

std::int64_t bytes(std::int64_t count, const DatatypePtr& type) { return count * type->size(); }

/// The node map for a call of `bytes` whose collective's parameter is `configured`
/// (computed by a blocking call that may use it; node_map.hpp), recorded in `call`.
template <class E>
const NodeMap* nodes_for(Context& context, const Communicator& comm, Mode mode, E configured, coll::CallShape& call) {
  const bool wants = coll::wants_node_map(context.config(), configured) && !call.trivial();
  const NodeMap* map = coll::node_map_for(context, comm, mode, wants);
  coll::describe_nodes(call, map);
  return map;
}

/// The call as the hosts' representatives see it in a node-aware algorithm: one rank
/// per host, so auto's flat table picks their algorithm. For a communicator whose
/// ranks do not share hosts (a named node-aware algorithm on a flat map), every rank
/// stands for its host: the whole call, flat.
coll::CallShape among_hosts(coll::CallShape call) {
  if (call.shares_hosts) call.ranks = call.hosts;
  call.shares_hosts = false;
  return call;
}

/// The node map a node-aware schedule runs on, held by the schedule; null when the
/// communicator's ranks do not share hosts (the flat algorithm then serves).
const NodeMap* hold_hierarchical(coll::Schedule& schedule, const Communicator& comm) {
  const std::shared_ptr<const NodeMap>& map = comm.shared_node_map();
  if (map == nullptr || !map->hierarchical) return nullptr;
  schedule.keep(map);
  return map.get();
}

}  // namespace

RequestId bcast(Context& context, void* buffer, std::int64_t count, const DatatypePtr& type, int root,
                const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Bcast", "MPI_Ibcast");
  context.check_comm(comm, where);
  if (comm.is_inter()) return coll::inter_bcast(context, buffer, count, type, root, comm, mode);
  coll::check_root(root, comm, where);
  coll::check_buffer(buffer, count, type, where, "buffer");
  coll::CallShape call{comm.size(), count, bytes(count, type)};
  nodes_for(context, comm, mode, context.config().bcast_algorithm, call);
  BcastAlgorithm algorithm = coll::select_bcast(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Bcast, where, mode);
  if (algorithm == BcastAlgorithm::NodeAware) {
    const BcastAlgorithm flat = coll::auto_bcast(context.config(), among_hosts(call));
    if (const NodeMap* map = hold_hierarchical(*schedule, comm)) {
      coll::add_bcast_node_aware(*schedule, *map, buffer, count, type, root, flat);
      return coll::execute(context, std::move(schedule));
    }
    algorithm = flat;
  }
  if (algorithm == BcastAlgorithm::Binomial)
    coll::add_bcast(*schedule, buffer, count, type, root);
  else
    coll::add_bcast_scatter_allgather(*schedule, buffer, count, type, root,
                                      algorithm == BcastAlgorithm::ScatterRingAllgather);
  return coll::execute(context, std::move(schedule));
}

RequestId reduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count, const DatatypePtr& type,
                 const ReductionOp& op, int root, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Reduce", "MPI_Ireduce");
  context.check_comm(comm, where);
  if (comm.is_inter()) return coll::inter_reduce(context, sendbuf, recvbuf, count, type, op, root, comm, mode);
  coll::check_root(root, comm, where);
  const bool is_root = comm.rank() == root;
  if (sendbuf == kInPlace && !is_root)
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(sendbuf)", where),
                "MPI_IN_PLACE is only valid at the root of a reduce");
  if (is_root) coll::check_buffer(recvbuf, count, type, where, "recvbuf");
  if (sendbuf != kInPlace) coll::check_buffer(sendbuf, count, type, where, "sendbuf");
  coll::check_reduction(op, type, where);
  if (is_root && sendbuf != kInPlace) coll::check_no_alias(sendbuf, count, *type, recvbuf, count, *type, where);
  coll::CallShape call{comm.size(), count, bytes(count, type), op.is_commutative(), !op.is_user()};
  nodes_for(context, comm, mode, context.config().reduce_algorithm, call);
  ReduceAlgorithm algorithm = coll::select_reduce(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Reduce, where, mode);
  const void* input = sendbuf == kInPlace ? recvbuf : sendbuf;
  if (algorithm == ReduceAlgorithm::NodeAware) {
    const ReduceAlgorithm flat = coll::auto_reduce(context.config(), among_hosts(call));
    if (const NodeMap* map = hold_hierarchical(*schedule, comm)) {
      coll::add_reduce_node_aware(*schedule, *map, input, recvbuf, count, type, op, root, flat);
      return coll::execute(context, std::move(schedule));
    }
    algorithm = flat;
  }
  if (algorithm == ReduceAlgorithm::Rabenseifner)
    coll::add_reduce_rabenseifner(*schedule, input, recvbuf, count, type, op, root);
  else
    coll::add_reduce(*schedule, input, recvbuf, count, type, op, root);
  return coll::execute(context, std::move(schedule));
}

RequestId allreduce(Context& context, const void* sendbuf, void* recvbuf, std::int64_t count,
                    const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Allreduce", "MPI_Iallreduce");
  context.check_comm(comm, where);
  if (comm.is_inter()) return coll::inter_allreduce(context, sendbuf, recvbuf, count, type, op, comm, mode);
  coll::check_all_reduction(sendbuf, recvbuf, count, type, op, where);
  coll::CallShape call{comm.size(), count, bytes(count, type), op.is_commutative(), !op.is_user()};
  nodes_for(context, comm, mode, context.config().allreduce_algorithm, call);
  AllreduceAlgorithm algorithm = coll::select_allreduce(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Allreduce, where, mode);
  if (algorithm == AllreduceAlgorithm::NodeAware) {
    const AllreduceAlgorithm flat = coll::auto_allreduce(context.config(), among_hosts(call));
    if (const NodeMap* map = hold_hierarchical(*schedule, comm)) {
      coll::add_allreduce_node_aware(*schedule, *map, sendbuf, recvbuf, count, type, op, flat);
      return coll::execute(context, std::move(schedule));
    }
    algorithm = flat;
  }
  if (algorithm == AllreduceAlgorithm::Rabenseifner)
    coll::add_allreduce_rabenseifner(*schedule, sendbuf, recvbuf, count, type, op);
  else
    coll::add_allreduce(*schedule, sendbuf, recvbuf, count, type, op);
  return coll::execute(context, std::move(schedule));
}

RequestId gather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                 void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                 const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Gather", "MPI_Igather");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_gather(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, mode);
  const bool is_root = coll::check_gather_contribution(context, sendbuf, sendcount, sendtype, root, comm, where);
  const int n = comm.size();
  if (is_root) {
    coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
    if (sendbuf != kInPlace)
      coll::check_no_alias(sendbuf, sendcount, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  }
  // The size of one block: the root's receive, everyone else's send (MPI makes them
  // equal).
  const coll::CallShape call{n, sendcount, is_root ? bytes(recvcount, recvtype) : bytes(sendcount, sendtype)};
  const RootedAlgorithm algorithm = coll::select_gather(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Gather, where, mode);
  if (algorithm == RootedAlgorithm::Linear)
    coll::add_gather_linear(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  else
    coll::add_gather_binomial(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return coll::execute(context, std::move(schedule));
}

RequestId scatter(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                  void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int root,
                  const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Scatter", "MPI_Iscatter");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_scatter(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, mode);
  const bool is_root = coll::check_scatter_destination(context, recvbuf, recvcount, recvtype, root, comm, where);
  const int n = comm.size();
  if (is_root) {
    coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", n);
    if (recvbuf != kInPlace)
      coll::check_no_alias(sendbuf, sendcount * n, *sendtype, recvbuf, recvcount, *recvtype, where);
  }
  const coll::CallShape call{n, recvcount, is_root ? bytes(sendcount, sendtype) : bytes(recvcount, recvtype)};
  const RootedAlgorithm algorithm = coll::select_scatter(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Scatter, where, mode);
  if (algorithm == RootedAlgorithm::Linear)
    coll::add_scatter_linear(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  else
    coll::add_scatter_binomial(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return coll::execute(context, std::move(schedule));
}

RequestId allgather(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                    void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm,
                    Mode mode) {
  const char* where = coll::name(mode, "MPI_Allgather", "MPI_Iallgather");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_allgather(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, mode);
  const int n = comm.size();
  const int rank = comm.rank();
  if (sendbuf != kInPlace) coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf");
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  if (sendbuf != kInPlace) coll::check_no_alias(sendbuf, sendcount, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  coll::CallShape call{n, recvcount, bytes(recvcount, recvtype) * n};
  nodes_for(context, comm, mode, context.config().allgather_algorithm, call);
  AllgatherAlgorithm algorithm = coll::select_allgather(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Allgather, where, mode);
  if (algorithm == AllgatherAlgorithm::NodeAware) {
    if (const NodeMap* map = hold_hierarchical(*schedule, comm)) {
      coll::add_allgather_node_aware(*schedule, *map, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      return coll::execute(context, std::move(schedule));
    }
    // Every rank stands for its host: Bruck's dissemination among them all.
    algorithm = AllgatherAlgorithm::Bruck;
  }
  if (algorithm == AllgatherAlgorithm::Bruck) {
    coll::add_allgather_bruck(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  } else {
    if (sendbuf != kInPlace)
      schedule->copy(sendbuf, sendcount, sendtype, coll::block(recvbuf, rank, recvcount, *recvtype), recvcount,
                     recvtype);
    if (algorithm == AllgatherAlgorithm::RecursiveDoubling)
      coll::add_allgather_recursive_doubling(*schedule, recvbuf, recvcount, recvtype);
    else
      coll::add_allgather_ring(*schedule, recvbuf, recvcount, recvtype);
  }
  return coll::execute(context, std::move(schedule));
}

RequestId alltoall(Context& context, const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype,
                   void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, const Communicator& comm,
                   Mode mode) {
  const char* where = coll::name(mode, "MPI_Alltoall", "MPI_Ialltoall");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_alltoall(context, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, mode);
  const int n = comm.size();
  coll::check_buffer(recvbuf, recvcount, recvtype, where, "recvbuf", n);
  if (sendbuf != kInPlace) {
    coll::check_buffer(sendbuf, sendcount, sendtype, where, "sendbuf", n);
    coll::check_no_alias(sendbuf, sendcount * n, *sendtype, recvbuf, recvcount * n, *recvtype, where);
  }
  coll::CallShape call{n, recvcount, sendbuf == kInPlace ? bytes(recvcount, recvtype) : bytes(sendcount, sendtype)};
  call.in_place = sendbuf == kInPlace;
  const AlltoallAlgorithm algorithm = coll::select_alltoall(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::Alltoall, where, mode);
  switch (algorithm) {
    case AlltoallAlgorithm::Bruck:
      coll::add_alltoall_bruck(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      break;
    case AlltoallAlgorithm::Scattered:
      coll::add_alltoall_scattered(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   static_cast<int>(std::min<std::uint32_t>(context.config().alltoall_throttle,
                                                                            static_cast<std::uint32_t>(n))));
      break;
    default:
      coll::add_alltoall_pairwise(*schedule, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      break;
  }
  return coll::execute(context, std::move(schedule));
}

RequestId reduce_scatter(Context& context, const void* sendbuf, void* recvbuf, std::span<const std::int64_t> recvcounts,
                         const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode,
                         const char* where) {
  if (where == nullptr) where = coll::name(mode, "MPI_Reduce_scatter", "MPI_Ireduce_scatter");
  context.check_comm(comm, where);
  if (comm.is_inter())
    return coll::inter_reduce_scatter(context, sendbuf, recvbuf, recvcounts, 0, type, op, comm, mode, where);
  const int n = comm.size();
  const int rank = comm.rank();
  std::vector<std::int64_t> displs(static_cast<std::size_t>(n));
  coll::check_counts(recvcounts, displs, n, where, "recvcounts");
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    displs[static_cast<std::size_t>(i)] = total;
    // Large-count callers (MPI_Reduce_scatter_c) could overflow the sum.
    if (__builtin_add_overflow(total, recvcounts[static_cast<std::size_t>(i)], &total))
      throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(recvcounts)", where), "the counts overflow 64 bits");
  }
  const std::int64_t own = recvcounts[static_cast<std::size_t>(rank)];
  const void* input = sendbuf == kInPlace ? recvbuf : sendbuf;
  coll::check_buffer(recvbuf, own, type, where, "recvbuf");
  coll::check_buffer(input, total, type, where, "sendbuf");
  coll::check_reduction(op, type, where);
  if (sendbuf != kInPlace) coll::check_no_alias(sendbuf, total, *type, recvbuf, own, *type, where);
  const coll::CallShape call{n, total, bytes(total, type), op.is_commutative(), !op.is_user()};
  const ReduceScatterAlgorithm algorithm = coll::select_reduce_scatter(context, call, where);
  auto schedule = std::make_unique<coll::Schedule>(comm, coll::Kind::ReduceScatter, where, mode);
  const std::span<const std::int64_t> counts = recvcounts.first(static_cast<std::size_t>(n));
  switch (algorithm) {
    case ReduceScatterAlgorithm::RecursiveHalving:
      coll::add_reduce_scatter_recursive_halving(*schedule, input, recvbuf, counts, displs, total, type, op);
      break;
    case ReduceScatterAlgorithm::Pairwise:
      coll::add_reduce_scatter_pairwise(*schedule, input, recvbuf, counts, displs, type, op);
      break;
    default:
      coll::add_reduce_scatter_reduce_scatterv(*schedule, input, recvbuf, counts, displs, total, type, op);
      break;
  }
  return coll::execute(context, std::move(schedule));
}

RequestId reduce_scatter_block(Context& context, const void* sendbuf, void* recvbuf, std::int64_t recvcount,
                               const DatatypePtr& type, const ReductionOp& op, const Communicator& comm, Mode mode) {
  const char* where = coll::name(mode, "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block");
  context.check_comm(comm, where);
  if (recvcount < 0)
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(recvcount={})", where, recvcount), "must not be negative");
  if (comm.is_inter())
    return coll::inter_reduce_scatter(context, sendbuf, recvbuf, {}, recvcount, type, op, comm, mode, where);
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()), recvcount);
  return reduce_scatter(context, sendbuf, recvbuf, counts, type, op, comm, mode, where);
}

}  // namespace twinfab::mpi
