// Every collective against a locally computed reference, at the rank counts of
// kCollectiveRankCounts (powers of two and not), with several roots, MPI_IN_PLACE,
// and 1 MiB messages that go through the rendezvous protocol.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "tests/mpi/coll_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::kInPlace;
using mpi::Op;

class Collective : public ::testing::TestWithParam<unsigned> {};

/// The roots worth trying: first, last, middle (deduplicated).
std::vector<int> roots(int n) {
  std::vector<int> r{0};
  if (n > 1) r.push_back(n - 1);
  if (n > 2) r.push_back(n / 2);
  return r;
}

TEST_P(Collective, BarrierHoldsEveryRankUntilAllArrived) {
  const unsigned n = GetParam();
  // Simulated ranks share the address space: a rank can see where the others are.
  std::vector<int> arrived(n, 0);
  run_ranks("connectx-ddr", n, {}, [&](Context& c) {
    const int rank = c.world().rank();
    for (int round = 1; round <= 4; ++round) {
      if (rank == round % static_cast<int>(n)) {
        // Make one rank late: a 1 MiB message to itself takes simulated time.
        std::vector<std::byte> big(1 << 20), in(1 << 20);
        mpi::RequestId r = c.irecv(in.data(), 1 << 20, c.datatype(BasicKind::Byte), rank, 0, c.world());
        c.send(big.data(), 1 << 20, c.datatype(BasicKind::Byte), rank, 0, c.world());
        c.wait(r);
      }
      arrived[static_cast<std::size_t>(rank)] = round;
      mpi::barrier(c, c.world());
      for (unsigned i = 0; i < n; ++i) ASSERT_GE(arrived[i], round) << "rank " << i << " round " << round;
    }
  });
}

TEST_P(Collective, BcastFromEveryKindOfRoot) {
  const unsigned n = GetParam();
  run_ranks("connectx-ddr", n, {}, [](Context& c) {
    const int size = c.world().size();
    for (int root : roots(size)) {
      std::vector<int> data(1000, -1);
      if (c.world().rank() == root) std::iota(data.begin(), data.end(), root * 1000);
      mpi::bcast(c, data.data(), 1000, c.datatype(BasicKind::Int), root, c.world());
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(data[i], root * 1000 + i) << "root " << root;
    }
    // 1 MiB: every tree edge is a rendezvous.
    const int root = size / 2;
    std::vector<std::byte> big = c.world().rank() == root ? pattern(1 << 20, 5) : std::vector<std::byte>(1 << 20);
    mpi::bcast(c, big.data(), 1 << 20, c.datatype(BasicKind::Byte), root, c.world());
    EXPECT_EQ(big, pattern(1 << 20, 5));
  });
}

TEST_P(Collective, ReduceSumsAndMaxesAtEveryKindOfRoot) {
  const unsigned n = GetParam();
  run_ranks("connectx-ddr", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    constexpr int kCount = 300;
    for (int root : roots(size)) {
      std::vector<std::int64_t> in(kCount), out(kCount, -1);
      for (int i = 0; i < kCount; ++i) in[i] = rank * 1000 + i;
      mpi::reduce(c, in.data(), out.data(), kCount, c.datatype(BasicKind::Int64), Op::Sum, root, c.world());
      if (rank == root) {
        const std::int64_t ranks_sum = std::int64_t{size} * (size - 1) / 2;
        for (int i = 0; i < kCount; ++i) ASSERT_EQ(out[i], ranks_sum * 1000 + std::int64_t{size} * i) << root;
      } else {
        EXPECT_EQ(out[0], -1) << "a non-root's recvbuf is not written";
      }
      // In place at the root.
      std::vector<double> values(kCount);
      for (int i = 0; i < kCount; ++i) values[i] = (rank + i) % size;
      mpi::reduce(c, rank == root ? kInPlace : values.data(), values.data(), kCount, c.datatype(BasicKind::Double),
                  Op::Max, root, c.world());
      if (rank == root) {
        for (int i = 0; i < kCount; ++i) ASSERT_EQ(values[i], size - 1) << root;
      }
    }
    // 1 MiB of doubles through the rendezvous path.
    std::vector<double> big(1 << 17, rank + 0.5), sum(1 << 17);
    mpi::reduce(c, big.data(), sum.data(), 1 << 17, c.datatype(BasicKind::Double), Op::Sum, size - 1, c.world());
    if (rank == size - 1) {
      EXPECT_EQ(sum[12345], size * size / 2.0);
    }
  });
}

TEST_P(Collective, AllreduceGivesEveryRankTheSameResult) {
  const unsigned n = GetParam();
  run_ranks("connectx-ddr", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    std::vector<int> in(100), out(100);
    for (int i = 0; i < 100; ++i) in[i] = rank + i;
    mpi::allreduce(c, in.data(), out.data(), 100, c.datatype(BasicKind::Int), Op::Sum, c.world());
    for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], size * (size - 1) / 2 + size * i);
    // In place, MIN.
    for (int i = 0; i < 100; ++i) in[i] = (rank + i) % size - i;
    mpi::allreduce(c, kInPlace, in.data(), 100, c.datatype(BasicKind::Int), Op::Min, c.world());
    for (int i = 0; i < 100; ++i) ASSERT_EQ(in[i], -i);
    // 1 MiB in place: every exchange is a rendezvous.
    std::vector<double> big(1 << 17);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>((rank + i) % 5);
    mpi::allreduce(c, kInPlace, big.data(), 1 << 17, c.datatype(BasicKind::Double), Op::Sum, c.world());
    for (std::size_t i = 0; i < big.size(); i += 997) {
      double want = 0;
      for (int r = 0; r < size; ++r) want += static_cast<double>((r + i) % 5);
      ASSERT_EQ(big[i], want) << i;
    }
  });
}

TEST_P(Collective, GatherAndScatterAtEveryKindOfRoot) {
  const unsigned n = GetParam();
  run_ranks("connectx-ddr", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    const auto& type = c.datatype(BasicKind::Int);
    constexpr int kBlock = 5;
    for (int root : roots(size)) {
      std::vector<int> mine(kBlock), all(static_cast<std::size_t>(kBlock * size), -1);
      for (int i = 0; i < kBlock; ++i) mine[i] = rank * 100 + i;
      mpi::gather(c, mine.data(), kBlock, type, all.data(), kBlock, type, root, c.world());
      if (rank == root) {
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < kBlock; ++i) ASSERT_EQ(all[r * kBlock + i], r * 100 + i) << root;
      }
      // In place at the root: its block is already where it belongs.
      std::fill(all.begin(), all.end(), -1);
      if (rank == root) std::copy(mine.begin(), mine.end(), all.begin() + rank * kBlock);
      mpi::gather(c, rank == root ? kInPlace : mine.data(), kBlock, type, all.data(), kBlock, type, root, c.world());
      if (rank == root) {
        for (int r = 0; r < size; ++r) ASSERT_EQ(all[r * kBlock + 4], r * 100 + 4) << root;
      }

      // Scatter back, with the root keeping its block in place the second time.
      std::vector<int> got(kBlock, -1);
      if (rank == root) {
        for (int j = 0; j < kBlock * size; ++j) all[j] = j * 3;
      }
      mpi::scatter(c, all.data(), kBlock, type, got.data(), kBlock, type, root, c.world());
      for (int i = 0; i < kBlock; ++i) ASSERT_EQ(got[i], (rank * kBlock + i) * 3) << root;
      mpi::scatter(c, all.data(), kBlock, type, rank == root ? kInPlace : got.data(), kBlock, type, root, c.world());
      for (int i = 0; i < kBlock; ++i) ASSERT_EQ(got[i], (rank * kBlock + i) * 3) << root;
    }
  });
}

TEST_P(Collective, AllgatherRingWithAndWithoutInPlace) {
  const unsigned n = GetParam();
  run_ranks("connectx-ddr", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    const auto& type = c.datatype(BasicKind::Short);
    std::vector<short> mine{static_cast<short>(rank), static_cast<short>(-rank), 7};
    std::vector<short> all(static_cast<std::size_t>(3 * size), -1);
    mpi::allgather(c, mine.data(), 3, type, all.data(), 3, type, c.world());
    for (int r = 0; r < size; ++r) {
      ASSERT_EQ(all[3 * r], r);
      ASSERT_EQ(all[3 * r + 1], -r);
      ASSERT_EQ(all[3 * r + 2], 7);
    }
    std::vector<short> in_place(static_cast<std::size_t>(3 * size), -1);
    std::copy(mine.begin(), mine.end(), in_place.begin() + 3 * rank);
    mpi::allgather(c, kInPlace, 0, nullptr, in_place.data(), 3, type, c.world());
    EXPECT_EQ(in_place, all);
    // Large blocks (64 KiB each): every ring step is a rendezvous.
    const std::size_t block = 1 << 16;
    std::vector<std::byte> big_mine = pattern(block, static_cast<unsigned>(rank));
    std::vector<std::byte> big_all(block * static_cast<std::size_t>(size));
    mpi::allgather(c, big_mine.data(), block, c.datatype(BasicKind::Byte), big_all.data(), block,
                   c.datatype(BasicKind::Byte), c.world());
    for (int r = 0; r < size; ++r) {
      auto want = pattern(block, static_cast<unsigned>(r));
      ASSERT_TRUE(std::equal(want.begin(), want.end(), big_all.begin() + static_cast<std::ptrdiff_t>(block * r)))
          << "block " << r;
    }
  });
}

TEST_P(Collective, AlltoallPairwiseWithAndWithoutInPlace) {
  const unsigned n = GetParam();
  run_ranks("connectx-ddr", n, {}, [](Context& c) {
    const int size = c.world().size();
    const int rank = c.world().rank();
    const auto& type = c.datatype(BasicKind::Long);
    std::vector<long> out(static_cast<std::size_t>(2 * size)), in(static_cast<std::size_t>(2 * size), -1);
    for (int j = 0; j < size; ++j) {
      out[2 * j] = rank * 1000 + j;  // to rank j
      out[2 * j + 1] = -(rank * 1000 + j);
    }
    mpi::alltoall(c, out.data(), 2, type, in.data(), 2, type, c.world());
    for (int r = 0; r < size; ++r) {
      ASSERT_EQ(in[2 * r], r * 1000 + rank);
      ASSERT_EQ(in[2 * r + 1], -(r * 1000 + rank));
    }
    mpi::alltoall(c, kInPlace, 0, nullptr, out.data(), 2, type, c.world());
    EXPECT_EQ(out, in);
    // 1 MiB per rank in all.
    const std::size_t block = (std::size_t{1} << 20) / static_cast<std::size_t>(size);
    std::vector<std::byte> big_out(block * static_cast<std::size_t>(size)), big_in(big_out.size());
    for (int j = 0; j < size; ++j) {
      auto p = pattern(block, static_cast<unsigned>(rank * 1000 + j));
      std::copy(p.begin(), p.end(), big_out.begin() + static_cast<std::ptrdiff_t>(block * j));
    }
    mpi::alltoall(c, big_out.data(), static_cast<std::int64_t>(block), c.datatype(BasicKind::Byte), big_in.data(),
                  static_cast<std::int64_t>(block), c.datatype(BasicKind::Byte), c.world());
    for (int r = 0; r < size; ++r) {
      auto want = pattern(block, static_cast<unsigned>(r * 1000 + rank));
      ASSERT_TRUE(std::equal(want.begin(), want.end(), big_in.begin() + static_cast<std::ptrdiff_t>(block * r)))
          << "block from " << r;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Coll, Collective, ::testing::ValuesIn(kCollectiveRankCounts),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

}  // namespace
}  // namespace twinfab::mpitest
