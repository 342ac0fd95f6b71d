// twinfab MPI coll: a communicator's node map (mpi/core/node_map.hpp), computed when a
// collective first wants it.
//
// When: lazily, at the first blocking barrier, bcast, reduce, allreduce or allgather on the
// communicator that could run a node-aware algorithm (TWINFAB_COLL_NODE_AWARE=1, or
// the collective's parameter names node-aware), by an allgather of every member's host
// id (Context::node(); -1 when the launcher does not say) in the communicator's
// collective space. Every rank takes the same decision at the same call (it depends
// only on the configuration, the communicator's size and the call's type signature,
// which MPI makes equal), so every rank gathers or none does; a rank whose host is
// unknown still takes part, and the map is then flat. A communicator of one or two
// ranks needs no gathering: its map is flat, set by any call. The map is kept in the communicator
// (shared by its dups) and reused by every later call.
//
// Nonblocking and persistent calls never gather (a nonblocking call may not wait for
// other ranks): they see the map if an earlier blocking call computed it, and run flat
// algorithms otherwise (docs/collectives.md says why).
#pragma once

#include "mpi/coll/collectives.hpp"
#include "mpi/coll/selection.hpp"
#include "mpi/core/node_map.hpp"

namespace twinfab::mpi::coll {

/// The node map of intracommunicator `comm` for a call in `mode`, or null while it is
/// not known. A blocking call (mode Blocking) that `wants` it computes it (collective:
/// every rank of comm calls this with the same arguments at the same collective).
const NodeMap* node_map_for(Context& context, const Communicator& comm, Mode mode, bool wants);

/// Records what `map` says (null: unknown) in `call`.
void describe_nodes(CallShape& call, const NodeMap* map) noexcept;

/// Whether a call may want the map: node-aware auto is on, or the collective's
/// parameter names its node-aware algorithm.
template <class E>
bool wants_node_map(const Config& config, E configured) noexcept {
  return config.coll_node_aware != 0 || configured == E::NodeAware;
}

}  // namespace twinfab::mpi::coll
