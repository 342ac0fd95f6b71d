// twinfab MPI coll: which algorithm a collective call runs (docs/collectives.md).
//
// Each collective with several algorithms has a parameter (TWINFAB_ALLREDUCE, ...;
// collective_config.hpp) that names one, or `auto`, the default. auto follows a table
// by communicator size and message size whose rules and thresholds are MPICH's
// (MPICH 4.0.2's default selection file, src/mpi/coll/src/csel_json_autogen.c, whose
// thresholds are the defaults of the MPIR_CVAR_*_MSG_SIZE variables, TWINFAB_*_MSG
// here; allreduce takes MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, 2048, where that file
// switches at 8 bytes: docs/collectives.md). A named algorithm that
// cannot serve a call (Rabenseifner on a non-commutative op, recursive doubling on a
// rank count that is not a power of two, ...) follows TWINFAB_COLL_FALLBACK, as MPICH's
// MPIR_CVAR_COLLECTIVE_FALLBACK: an error (MPI_ERR_ARG naming the function, the
// algorithm, the reason and the algorithms that do apply), or auto's choice after a
// warning (once per collective and rank) or silently.
//
// Every rank of a communicator must run the same algorithm. The table therefore looks
// only at what MPI requires to be equal on every rank: the communicator size, the type
// signature's size (count x type size), and the op; never at buffers, the root's
// arguments, or timing.
//
// A call with nothing to move (one rank, or no data) can run any algorithm: it is
// never refused.
//
// Node-aware algorithms (barrier, bcast, reduce, allreduce, allgather; node_aware.cpp)
// depend on where the ranks run: the communicator's node map (node_map.hpp), which
// CallShape carries as whether it is known and whether the ranks share hosts. auto
// takes them when TWINFAB_COLL_NODE_AWARE is 1, the communicator spans more than one
// host and one host holds more than one of its ranks (and, for reductions, the op is
// commutative: they change the order in which operands meet; for allgather, below its
// short-message size), before MPICH's flat table, as MPICH takes its "smp" algorithms
// for communicators that span nodes. The map is the same on every rank, so is the
// choice.
//
// At debug log level (TWINFAB_LOG_LEVEL=debug) every choice is logged on the fabric
// log: rank, function, ranks, bytes, the algorithm, and whether it was a fallback.
#pragma once

#include <cstdint>
#include <string>

#include "mpi/core/config.hpp"
#include "mpi/core/context.hpp"

namespace twinfab::mpi::coll {

/// What the table looks at in a call; equal on every rank of the communicator.
struct CallShape {
  int ranks = 1;           ///< the communicator's size
  std::int64_t count = 0;  ///< elements of the vector reduced (reductions), or of one block
  std::int64_t bytes = 0;  ///< the message size of the collective's table, see each select_*
  bool commutative = true;  ///< the op's (reductions; true otherwise)
  /// A predefined op (MPI_SUM, ...), not a user-defined one: MPICH's table takes the
  /// long-vector reductions for those only.
  bool predefined_op = true;
  bool in_place = false;  ///< sendbuf is MPI_IN_PLACE (alltoall: MPICH then exchanges pairwise)
  /// The communicator's node map (node_map.hpp): whether it is known (a nonblocking
  /// or persistent call cannot wait for it), whether it is hierarchical (several
  /// hosts, one with several ranks), and the hosts then.
  bool nodes_known = false;
  bool shares_hosts = false;
  int hosts = 0;
  /// Nothing to move: any algorithm serves the call.
  bool trivial() const noexcept { return ranks <= 1 || bytes == 0; }
};

/// The largest power of two not above n (n >= 1).
int power_of_two_floor(int n) noexcept;
inline bool is_power_of_two(int n) noexcept { return n > 0 && (n & (n - 1)) == 0; }

// ---- auto's table (pure functions of the configuration's thresholds and the call)
BarrierAlgorithm auto_barrier(const Config& config, const CallShape& call);
AllreduceAlgorithm auto_allreduce(const Config& config, const CallShape& call);
AllgatherAlgorithm auto_allgather(const Config& config, const CallShape& call);
BcastAlgorithm auto_bcast(const Config& config, const CallShape& call);
AlltoallAlgorithm auto_alltoall(const Config& config, const CallShape& call);
ReduceAlgorithm auto_reduce(const Config& config, const CallShape& call);
ReduceScatterAlgorithm auto_reduce_scatter(const Config& config, const CallShape& call);
RootedAlgorithm auto_gather(const Config& config, const CallShape& call);
RootedAlgorithm auto_scatter(const Config& config, const CallShape& call);

// ---- why an algorithm cannot serve a call ("" when it can; never for auto)
std::string why_not(BarrierAlgorithm algorithm, const CallShape& call);
std::string why_not(AllreduceAlgorithm algorithm, const CallShape& call);
std::string why_not(AllgatherAlgorithm algorithm, const CallShape& call);
std::string why_not(BcastAlgorithm algorithm, const CallShape& call);
std::string why_not(AlltoallAlgorithm algorithm, const CallShape& call);
std::string why_not(ReduceAlgorithm algorithm, const CallShape& call);
std::string why_not(ReduceScatterAlgorithm algorithm, const CallShape& call);
std::string why_not(RootedAlgorithm algorithm, const CallShape& call);

// ---- the algorithm a call runs: the configured one, or auto's choice (for auto, or
// as the fallback). `where` is the MPI function ("MPI_Allreduce"), named in the error
// and the log. The message sizes (bytes) MPICH's table uses:
/// No bytes.
BarrierAlgorithm select_barrier(Context& context, const CallShape& call, const char* where);
/// count x type size.
AllreduceAlgorithm select_allreduce(Context& context, const CallShape& call, const char* where);
/// recvcount x recvtype size x ranks: the whole gathered vector.
AllgatherAlgorithm select_allgather(Context& context, const CallShape& call, const char* where);
/// count x type size.
BcastAlgorithm select_bcast(Context& context, const CallShape& call, const char* where);
/// One block: sendcount x sendtype size (recvcount x recvtype size in place).
AlltoallAlgorithm select_alltoall(Context& context, const CallShape& call, const char* where);
/// count x type size.
ReduceAlgorithm select_reduce(Context& context, const CallShape& call, const char* where);
/// The whole vector: the sum of the counts x type size.
ReduceScatterAlgorithm select_reduce_scatter(Context& context, const CallShape& call, const char* where);
/// One rank's block.
RootedAlgorithm select_gather(Context& context, const CallShape& call, const char* where);
RootedAlgorithm select_scatter(Context& context, const CallShape& call, const char* where);

}  // namespace twinfab::mpi::coll
