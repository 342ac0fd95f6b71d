// User-defined reduction ops (mpi::ReductionOp::user) in every reduction of mpi/coll,
// at the rank counts of kCollectiveRankCounts. The non-commutative op composes affine
// maps x -> a*x + b (mod 2^64), so a result is right only if every algorithm kept the
// operands in rank order: reduce from every root (its tree is rooted at rank 0 for
// such an op), allreduce (recursive doubling, with the fold when n is not a power of
// two), reduce_scatter(_block), scan and exscan, with small and rendezvous-sized
// counts. Also: a commutative user op takes the usual paths; the function gets the
// caller's datatype and user data; and scratch buffers cover a whole element's
// [lb, ub) for a function that writes whole C structs (ASan would see it otherwise).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/mpi/coll_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::kInPlace;
using mpi::ReductionOp;

/// What every call of the user functions must see.
struct Expected {
  const mpi::Datatype* type = nullptr;
  int calls = 0;
  int wrong = 0;  ///< calls with another type or a count below 1
};

void compose(const void* user_data, const void* in, void* inout, std::int64_t count, const mpi::Datatype& type) {
  auto& expected = *static_cast<Expected*>(const_cast<void*>(user_data));
  ++expected.calls;
  if (&type != expected.type || count < 1) ++expected.wrong;
  const auto* left = static_cast<const Affine*>(in);
  auto* right = static_cast<Affine*>(inout);
  for (std::int64_t i = 0; i < count; ++i) right[i] = then(left[i], right[i]);
}

void add(const void* user_data, const void* in, void* inout, std::int64_t count, const mpi::Datatype& type) {
  auto& expected = *static_cast<Expected*>(const_cast<void*>(user_data));
  ++expected.calls;
  if (&type != expected.type || count < 1) ++expected.wrong;
  for (std::int64_t i = 0; i < count; ++i) static_cast<std::int64_t*>(inout)[i] += static_cast<const std::int64_t*>(in)[i];
}

class UserOps : public ::testing::TestWithParam<unsigned> {};

TEST_P(UserOps, NonCommutativeOpKeepsRankOrderInEveryReduction) {
  const unsigned n = GetParam();
  run_ranks("connectx-ddr", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    auto affine = mpi::Datatype::contiguous(2, c.datatype(BasicKind::Uint64));
    affine->commit();
    Expected expected{affine.get()};
    const ReductionOp op = ReductionOp::user(&compose, &expected, false);
    ASSERT_FALSE(op.is_commutative());

    // 3000 elements are 48000 bytes: rendezvous; keep the 64-rank run small.
    for (const std::int64_t count : {std::int64_t{5}, std::int64_t{size <= 16 ? 3000 : 40}}) {
      std::vector<Affine> in(static_cast<std::size_t>(count)), out(in.size());
      for (std::int64_t k = 0; k < count; ++k) in[static_cast<std::size_t>(k)] = affine_input(rank, k);
      auto expect = [&](const std::vector<Affine>& got, int first, int last, std::int64_t k0, std::int64_t m,
                        const char* what) {
        for (std::int64_t k = 0; k < m; ++k)
          ASSERT_EQ(got[static_cast<std::size_t>(k)], affine_fold(first, last, k0 + k))
              << what << " count " << count << " element " << k;
      };

      const int root_step = size <= 16 ? 1 : size / 4;
      for (int root = 0; root < size; root += root_step) {
        std::fill(out.begin(), out.end(), Affine{0, 0});
        mpi::reduce(c, in.data(), out.data(), count, affine, op, root, c.world());
        if (rank == root) expect(out, 0, size, 0, count, "reduce");
        // In place at the root, which is then also a node of the tree rooted at 0.
        if (rank == root) out = in;
        mpi::reduce(c, rank == root ? kInPlace : in.data(), out.data(), count, affine, op, root, c.world());
        if (rank == root) expect(out, 0, size, 0, count, "reduce in place");
      }

      mpi::allreduce(c, in.data(), out.data(), count, affine, op, c.world());
      expect(out, 0, size, 0, count, "allreduce");
      out = in;
      mpi::allreduce(c, kInPlace, out.data(), count, affine, op, c.world());
      expect(out, 0, size, 0, count, "allreduce in place");

      mpi::scan(c, in.data(), out.data(), count, affine, op, c.world());
      expect(out, 0, rank + 1, 0, count, "scan");
      std::fill(out.begin(), out.end(), Affine{0, 0});
      mpi::exscan(c, in.data(), out.data(), count, affine, op, c.world());
      if (rank > 0) expect(out, 0, rank, 0, count, "exscan");
    }

    // Reduce-scatter: uneven blocks (some empty) and fixed ones.
    std::vector<std::int64_t> counts(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) counts[static_cast<std::size_t>(i)] = (i * 5) % 4;
    std::int64_t total = 0, first = 0;
    for (int i = 0; i < size; ++i) total += counts[static_cast<std::size_t>(i)];
    for (int i = 0; i < rank; ++i) first += counts[static_cast<std::size_t>(i)];
    std::vector<Affine> whole(static_cast<std::size_t>(total)), mine(4);
    for (std::int64_t k = 0; k < total; ++k) whole[static_cast<std::size_t>(k)] = affine_input(rank, k);
    mpi::reduce_scatter(c, whole.data(), mine.data(), counts, affine, op, c.world());
    for (int k = 0; k < counts[static_cast<std::size_t>(rank)]; ++k)
      ASSERT_EQ(mine[static_cast<std::size_t>(k)], affine_fold(0, size, first + k)) << "reduce_scatter element " << k;
    std::vector<Affine> blocks(static_cast<std::size_t>(3 * size));
    for (int k = 0; k < 3 * size; ++k) blocks[static_cast<std::size_t>(k)] = affine_input(rank, k);
    mpi::reduce_scatter_block(c, kInPlace, blocks.data(), 3, affine, op, c.world());
    for (int k = 0; k < 3; ++k)
      ASSERT_EQ(blocks[static_cast<std::size_t>(k)], affine_fold(0, size, 3 * rank + k))
          << "reduce_scatter_block " << k;

    EXPECT_EQ(expected.wrong, 0);
    if (size > 1) {
      EXPECT_GT(expected.calls, 0);
    }
  });
}

TEST_P(UserOps, CommutativeOpGetsTheSameResultsAsTheBuiltInSum) {
  const unsigned n = GetParam();
  run_ranks("ideal", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    const auto& int64 = c.datatype(BasicKind::Int64);
    Expected expected{int64.get()};
    const ReductionOp op = ReductionOp::user(&add, &expected, true);
    std::vector<std::int64_t> in(9), mine(9), builtin(9);
    for (int k = 0; k < 9; ++k) in[static_cast<std::size_t>(k)] = rank * 100 + k;
    for (int root : {0, size - 1}) {
      mpi::reduce(c, in.data(), mine.data(), 9, int64, op, root, c.world());
      mpi::reduce(c, in.data(), builtin.data(), 9, int64, mpi::Op::Sum, root, c.world());
      if (rank == root) {
        ASSERT_EQ(mine, builtin) << "reduce root " << root;
      }
    }
    mpi::allreduce(c, in.data(), mine.data(), 9, int64, op, c.world());
    mpi::allreduce(c, in.data(), builtin.data(), 9, int64, mpi::Op::Sum, c.world());
    ASSERT_EQ(mine, builtin);
    mpi::scan(c, in.data(), mine.data(), 9, int64, op, c.world());
    mpi::scan(c, in.data(), builtin.data(), 9, int64, mpi::Op::Sum, c.world());
    ASSERT_EQ(mine, builtin);
    EXPECT_EQ(expected.wrong, 0);
  });
}

/// A C struct whose datatype names only its second member: lb 0, true_lb 8.
struct Padded {
  std::int64_t pad;
  std::int64_t value;
};

void add_whole_structs(const void*, const void* in, void* inout, std::int64_t count, const mpi::Datatype&) {
  const auto* a = static_cast<const Padded*>(in);
  auto* b = static_cast<Padded*>(inout);
  for (std::int64_t i = 0; i < count; ++i) b[i] = Padded{-1, a[i].value + b[i].value};  // writes the pad too
}

TEST_P(UserOps, ScratchBuffersHoldWholeElementsForTheUserFunction) {
  const unsigned n = GetParam();
  run_ranks("ideal", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    const std::int64_t one = 1, offset = 8;
    auto value_only = mpi::Datatype::create_resized(
        mpi::Datatype::hindexed({&one, 1}, {&offset, 1}, c.datatype(BasicKind::Int64)), 0, sizeof(Padded));
    value_only->commit();
    ASSERT_EQ(value_only->true_lb(), 8);
    const ReductionOp op = ReductionOp::user(&add_whole_structs, nullptr, false);
    std::vector<Padded> in(3), out(3);
    for (int k = 0; k < 3; ++k) in[static_cast<std::size_t>(k)] = {0, rank + k};
    const std::int64_t sum = static_cast<std::int64_t>(size) * (size - 1) / 2;
    mpi::reduce(c, in.data(), out.data(), 3, value_only, op, size - 1, c.world());
    if (rank == size - 1) {
      for (int k = 0; k < 3; ++k) ASSERT_EQ(out[static_cast<std::size_t>(k)].value, sum + size * k);
    }
    mpi::scan(c, in.data(), out.data(), 3, value_only, op, c.world());
    ASSERT_EQ(out[0].value, static_cast<std::int64_t>(rank) * (rank + 1) / 2);
  });
}

INSTANTIATE_TEST_SUITE_P(Coll, UserOps, ::testing::ValuesIn(kCollectiveRankCounts),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

}  // namespace
}  // namespace twinfab::mpitest
