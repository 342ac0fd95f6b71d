// Collectives with derived datatypes (bcast and gather/scatter with different send
// and receive layouts of the same type signature) and the argument errors every
// collective reports, naming the function and the argument.
#include <gtest/gtest.h>

#include <vector>

#include "tests/mpi/coll_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::Datatype;
using mpi::ErrorClass;
using mpi::kInPlace;
using mpi::Op;

class CollectiveDatatypes : public ::testing::TestWithParam<unsigned> {};

TEST_P(CollectiveDatatypes, BcastAndGatherWithDerivedTypes) {
  run_ranks("connectx-ddr", GetParam(), {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    const auto& int_type = c.datatype(BasicKind::Int);
    // Columns of a 4x4 row-major matrix: vector(4, 1, 4), resized to one int so that
    // consecutive "columns" start one int apart.
    auto column = Datatype::create_resized(Datatype::vector(4, 1, 4, int_type), 0, sizeof(int));
    column->commit();
    std::vector<int> matrix(16, -1);
    if (rank == size - 1) {
      for (int i = 0; i < 16; ++i) matrix[i] = i;
    }
    // Broadcast columns 1 and 2 only.
    mpi::bcast(c, matrix.data() + 1, 2, column, size - 1, c.world());
    for (int row = 0; row < 4; ++row)
      for (int col = 0; col < 4; ++col) {
        const int want = (rank == size - 1 || col == 1 || col == 2) ? row * 4 + col : -1;
        ASSERT_EQ(matrix[row * 4 + col], want) << row << "," << col;
      }

    // Gather: each rank sends 3 contiguous ints; the root receives them as a strided
    // vector (every other int), block i at i * extent.
    auto strided = Datatype::vector(3, 1, 2, int_type);
    strided->commit();
    auto three = Datatype::contiguous(3, int_type);
    three->commit();
    const int mine[3] = {rank, rank + 100, rank + 200};
    const int root = size / 2;
    const std::int64_t extent = strided->extent() / static_cast<std::int64_t>(sizeof(int));  // 5 ints
    std::vector<int> all(static_cast<std::size_t>(extent * size), -1);
    mpi::gather(c, mine, 1, three, all.data(), 1, strided, root, c.world());
    if (rank == root) {
      for (int r = 0; r < size; ++r)
        for (int j = 0; j < 3; ++j) ASSERT_EQ(all[r * extent + 2 * j], r + 100 * j) << r;
    }
    // Scatter it back through the same layouts, reversed.
    int back[3] = {-1, -1, -1};
    mpi::scatter(c, all.data(), 1, strided, back, 3, int_type, root, c.world());
    for (int j = 0; j < 3; ++j) ASSERT_EQ(back[j], rank + 100 * j);
  });
}

INSTANTIATE_TEST_SUITE_P(Coll, CollectiveDatatypes, ::testing::Values(1u, 3u, 4u, 7u),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

TEST(CollectiveErrors, BadArgumentsNameTheFunctionAndArgument) {
  run_ranks("ideal", 3, {}, [](Context& c) {
    const auto& w = c.world();
    const auto& int_type = c.datatype(BasicKind::Int);
    int a[6] = {}, b[6] = {};
    expect_mpi_error([&] { mpi::bcast(c, a, 1, int_type, 3, w); }, ErrorClass::MPI_ERR_ROOT,
                     "MPI_Bcast(root=3): invalid root; communicator has 3 ranks");
    expect_mpi_error([&] { mpi::reduce(c, a, b, 1, int_type, Op::Sum, -1, w); }, ErrorClass::MPI_ERR_ROOT,
                     "MPI_Reduce(root=-1)");
    expect_mpi_error([&] { mpi::gather(c, a, 1, int_type, b, 1, int_type, 7, w); }, ErrorClass::MPI_ERR_ROOT,
                     "MPI_Gather(root=7)");
    expect_mpi_error([&] { mpi::bcast(c, a, -2, int_type, 0, w); }, ErrorClass::MPI_ERR_COUNT,
                     "MPI_Bcast(count=-2)");
    expect_mpi_error([&] { mpi::allreduce(c, a, b, 1, nullptr, Op::Sum, w); }, ErrorClass::MPI_ERR_TYPE,
                     "MPI_Allreduce(datatype)");
    auto uncommitted = Datatype::contiguous(2, int_type);
    expect_mpi_error([&] { mpi::allgather(c, a, 1, uncommitted, b, 2, int_type, w); }, ErrorClass::MPI_ERR_TYPE,
                     "MPI_Allgather(datatype)");
    expect_mpi_error([&] { mpi::allreduce(c, a, b, 1, c.datatype(BasicKind::Float), Op::Band, w); },
                     ErrorClass::MPI_ERR_OP, "MPI_Allreduce(op=MPI_BAND)");
    expect_mpi_error([&] { mpi::reduce(c, a, b, 1, int_type, Op::Maxloc, 0, w); }, ErrorClass::MPI_ERR_OP,
                     "MPI_Reduce(op=MPI_MAXLOC)");
    expect_mpi_error([&] { mpi::allreduce(c, a, b, 1, int_type, Op::Replace, w); }, ErrorClass::MPI_ERR_OP,
                     "MPI_Allreduce(op=MPI_REPLACE)");
    expect_mpi_error([&] { mpi::allreduce(c, a, a + 1, 2, int_type, Op::Sum, w); }, ErrorClass::MPI_ERR_BUFFER,
                     "MPI_Allreduce(sendbuf): send and receive buffers overlap; pass MPI_IN_PLACE");
    expect_mpi_error([&] { mpi::alltoall(c, a, 2, int_type, a, 2, int_type, w); }, ErrorClass::MPI_ERR_BUFFER,
                     "MPI_Alltoall(sendbuf)");
    expect_mpi_error([&] { mpi::allgather(c, a + 2, 1, int_type, a, 1, int_type, w); },
                     ErrorClass::MPI_ERR_BUFFER, "MPI_Allgather(sendbuf)");
    expect_mpi_error([&] { mpi::bcast(c, nullptr, 1, int_type, 0, w); }, ErrorClass::MPI_ERR_BUFFER,
                     "MPI_Bcast(buffer)");
    // MPI_IN_PLACE where MPI does not allow it.
    if (w.rank() != 0) {
      expect_mpi_error([&] { mpi::reduce(c, kInPlace, b, 1, int_type, Op::Sum, 0, w); },
                       ErrorClass::MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
      expect_mpi_error([&] { mpi::scatter(c, a, 1, int_type, kInPlace, 1, int_type, 0, w); },
                       ErrorClass::MPI_ERR_BUFFER, "MPI_Scatter(recvbuf)");
    }
    // Counts that disagree between ranks: the longer message truncates.
    if (w.rank() == 0) {
      expect_mpi_error([&] { mpi::gather(c, a, 1, int_type, b, 1, int_type, 0, w); }, ErrorClass::MPI_ERR_TRUNCATE,
                       "MPI_Gather(count)");
    } else {
      mpi::gather(c, a, 2, int_type, b, 1, int_type, 0, w);
    }
    EXPECT_EQ(c.live_requests(), 0u);  // no failed call left a request behind
    // Still usable after all that.
    int v = 1;
    mpi::allreduce(c, kInPlace, &v, 1, int_type, Op::Sum, w);
    EXPECT_EQ(v, 3);
  });
}

}  // namespace
}  // namespace twinfab::mpitest
