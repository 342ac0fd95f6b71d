// Every predefined reduction op on every basic type it is defined on, through
// reduce and allreduce, against a reference folded locally with MPI_Reduce_local in
// rank order. Values are small integers (and sparse factors of 2 for PROD) so that
// no type overflows at 64 ranks and floating-point results are exact in any order.
// Reductions on derived datatypes (a strided vector of one basic type) too.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "tests/mpi/coll_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::Op;

constexpr std::array kOps{Op::Max, Op::Min,  Op::Sum,  Op::Prod, Op::Land,   Op::Band,
                          Op::Lor, Op::Bor,  Op::Lxor, Op::Bxor, Op::Maxloc, Op::Minloc};
constexpr std::size_t kCount = 6;

/// Rank `rank`'s input for `op` on `kind`, in the C layout.
std::vector<std::byte> input(BasicKind kind, Op op, int rank) {
  std::vector<std::byte> buffer(kCount * static_cast<std::size_t>(mpi::basic_extent(kind)));
  const bool is_prod = op == Op::Prod;
  fill(
      kind, buffer.data(), kCount,
      [&](std::size_t i) -> long {
        const long x = static_cast<long>(i) + rank;
        if (is_prod) return x % 16 == 0 ? 2 : 1;
        if (op == Op::Maxloc || op == Op::Minloc) return (x * 7) % 5;  // ties: the lower index wins
        return (x * 5) % 3 == 0 ? 0 : (x % 2) + 1;
      },
      [&](std::size_t) { return rank; });
  return buffer;
}

class CollectiveOps : public ::testing::TestWithParam<unsigned> {};

TEST_P(CollectiveOps, EveryOpOnEveryBasicTypeMatchesTheLocalReference) {
  const unsigned n = GetParam();
  run_ranks("ideal", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    int checked = 0;
    for (std::size_t k = 0; k < mpi::kBasicKindCount; ++k) {
      const auto kind = static_cast<BasicKind>(k);
      const auto& type = c.datatype(kind);
      for (Op op : kOps) {
        if (!mpi::is_defined(op, kind)) continue;
        std::vector<std::byte> reference = input(kind, op, 0);
        for (int r = 1; r < size; ++r) {
          std::vector<std::byte> other = input(kind, op, r);
          mpi::reduce_local(op, other.data(), reference.data(), kCount, *type);
        }
        const std::string label = std::string(mpi::to_string(op)) + " on " + std::string(mpi::to_string(kind));
        std::string what;

        std::vector<std::byte> mine = input(kind, op, rank);
        std::vector<std::byte> out(mine.size());
        mpi::allreduce(c, mine.data(), out.data(), kCount, type, op, c.world());
        long diff = first_difference(kind, out.data(), reference.data(), kCount, &what);
        ASSERT_EQ(diff, -1) << "allreduce " << label << " element " << diff << ": " << what;

        const int root = (static_cast<int>(k) + 1) % size;
        std::vector<std::byte> at_root(mine.size());
        mpi::reduce(c, mine.data(), at_root.data(), kCount, type, op, root, c.world());
        if (rank == root) {
          diff = first_difference(kind, at_root.data(), reference.data(), kCount, &what);
          ASSERT_EQ(diff, -1) << "reduce " << label << " element " << diff << ": " << what;
        }
        ++checked;
      }
    }
    EXPECT_GT(checked, 150);  // every (op, type) pair MPI defines, not a handful
  });
}

TEST_P(CollectiveOps, ReductionsOnAStridedVectorType) {
  const unsigned n = GetParam();
  run_ranks("ideal", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    // Every other int, 8 ints per element: the holes must come through untouched.
    auto every_other =
        mpi::Datatype::create_resized(mpi::Datatype::vector(4, 1, 2, c.datatype(BasicKind::Int)), 0, 8 * sizeof(int));
    every_other->commit();
    std::vector<int> in(16), out(16, -7);
    for (int i = 0; i < 16; ++i) in[i] = rank + i;
    mpi::allreduce(c, in.data(), out.data(), 2, every_other, Op::Sum, c.world());
    for (int i = 0; i < 16; ++i)
      ASSERT_EQ(out[i], i % 2 == 0 ? size * (size - 1) / 2 + size * i : -7) << i;
    mpi::reduce(c, rank == 0 ? mpi::kInPlace : in.data(), in.data(), 2, every_other, Op::Max, 0, c.world());
    if (rank == 0) {
      for (int i = 0; i < 16; ++i) ASSERT_EQ(in[i], i % 2 == 0 ? size - 1 + i : i) << i;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Coll, CollectiveOps, ::testing::ValuesIn(kCollectiveRankCounts),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

}  // namespace
}  // namespace twinfab::mpitest
