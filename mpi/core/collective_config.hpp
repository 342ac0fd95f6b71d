// twinfab MPI core: the collective algorithms a run can choose among, as the words of
// their TWINFAB_* parameters (config.hpp) and the enumerations of their Config fields.
//
// Each collective with more than one algorithm has a parameter naming one of them, or
// `auto`, the default: the size-tuned table of mpi/coll/selection.hpp (docs/
// collectives.md). Each enumeration lists its words in enumerator order, so that a
// word's index is the enumerator's value (the MPI_T control variables carry a choice
// as that index); the names are MPICH's (MPIR_CVAR_<COLL>_INTRA_ALGORITHM) where MPICH
// has the algorithm, so that experiments read the same in both.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace twinfab::mpi {

// node-aware (MPICH's "smp" algorithms, MVAPICH2's two-level ones): the ranks of each
// host combine inside it, one leader per host runs the flat algorithm among the
// leaders, and the result spreads inside each host (mpi/coll/node_aware.cpp).

/// TWINFAB_BARRIER: the dissemination barrier, or the node-aware one.
enum class BarrierAlgorithm : std::uint8_t { Auto, Dissemination, NodeAware };
inline constexpr std::array<std::string_view, 3> kBarrierAlgorithmWords{"auto", "dissemination", "node-aware"};

/// TWINFAB_ALLREDUCE.
enum class AllreduceAlgorithm : std::uint8_t { Auto, RecursiveDoubling, Rabenseifner, NodeAware };
inline constexpr std::array<std::string_view, 4> kAllreduceAlgorithmWords{"auto", "recursive_doubling",
                                                                          "rabenseifner", "node-aware"};

/// TWINFAB_ALLGATHER.
enum class AllgatherAlgorithm : std::uint8_t { Auto, RecursiveDoubling, Bruck, Ring, NodeAware };
inline constexpr std::array<std::string_view, 5> kAllgatherAlgorithmWords{"auto", "recursive_doubling", "bruck",
                                                                          "ring", "node-aware"};

/// TWINFAB_BCAST: the binomial tree, or van de Geijn's scatter followed by an
/// allgather by recursive doubling or around a ring.
enum class BcastAlgorithm : std::uint8_t {
  Auto,
  Binomial,
  ScatterRecursiveDoublingAllgather,
  ScatterRingAllgather,
  NodeAware
};
inline constexpr std::array<std::string_view, 5> kBcastAlgorithmWords{
    "auto", "binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather", "node-aware"};

/// TWINFAB_ALLTOALL.
enum class AlltoallAlgorithm : std::uint8_t { Auto, Bruck, Scattered, Pairwise };
inline constexpr std::array<std::string_view, 4> kAlltoallAlgorithmWords{"auto", "bruck", "scattered", "pairwise"};

/// TWINFAB_REDUCE: the binomial tree, Rabenseifner's reduce-scatter + gather, or
/// node-aware.
enum class ReduceAlgorithm : std::uint8_t { Auto, Binomial, Rabenseifner, NodeAware };
inline constexpr std::array<std::string_view, 4> kReduceAlgorithmWords{"auto", "binomial", "rabenseifner",
                                                                       "node-aware"};

/// TWINFAB_REDUCE_SCATTER (MPI_Reduce_scatter and MPI_Reduce_scatter_block).
enum class ReduceScatterAlgorithm : std::uint8_t { Auto, RecursiveHalving, Pairwise, ReduceScatterv };
inline constexpr std::array<std::string_view, 4> kReduceScatterAlgorithmWords{"auto", "recursive_halving",
                                                                              "pairwise", "reduce_scatterv"};

/// TWINFAB_GATHER and TWINFAB_SCATTER.
enum class RootedAlgorithm : std::uint8_t { Auto, Binomial, Linear };
inline constexpr std::array<std::string_view, 3> kRootedAlgorithmWords{"auto", "binomial", "linear"};

/// TWINFAB_COLL_FALLBACK: what a collective does when the algorithm its parameter
/// names cannot serve the call (MPICH's MPIR_CVAR_COLLECTIVE_FALLBACK).
enum class CollFallback : std::uint8_t {
  Error,   ///< the call fails: mpi::Error(MPI_ERR_ARG) naming the algorithms that apply
  Warn,    ///< a warning, once per collective and rank; the call runs auto's choice
  Silent,  ///< the call runs auto's choice
};
inline constexpr std::array<std::string_view, 3> kCollFallbackWords{"error", "warn", "silent"};

static_assert(static_cast<int>(BarrierAlgorithm::NodeAware) == 2 &&
                  static_cast<int>(AllreduceAlgorithm::NodeAware) == 3 &&
                  static_cast<int>(AllgatherAlgorithm::NodeAware) == 4 &&
                  static_cast<int>(BcastAlgorithm::NodeAware) == 4 &&
                  static_cast<int>(AlltoallAlgorithm::Pairwise) == 3 &&
                  static_cast<int>(ReduceAlgorithm::NodeAware) == 3 &&
                  static_cast<int>(ReduceScatterAlgorithm::ReduceScatterv) == 3 &&
                  static_cast<int>(RootedAlgorithm::Linear) == 2 && static_cast<int>(CollFallback::Silent) == 2,
              "the word lists follow the enumerators");

/// The word of an enumerator of one of the enumerations above.
template <class E, std::size_t N>
constexpr std::string_view word_of(E value, const std::array<std::string_view, N>& words) noexcept {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? words[index] : std::string_view("?");
}

}  // namespace twinfab::mpi
