// Unit tests of mpi/core/topology: MPI_Dims_create (the MPI standard's examples,
// balance, kept entries, large and prime counts, every refusal) and the Cartesian
// grid (row-major coordinates, rank with wrap-around, shifts at the borders of
// periodic and non-periodic dimensions, bad input), graphs (neighbour lists, bad
// index and edges), and the neighbourhoods of the neighbourhood collectives on each
// kind of topology.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "mpi/core/communicator.hpp"
#include "mpi/core/error.hpp"
#include "mpi/core/topology.hpp"

#include "tests/unit/mpi_test_support.hpp"

namespace twinfab::mpi {
namespace {

using testing::error_of;
using Dims = std::vector<int>;

// ------------------------------------------------------------------ dims_create

TEST(MpiDimsCreate, TheStandardsExamples) {
  // MPI-3.1 §7.5.2, Example 7.1.
  EXPECT_EQ(dims_create(6, Dims{0, 0}), (Dims{3, 2}));
  EXPECT_EQ(dims_create(7, Dims{0, 0}), (Dims{7, 1}));
  EXPECT_EQ(dims_create(6, Dims{0, 3, 0}), (Dims{2, 3, 1}));
  EXPECT_EQ(error_of([] { dims_create(7, Dims{0, 3, 0}); }), ErrorClass::MPI_ERR_DIMS);
}

TEST(MpiDimsCreate, FactorsAreAsCloseAsPossibleAndNonIncreasing) {
  EXPECT_EQ(dims_create(16, Dims{0, 0}), (Dims{4, 4}));
  EXPECT_EQ(dims_create(12, Dims{0, 0}), (Dims{4, 3}));
  EXPECT_EQ(dims_create(64, Dims{0, 0, 0}), (Dims{4, 4, 4}));
  EXPECT_EQ(dims_create(30, Dims{0, 0, 0}), (Dims{5, 3, 2}));
  EXPECT_EQ(dims_create(24, Dims{0, 0, 0}), (Dims{4, 3, 2}));
  // Largest prime first would give 12 x 6; the balanced answer is 9 x 8.
  EXPECT_EQ(dims_create(72, Dims{0, 0}), (Dims{9, 8}));
  EXPECT_EQ(dims_create(1, Dims{0, 0, 0}), (Dims{1, 1, 1}));
  EXPECT_EQ(dims_create(5, Dims{0}), (Dims{5}));
  EXPECT_EQ(dims_create(8, Dims{0, 0, 0, 0}), (Dims{2, 2, 2, 1}));
  EXPECT_EQ(dims_create(1, Dims{}), (Dims{}));
}

TEST(MpiDimsCreate, TiesGoAsInMpich) {
  // Equal spreads: MPICH keeps the largest smallest factor, then the largest
  // next-smallest (its test/mpi/topo/baddims.h, which these entries come from).
  EXPECT_EQ(dims_create(5040, Dims{0, 0, 0}), (Dims{21, 16, 15}));  // not 20 x 18 x 14
  EXPECT_EQ(dims_create(6240, Dims{0, 0, 0}), (Dims{26, 16, 15}));  // not 24 x 20 x 13
  EXPECT_EQ(dims_create(10800, Dims{0, 0, 0}), (Dims{27, 20, 20}));  // not 25 x 24 x 18
  EXPECT_EQ(dims_create(100320, Dims{0, 0, 0}), (Dims{57, 44, 40}));  // not 55 x 48 x 38
}

TEST(MpiDimsCreate, PositiveEntriesAreKept) {
  EXPECT_EQ(dims_create(24, Dims{0, 2, 0}), (Dims{4, 2, 3}));
  EXPECT_EQ(dims_create(12, Dims{3, 4}), (Dims{3, 4}));
  EXPECT_EQ(dims_create(12, Dims{0, 0, 12}), (Dims{1, 1, 12}));
}

TEST(MpiDimsCreate, LargeAndPrimeCountsAreQuick) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(dims_create(2147483647, Dims{0, 0}), (Dims{2147483647, 1}));  // prime
  EXPECT_EQ(dims_create(1 << 30, Dims{0, 0, 0}), (Dims{1024, 1024, 1024}));
  // 735134400 has 1344 divisors; a product check suffices here.
  for (int k = 2; k <= 8; ++k) {
    const Dims d = dims_create(735134400, Dims(static_cast<std::size_t>(k), 0));
    long long product = 1;
    for (std::size_t i = 0; i < d.size(); ++i) {
      product *= d[i];
      if (i > 0) {
        EXPECT_GE(d[i - 1], d[i]);
      }
    }
    EXPECT_EQ(product, 735134400);
  }
  EXPECT_EQ(dims_create(4096, Dims(20, 0)).front(), 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(MpiDimsCreate, BadInputIsRefusedNamingTheArgument) {
  std::string message;
  EXPECT_EQ(error_of([] { dims_create(0, Dims{0}); }, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_NE(message.find("MPI_Dims_create(nnodes=0)"), std::string::npos) << message;
  EXPECT_EQ(error_of([] { dims_create(4, Dims{0, -2}); }, &message), ErrorClass::MPI_ERR_DIMS);
  EXPECT_NE(message.find("MPI_Dims_create(dims[1]=-2)"), std::string::npos) << message;
  EXPECT_EQ(error_of([] { dims_create(12, Dims{5, 0}); }, &message), ErrorClass::MPI_ERR_DIMS);
  EXPECT_NE(message.find("does not divide"), std::string::npos) << message;
  EXPECT_EQ(error_of([] { dims_create(12, Dims{3, 3}); }, &message), ErrorClass::MPI_ERR_DIMS);
  EXPECT_EQ(error_of([] { dims_create(4, Dims{}); }), ErrorClass::MPI_ERR_DIMS);
  // Positive entries whose product overflows an int are "more than nnodes", not UB.
  EXPECT_EQ(error_of([] { dims_create(6, Dims{65536, 65536, 65536, 0}); }, &message), ErrorClass::MPI_ERR_DIMS);
  EXPECT_NE(message.find("more than nnodes=6"), std::string::npos) << message;
}

// ------------------------------------------------------------------ CartTopology

TEST(MpiCartTopology, RowMajorCoordinatesAndRanks) {
  const CartTopology grid({2, 3, 4}, {false, true, false}, "test");
  EXPECT_EQ(grid.ndims(), 3);
  EXPECT_EQ(grid.size(), 24);
  EXPECT_EQ(grid.coords(0, "test"), (Dims{0, 0, 0}));
  EXPECT_EQ(grid.coords(5, "test"), (Dims{0, 1, 1}));
  EXPECT_EQ(grid.coords(23, "test"), (Dims{1, 2, 3}));
  for (int r = 0; r < grid.size(); ++r) EXPECT_EQ(grid.rank(grid.coords(r, "test"), "test"), r);
  // The periodic dimension wraps both ways; the others refuse.
  EXPECT_EQ(grid.rank(Dims{1, -1, 2}, "test"), grid.rank(Dims{1, 2, 2}, "test"));
  EXPECT_EQ(grid.rank(Dims{1, 7, 2}, "test"), grid.rank(Dims{1, 1, 2}, "test"));
  std::string message;
  EXPECT_EQ(error_of([&] { grid.rank(Dims{2, 0, 0}, "MPI_Cart_rank"); }, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_NE(message.find("MPI_Cart_rank(coords[0]=2)"), std::string::npos) << message;
  EXPECT_EQ(error_of([&] { grid.rank(Dims{0, 0, -1}, "MPI_Cart_rank"); }), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(error_of([&] { grid.coords(24, "MPI_Cart_coords"); }, &message), ErrorClass::MPI_ERR_RANK);
  EXPECT_NE(message.find("MPI_Cart_coords(rank=24)"), std::string::npos) << message;
}

TEST(MpiCartTopology, ShiftsWrapOnPeriodicDimensionsAndStopAtOtherBorders) {
  const CartTopology grid({3, 4}, {false, true}, "test");  // rank = 4 * row + column
  EXPECT_EQ(grid.shift(0, 0, 1, "test"), std::make_pair(kProcNull, 4));
  EXPECT_EQ(grid.shift(8, 0, 1, "test"), std::make_pair(4, kProcNull));
  EXPECT_EQ(grid.shift(4, 0, 2, "test"), std::make_pair(kProcNull, kProcNull));
  EXPECT_EQ(grid.shift(4, 0, -1, "test"), std::make_pair(8, 0));
  EXPECT_EQ(grid.shift(0, 1, 1, "test"), std::make_pair(3, 1));
  EXPECT_EQ(grid.shift(3, 1, 1, "test"), std::make_pair(2, 0));
  EXPECT_EQ(grid.shift(5, 1, 6, "test"), std::make_pair(7, 7));   // 6 = 2 (mod 4)
  EXPECT_EQ(grid.shift(5, 1, 0, "test"), std::make_pair(5, 5));
  EXPECT_EQ(grid.shift(5, 1, -2147483647 - 1, "test"), std::make_pair(5, 5));  // no overflow
  std::string message;
  EXPECT_EQ(error_of([&] { grid.shift(0, 2, 1, "MPI_Cart_shift"); }, &message), ErrorClass::MPI_ERR_DIMS);
  EXPECT_NE(message.find("MPI_Cart_shift(direction=2)"), std::string::npos) << message;
  EXPECT_EQ(error_of([&] { grid.shift(0, -1, 1, "MPI_Cart_shift"); }), ErrorClass::MPI_ERR_DIMS);
}

TEST(MpiCartTopology, ZeroDimensionsIsOneProcess) {
  const CartTopology grid({}, {}, "test");
  EXPECT_EQ(grid.size(), 1);
  EXPECT_EQ(grid.coords(0, "test"), Dims{});
  EXPECT_EQ(grid.rank(Dims{}, "test"), 0);
  EXPECT_EQ(error_of([&] { grid.shift(0, 0, 1, "test"); }), ErrorClass::MPI_ERR_DIMS);
}

TEST(MpiCartTopology, BadDimensionsAreRefused) {
  std::string message;
  EXPECT_EQ(error_of([] { CartTopology({2, 0}, {false, false}, "MPI_Cart_create"); }, &message),
            ErrorClass::MPI_ERR_DIMS);
  EXPECT_NE(message.find("MPI_Cart_create(dims[1]=0)"), std::string::npos) << message;
  EXPECT_EQ(error_of([] { CartTopology({-3}, {true}, "MPI_Cart_create"); }), ErrorClass::MPI_ERR_DIMS);
  EXPECT_EQ(error_of([] { CartTopology({65536, 65536}, {false, false}, "MPI_Cart_create"); }, &message),
            ErrorClass::MPI_ERR_DIMS);
  EXPECT_NE(message.find("more than 2^31 - 1"), std::string::npos) << message;
}

// ------------------------------------------------------------------ graphs

TEST(MpiGraphTopology, NeighboursFollowIndexAndEdges) {
  // MPI-3.1 §7.5.3's example: 0 -> 1, 3; 1 -> 0; 2 -> 3; 3 -> 0, 2.
  const GraphTopology graph({2, 3, 4, 6}, {1, 3, 0, 3, 0, 2}, "MPI_Graph_create");
  EXPECT_EQ(graph.nnodes(), 4);
  EXPECT_EQ(graph.nedges(), 6);
  const auto list = [&](int rank) {
    const auto n = graph.neighbours(rank, "test");
    return std::vector<int>(n.begin(), n.end());
  };
  EXPECT_EQ(list(0), (std::vector<int>{1, 3}));
  EXPECT_EQ(list(1), (std::vector<int>{0}));
  EXPECT_EQ(list(2), (std::vector<int>{3}));
  EXPECT_EQ(list(3), (std::vector<int>{0, 2}));
  EXPECT_EQ(error_of([&] { graph.neighbours(4, "test"); }), ErrorClass::MPI_ERR_RANK);
  // Isolated nodes, self-loops and repeated edges are graphs too.
  const GraphTopology odd({0, 3}, {1, 1, 1}, "MPI_Graph_create");
  EXPECT_TRUE(odd.neighbours(0, "test").empty());
  EXPECT_EQ(odd.neighbours(1, "test").size(), 3u);
}

TEST(MpiGraphTopology, BadIndexAndEdgesAreRefusedNamingTheEntry) {
  std::string message;
  EXPECT_EQ(error_of([] { GraphTopology({2, 1}, {0, 1}, "MPI_Graph_create"); }, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_NE(message.find("MPI_Graph_create(index[1]=1)"), std::string::npos) << message;
  EXPECT_EQ(error_of([] { GraphTopology({1, 2}, {0, 2}, "MPI_Graph_create"); }, &message), ErrorClass::MPI_ERR_RANK);
  EXPECT_NE(message.find("MPI_Graph_create(edges[1]=2)"), std::string::npos) << message;
  EXPECT_EQ(error_of([] { GraphTopology({1}, {-1}, "MPI_Graph_create"); }), ErrorClass::MPI_ERR_RANK);
}

// ------------------------------------------------------------------ neighbourhoods

Communicator with(int rank, int size, Topology topology) {
  Communicator comm = Communicator::identity(kFirstDerivedContextId, rank, size);
  comm.set_topology(std::make_shared<const Topology>(std::move(topology)));
  return comm;
}

TEST(MpiNeighbourhood, CartesianIsNegativeThenPositivePerDimension) {
  // 2 x 3, periodic in the second dimension only. Rank 1 is (0, 1).
  const Communicator comm = with(1, 6, Topology(CartTopology({2, 3}, {false, true}, "test")));
  const Neighbourhood n = neighbourhood(comm, "test");
  EXPECT_TRUE(n.cartesian);
  EXPECT_EQ(n.sources, (std::vector<int>{kProcNull, 4, 0, 2}));
  EXPECT_EQ(n.destinations, n.sources);
  EXPECT_EQ(neighbour_counts(comm, "test"), std::make_pair(4, 4));
  // A block sent in the positive direction is received from the negative neighbour.
  EXPECT_EQ(cartesian_send_step(1), cartesian_recv_step(0));
  EXPECT_EQ(cartesian_send_step(0), cartesian_recv_step(1));
  EXPECT_NE(cartesian_send_step(0), cartesian_send_step(1));
}

TEST(MpiNeighbourhood, GraphsAndDistributedGraphs) {
  const Communicator graph = with(3, 4, Topology(GraphTopology({2, 3, 4, 6}, {1, 3, 0, 3, 0, 2}, "test")));
  Neighbourhood n = neighbourhood(graph, "test");
  EXPECT_FALSE(n.cartesian);
  EXPECT_EQ(n.sources, (std::vector<int>{0, 2}));
  EXPECT_EQ(n.destinations, (std::vector<int>{0, 2}));
  const Communicator dist = with(0, 4, Topology(DistGraphTopology({3}, {}, {1, 2, 1}, {}, false)));
  n = neighbourhood(dist, "test");
  EXPECT_EQ(n.sources, (std::vector<int>{3}));
  EXPECT_EQ(n.destinations, (std::vector<int>{1, 2, 1}));
  EXPECT_EQ(neighbour_counts(dist, "test"), std::make_pair(1, 3));
}

TEST(MpiNeighbourhood, NoTopologyIsATopologyError) {
  const Communicator plain = Communicator::identity(kWorldContextId, 0, 4);
  std::string message;
  EXPECT_EQ(error_of([&] { neighbourhood(plain, "MPI_Neighbor_alltoall"); }, &message), ErrorClass::MPI_ERR_TOPOLOGY);
  EXPECT_NE(message.find("MPI_Neighbor_alltoall(comm)"), std::string::npos) << message;
  EXPECT_EQ(error_of([&] { neighbour_counts(plain, "test"); }), ErrorClass::MPI_ERR_TOPOLOGY);
}

}  // namespace
}  // namespace twinfab::mpi
