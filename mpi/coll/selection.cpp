// The auto table below is MPICH 4.0.2's default selection (the intracommunicator
// branches of src/mpi/coll/src/csel_json_autogen.c), with its thresholds as
// parameters whose defaults are those of MPICH's MPIR_CVAR_*_MSG_SIZE
// (src/mpi/coll/cvars.txt). Where MPICH compares with < or <=, so does this file, so
// that a threshold means the same here. MPICH's node-aware "smp" branches come first
// there and here (node_aware() below), switched by TWINFAB_COLL_NODE_AWARE as MPICH's
// by MPIR_CVAR_ENABLE_SMP_COLLECTIVES, without MPICH's per-collective size limits
// (MPIR_CVAR_MAX_SMP_*_MSG_SIZE, 0 = none by default).
#include "mpi/coll/selection.hpp"

#include <fmt/format.h>

#include "fabric/log.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi::coll {

int power_of_two_floor(int n) noexcept {
  int p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

namespace {

std::uint64_t bytes_of(const CallShape& call) { return call.bytes < 0 ? 0 : static_cast<std::uint64_t>(call.bytes); }

std::string not_commutative() { return "the op is not commutative, and this algorithm combines in any order"; }
std::string not_power_of_two(const CallShape& call) {
  return fmt::format("it needs a power of two of ranks, and the communicator has {}", call.ranks);
}
std::string too_few_elements(const CallShape& call) {
  return fmt::format("it needs at least {} elements (the largest power of two of ranks), and the call has {}",
                     power_of_two_floor(call.ranks), call.count);
}

std::string nodes_unknown() {
  return "the communicator's node map is not known yet (the first blocking barrier, bcast, reduce, allreduce or "
         "allgather on it computes it; a nonblocking or persistent call cannot wait for it)";
}

/// auto's node-aware branch: on, the ranks share hosts, and (reductions) the order
/// of operands may change.
bool node_aware(const Config& config, const CallShape& call) {
  return config.coll_node_aware != 0 && call.shares_hosts && call.commutative;
}

/// Why a node-aware algorithm cannot serve a call; `reduction`: it reduces.
std::string why_not_node_aware(const CallShape& call, bool reduction) {
  if (reduction && !call.commutative) return not_commutative();
  if (!call.nodes_known) return nodes_unknown();
  return {};
}

}  // namespace

// ---------------------------------------------------------------- auto's table

BarrierAlgorithm auto_barrier(const Config& config, const CallShape& call) {
  return node_aware(config, call) ? BarrierAlgorithm::NodeAware : BarrierAlgorithm::Dissemination;
}

AllreduceAlgorithm auto_allreduce(const Config& config, const CallShape& call) {
  // MPICH: recursive doubling for short messages, user-defined ops, and counts
  // below pof2 (Rabenseifner splits the vector in pof2 pieces); Rabenseifner above.
  // (MPICH 4.0.2's file switches at 8 bytes, MPICH 3's code and the CVAR at 2048.)
  if (node_aware(config, call)) return AllreduceAlgorithm::NodeAware;
  if (bytes_of(call) <= config.allreduce_short_msg || !call.predefined_op || !call.commutative ||
      call.count < power_of_two_floor(call.ranks))
    return AllreduceAlgorithm::RecursiveDoubling;
  return AllreduceAlgorithm::Rabenseifner;
}

AllgatherAlgorithm auto_allgather(const Config& config, const CallShape& call) {
  // Node-aware below MPICH's short-message size only: it hands every host's ranks the
  // whole vector down a tree, which pays while latency dominates.
  if (node_aware(config, call) && bytes_of(call) < config.allgather_short_msg) return AllgatherAlgorithm::NodeAware;
  if (bytes_of(call) < config.allgather_long_msg && is_power_of_two(call.ranks))
    return AllgatherAlgorithm::RecursiveDoubling;
  if (bytes_of(call) < config.allgather_short_msg) return AllgatherAlgorithm::Bruck;
  return AllgatherAlgorithm::Ring;
}

BcastAlgorithm auto_bcast(const Config& config, const CallShape& call) {
  if (node_aware(config, call)) return BcastAlgorithm::NodeAware;
  if (bytes_of(call) <= config.bcast_short_msg || static_cast<std::uint64_t>(call.ranks) < config.bcast_min_procs)
    return BcastAlgorithm::Binomial;
  if (bytes_of(call) <= config.bcast_long_msg && is_power_of_two(call.ranks))
    return BcastAlgorithm::ScatterRecursiveDoublingAllgather;
  return BcastAlgorithm::ScatterRingAllgather;
}

AlltoallAlgorithm auto_alltoall(const Config& config, const CallShape& call) {
  // MPICH exchanges in place pairwise (with MPI_Sendrecv_replace; here the pairwise
  // exchange from a copy of the blocks), and hard-codes the 8 ranks below which
  // Bruck's log steps do not pay for its extra copies.
  if (call.in_place) return AlltoallAlgorithm::Pairwise;
  if (bytes_of(call) <= config.alltoall_short_msg && call.ranks >= 8) return AlltoallAlgorithm::Bruck;
  if (bytes_of(call) <= config.alltoall_medium_msg) return AlltoallAlgorithm::Scattered;
  return AlltoallAlgorithm::Pairwise;
}

ReduceAlgorithm auto_reduce(const Config& config, const CallShape& call) {
  // MPICH takes Rabenseifner for predefined ops only (a forced one serves any
  // commutative op).
  if (node_aware(config, call)) return ReduceAlgorithm::NodeAware;
  if (bytes_of(call) > config.reduce_short_msg && call.predefined_op && call.commutative &&
      call.count >= power_of_two_floor(call.ranks))
    return ReduceAlgorithm::Rabenseifner;
  return ReduceAlgorithm::Binomial;
}

ReduceScatterAlgorithm auto_reduce_scatter(const Config& config, const CallShape& call) {
  // MPICH's non-commutative algorithms (recursive doubling; recursive halving with a
  // bit-reversed block order for equal blocks on a power of two) are not here: a
  // non-commutative op takes the rank-ordered reduce + scatterv.
  if (!call.commutative) return ReduceScatterAlgorithm::ReduceScatterv;
  if (bytes_of(call) < config.reduce_scatter_long_msg) return ReduceScatterAlgorithm::RecursiveHalving;
  return ReduceScatterAlgorithm::Pairwise;
}

// MPICH gathers and scatters by the binomial tree on intracommunicators, whatever
// the size.
RootedAlgorithm auto_gather(const Config&, const CallShape&) { return RootedAlgorithm::Binomial; }
RootedAlgorithm auto_scatter(const Config&, const CallShape&) { return RootedAlgorithm::Binomial; }

// ---------------------------------------------------------------- applicability

std::string why_not(BarrierAlgorithm algorithm, const CallShape& call) {
  // A barrier always has something to do (no bytes, but the synchronization).
  if (call.ranks <= 1 || algorithm != BarrierAlgorithm::NodeAware) return {};
  return why_not_node_aware(call, false);
}

std::string why_not(AllreduceAlgorithm algorithm, const CallShape& call) {
  if (call.trivial()) return {};
  if (algorithm == AllreduceAlgorithm::NodeAware) return why_not_node_aware(call, true);
  if (algorithm != AllreduceAlgorithm::Rabenseifner) return {};
  if (!call.commutative) return not_commutative();
  if (call.count < power_of_two_floor(call.ranks)) return too_few_elements(call);
  return {};
}

std::string why_not(AllgatherAlgorithm algorithm, const CallShape& call) {
  if (call.trivial()) return {};
  if (algorithm == AllgatherAlgorithm::NodeAware) return why_not_node_aware(call, false);
  if (algorithm != AllgatherAlgorithm::RecursiveDoubling) return {};
  return is_power_of_two(call.ranks) ? std::string() : not_power_of_two(call);
}

std::string why_not(BcastAlgorithm algorithm, const CallShape& call) {
  if (call.trivial()) return {};
  if (algorithm == BcastAlgorithm::NodeAware) return why_not_node_aware(call, false);
  if (algorithm != BcastAlgorithm::ScatterRecursiveDoublingAllgather) return {};
  return is_power_of_two(call.ranks) ? std::string() : not_power_of_two(call);
}

std::string why_not(AlltoallAlgorithm, const CallShape&) { return {}; }

std::string why_not(ReduceAlgorithm algorithm, const CallShape& call) {
  if (call.trivial()) return {};
  if (algorithm == ReduceAlgorithm::NodeAware) return why_not_node_aware(call, true);
  if (algorithm != ReduceAlgorithm::Rabenseifner) return {};
  if (!call.commutative) return not_commutative();
  if (call.count < power_of_two_floor(call.ranks)) return too_few_elements(call);
  return {};
}

std::string why_not(ReduceScatterAlgorithm algorithm, const CallShape& call) {
  if (call.trivial()) return {};
  if ((algorithm == ReduceScatterAlgorithm::RecursiveHalving || algorithm == ReduceScatterAlgorithm::Pairwise) &&
      !call.commutative)
    return not_commutative();
  return {};
}

std::string why_not(RootedAlgorithm, const CallShape&) { return {}; }

// ---------------------------------------------------------------- selection

namespace {

/// The collectives, as bits of Context::first_collective_fallback.
enum Which : unsigned { kAllreduce, kAllgather, kBcast, kAlltoall, kReduce, kReduceScatter, kGather, kScatter, kBarrier };

template <class E, std::size_t N>
E resolve(Context& context, Which which, const char* variable, E configured, E automatic, const CallShape& call,
          const std::array<std::string_view, N>& words, const char* where) {
  E chosen = configured == E::Auto ? automatic : configured;
  bool fell_back = false;
  if (configured != E::Auto) {
    const std::string reason = why_not(configured, call);
    if (!reason.empty()) {
      const CollFallback fallback = context.config().coll_fallback;
      if (fallback == CollFallback::Error) {
        std::string usable;
        for (std::size_t i = 1; i < N; ++i)
          if (why_not(static_cast<E>(i), call).empty())
            usable += usable.empty() ? std::string(words[i]) : fmt::format(", {}", words[i]);
        throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}={})", where, variable, word_of(configured, words)),
                    fmt::format("{}; algorithms that serve this call: auto, {} (or TWINFAB_COLL_FALLBACK=warn or "
                                "silent to run auto's choice instead)",
                                reason, usable));
      }
      if (fallback == CollFallback::Warn && context.first_collective_fallback(which))
        fabric::log().warn("rank {}: {}: {}={} cannot serve this call ({}); running {} instead (warned once)",
                           context.world().rank(), where, variable, word_of(configured, words), reason,
                           word_of(automatic, words));
      chosen = automatic;
      fell_back = true;
    }
  }
  if (fabric::log().should_log(spdlog::level::debug))
    fabric::log().debug("rank {}: {} on {} ranks, {} bytes: {}{}{}", context.world().rank(), where, call.ranks,
                        call.bytes, word_of(chosen, words),
                        fell_back ? " (fallback)" : configured == E::Auto ? " (auto)" : "",
                        call.shares_hosts ? fmt::format(", ranks on {} hosts", call.hosts) : std::string());
  return chosen;
}

}  // namespace

BarrierAlgorithm select_barrier(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kBarrier, "TWINFAB_BARRIER", context.config().barrier_algorithm,
                 auto_barrier(context.config(), call), call, kBarrierAlgorithmWords, where);
}
AllreduceAlgorithm select_allreduce(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kAllreduce, "TWINFAB_ALLREDUCE", context.config().allreduce_algorithm,
                 auto_allreduce(context.config(), call), call, kAllreduceAlgorithmWords, where);
}
AllgatherAlgorithm select_allgather(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kAllgather, "TWINFAB_ALLGATHER", context.config().allgather_algorithm,
                 auto_allgather(context.config(), call), call, kAllgatherAlgorithmWords, where);
}
BcastAlgorithm select_bcast(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kBcast, "TWINFAB_BCAST", context.config().bcast_algorithm,
                 auto_bcast(context.config(), call), call, kBcastAlgorithmWords, where);
}
AlltoallAlgorithm select_alltoall(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kAlltoall, "TWINFAB_ALLTOALL", context.config().alltoall_algorithm,
                 auto_alltoall(context.config(), call), call, kAlltoallAlgorithmWords, where);
}
ReduceAlgorithm select_reduce(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kReduce, "TWINFAB_REDUCE", context.config().reduce_algorithm,
                 auto_reduce(context.config(), call), call, kReduceAlgorithmWords, where);
}
ReduceScatterAlgorithm select_reduce_scatter(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kReduceScatter, "TWINFAB_REDUCE_SCATTER", context.config().reduce_scatter_algorithm,
                 auto_reduce_scatter(context.config(), call), call, kReduceScatterAlgorithmWords, where);
}
RootedAlgorithm select_gather(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kGather, "TWINFAB_GATHER", context.config().gather_algorithm,
                 auto_gather(context.config(), call), call, kRootedAlgorithmWords, where);
}
RootedAlgorithm select_scatter(Context& context, const CallShape& call, const char* where) {
  return resolve(context, kScatter, "TWINFAB_SCATTER", context.config().scatter_algorithm,
                 auto_scatter(context.config(), call), call, kRootedAlgorithmWords, where);
}

}  // namespace twinfab::mpi::coll
