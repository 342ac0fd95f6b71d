// Communicators and groups: dup isolation, split (colors, keys, MPI_UNDEFINED),
// collectives on the halves of a split running at the same time, groups (incl, excl,
// ranges, set operations, compare), free, create (one group, disjoint groups),
// split_type by host, Cartesian grids (create, sub, dup).
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "tests/mpi/coll_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::Communicator;
using mpi::ErrorClass;
using mpi::Op;

TEST(Comm, SameTagsOnWorldAndItsDupDoNotCross) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const Communicator* dup = c.comm_dup(c.world());
    ASSERT_NE(dup, nullptr);
    EXPECT_EQ(dup->size(), 2);
    EXPECT_EQ(dup->rank(), c.world().rank());
    EXPECT_NE(dup->context_id(), c.world().context_id());
    const auto& type = c.datatype(BasicKind::Int);
    if (c.world().rank() == 0) {
      int on_world = 1, on_dup = 2;
      // The dup's message goes first; a world receive must still not take it.
      c.send(&on_dup, 1, type, 1, 5, *dup);
      c.send(&on_world, 1, type, 1, 5, c.world());
    } else {
      int v = 0;
      mpi::MessageStatus s = c.recv(&v, 1, type, mpi::kAnySource, mpi::kAnyTag, c.world());
      EXPECT_EQ(v, 1);
      EXPECT_EQ(s.tag, 5);
      EXPECT_FALSE(c.iprobe(mpi::kAnySource, mpi::kAnyTag, c.world()));
      c.recv(&v, 1, type, 0, 5, *dup);
      EXPECT_EQ(v, 2);
    }
    // User messages and collectives do not cross either: a pending user message
    // with a collective's tag range does not disturb a barrier.
    int stray = 99;
    const int peer = 1 - c.world().rank();
    mpi::RequestId r = c.isend(&stray, 1, type, peer, 1 << 16, c.world());
    mpi::barrier(c, c.world());
    int got = 0;
    c.recv(&got, 1, type, peer, 1 << 16, c.world());
    c.wait(r);
    EXPECT_EQ(got, 99);
    c.comm_free(dup);
    EXPECT_EQ(dup, nullptr);
  });
}

TEST(Comm, SplitOrdersByKeyThenRankAndHonoursUndefined) {
  run_ranks("ideal", 7, {}, [](Context& c) {
    const int rank = c.world().rank();
    // Color by rank % 3, rank 6 opts out; reverse order through the key.
    const int color = rank == 6 ? mpi::kUndefined : rank % 3;
    const Communicator* part = c.comm_split(c.world(), color, -rank);
    if (rank == 6) {
      EXPECT_EQ(part, nullptr);
    } else {
      ASSERT_NE(part, nullptr);
      std::vector<int> want;
      for (int r = 6; r >= 0; --r)
        if (r != 6 && r % 3 == color) want.push_back(r);
      ASSERT_EQ(part->size(), static_cast<int>(want.size()));
      for (int i = 0; i < part->size(); ++i) EXPECT_EQ(part->world_rank(i), want[i]);
      EXPECT_EQ(part->world_rank(part->rank()), rank);
      // Equal keys: the old rank decides.
      const Communicator* same_key = c.comm_split(*part, 0, 0);
      for (int i = 0; i < same_key->size(); ++i) EXPECT_EQ(same_key->world_rank(i), part->world_rank(i));
      c.comm_free(same_key);
      c.comm_free(part);
    }
    // Nobody leaves (the context's collective teardown) while others still talk.
    mpi::barrier(c, c.world());
  });
}

TEST(Comm, CollectivesOnOddAndEvenHalvesRunConcurrently) {
  for (unsigned n : {3u, 16u}) {
    run_ranks("connectx-ddr", n, {}, [](Context& c) {
      const int rank = c.world().rank();
      const Communicator* half = c.comm_split(c.world(), rank % 2, rank);
      ASSERT_NE(half, nullptr);
      const int hs = half->size();
      // Both halves use the same tags and the same algorithms at the same time.
      for (int round = 0; round < 3; ++round) {
        long sum = rank;
        mpi::allreduce(c, mpi::kInPlace, &sum, 1, c.datatype(BasicKind::Long), Op::Sum, *half);
        long want = 0;
        for (int i = 0; i < hs; ++i) want += half->world_rank(i);
        ASSERT_EQ(sum, want);
        int token = half->rank() == 0 ? 1000 * (rank % 2) + round : -1;
        mpi::bcast(c, &token, 1, c.datatype(BasicKind::Int), 0, *half);
        ASSERT_EQ(token, 1000 * (rank % 2) + round);
        std::vector<int> all(static_cast<std::size_t>(hs));
        mpi::allgather(c, &rank, 1, c.datatype(BasicKind::Int), all.data(), 1, c.datatype(BasicKind::Int), *half);
        for (int i = 0; i < hs; ++i) ASSERT_EQ(all[i], half->world_rank(i));
        mpi::barrier(c, *half);
      }
      // And the world still works afterwards.
      int total = 1;
      mpi::allreduce(c, mpi::kInPlace, &total, 1, c.datatype(BasicKind::Int), Op::Sum, c.world());
      EXPECT_EQ(total, c.world().size());
      c.comm_free(half);
    });
  }
}

TEST(Comm, NestedDupsAndSplitsGetDistinctContextIds) {
  run_ranks("ideal", 4, {}, [](Context& c) {
    const int rank = c.world().rank();
    // Ranks create different numbers of communicators before a common one: the
    // agreed id must still be free everywhere.
    const Communicator* pair = c.comm_split(c.world(), rank / 2, 0);
    std::vector<const Communicator*> extra;
    if (rank < 2) {
      for (int i = 0; i < 3; ++i) extra.push_back(c.comm_dup(*pair));
    }
    const Communicator* dup = c.comm_dup(c.world());
    for (const Communicator* e : extra) EXPECT_NE(e->context_id(), dup->context_id());
    EXPECT_NE(pair->context_id(), dup->context_id());
    int v = rank;
    mpi::allreduce(c, mpi::kInPlace, &v, 1, c.datatype(BasicKind::Int), Op::Max, *dup);
    EXPECT_EQ(v, 3);
    for (const Communicator*& e : extra) c.comm_free(e);
    c.comm_free(dup);
    c.comm_free(pair);
  });
}

TEST(Comm, GroupsInclTranslateAndFree) {
  run_ranks("ideal", 4, {}, [](Context& c) {
    const int rank = c.world().rank();
    mpi::GroupPtr world = c.comm_group(c.world());
    EXPECT_EQ(world->size(), 4);
    EXPECT_EQ(world->rank(), rank);
    const int pick[] = {3, 1};
    mpi::GroupPtr sub = world->incl(pick);
    EXPECT_EQ(sub->size(), 2);
    EXPECT_EQ(sub->rank(), rank == 3 ? 0 : rank == 1 ? 1 : mpi::kUndefined);
    const int ranks[] = {0, 1, 2, 3, mpi::kProcNull};
    std::vector<int> translated = mpi::Group::translate_ranks(world, ranks, sub);
    EXPECT_EQ(translated, (std::vector<int>{mpi::kUndefined, 1, mpi::kUndefined, 0, mpi::kProcNull}));
    const Communicator* split = c.comm_split(c.world(), 0, -rank);
    mpi::GroupPtr reversed = c.comm_group(*split);
    EXPECT_EQ(mpi::Group::translate_ranks(reversed, std::vector<int>{0, 3}, world), (std::vector<int>{3, 0}));
    mpi::group_free(sub);
    EXPECT_EQ(sub, nullptr);
    expect_mpi_error([&] { mpi::group_free(sub); }, ErrorClass::MPI_ERR_GROUP, "MPI_Group_free(group)");
    const int bad[] = {0, 4};
    expect_mpi_error([&] { world->incl(bad); }, ErrorClass::MPI_ERR_RANK, "MPI_Group_incl(ranks[1]=4)");
    const int twice[] = {2, 2};
    expect_mpi_error([&] { world->incl(twice); }, ErrorClass::MPI_ERR_RANK, "MPI_Group_incl(ranks[1]=2)");
    expect_mpi_error([&] { mpi::Group::translate_ranks(world, std::vector<int>{9}, reversed); },
                     ErrorClass::MPI_ERR_RANK, "MPI_Group_translate_ranks(ranks1[0]=9)");
    c.comm_free(split);
  });
}

// A freed communicator stays (so that a stale reference is MPI_ERR_COMM), but not its
// member list: a program splitting and freeing in a loop would otherwise keep 4 bytes
// per member and split. One a nonblocking collective still runs on keeps its members
// until that ends (it needs them) and drops them at a later free.
TEST(Comm, FreedCommunicatorsDropTheirMembersOnceNoCollectiveRuns) {
  run_ranks("ideal", 4, {}, [](Context& c) {
    const int rank = c.world().rank();
    const Communicator* reversed = c.comm_split(c.world(), 0, -rank);  // not the identity: a member list
    ASSERT_EQ(reversed->world_ranks().size(), 4u);
    const Communicator* stale = reversed;
    c.comm_free(reversed);
    EXPECT_TRUE(stale->freed());
    EXPECT_TRUE(stale->world_ranks().empty());
    expect_mpi_error([&] { mpi::barrier(c, *stale); }, ErrorClass::MPI_ERR_COMM, "MPI_Barrier(comm)");

    // Freed while its MPI_Ibarrier runs: the barrier completes on the member list.
    const Communicator* busy = c.comm_split(c.world(), 0, -rank);
    const Communicator* busy_stale = busy;
    mpi::RequestId barrier = mpi::barrier(c, *busy, mpi::Mode::Nonblocking);
    EXPECT_TRUE(busy->has_schedules());
    c.comm_free(busy);
    EXPECT_EQ(busy_stale->world_ranks().size(), 4u);
    c.wait(barrier);
    EXPECT_FALSE(busy_stale->has_schedules());
    const Communicator* next = c.comm_dup(c.world());
    c.comm_free(next);  // the next free drops what the ended barrier needed
    EXPECT_TRUE(busy_stale->world_ranks().empty());
    mpi::barrier(c, c.world());
  });
}

TEST(Comm, FreedAndPredefinedCommunicatorErrors) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const Communicator* dup = c.comm_dup(c.world());
    const Communicator* stale = dup;
    c.comm_free(dup);
    int v = 0;
    expect_mpi_error([&] { c.isend(&v, 1, c.datatype(BasicKind::Int), 0, 0, *stale); }, ErrorClass::MPI_ERR_COMM,
                     "MPI_Isend(comm)");
    expect_mpi_error([&] { mpi::barrier(c, *stale); }, ErrorClass::MPI_ERR_COMM, "MPI_Barrier(comm)");
    const Communicator* world = &c.world();
    expect_mpi_error([&] { c.comm_free(world); }, ErrorClass::MPI_ERR_COMM, "MPI_Comm_free(comm)");
    const Communicator* null = nullptr;
    expect_mpi_error([&] { c.comm_free(null); }, ErrorClass::MPI_ERR_COMM, "MPI_COMM_NULL");
    expect_mpi_error([&] { c.comm_split(c.world(), -5, 0); }, ErrorClass::MPI_ERR_ARG, "MPI_Comm_split(color=-5)");
    // Collectives on COMM_SELF are trivial but legal.
    int x = 3;
    mpi::allreduce(c, mpi::kInPlace, &x, 1, c.datatype(BasicKind::Int), Op::Prod, c.self());
    EXPECT_EQ(x, 3);
  });
}


TEST(Comm, GroupExclRangesAndSetOperations) {
  run_ranks("ideal", 6, {}, [](Context& c) {
    const int rank = c.world().rank();
    mpi::GroupPtr world = c.comm_group(c.world());
    auto members = [](const mpi::GroupPtr& g) {
      return std::vector<int>(g->world_ranks().begin(), g->world_ranks().end());
    };
    const int drop[] = {3, 1};
    mpi::GroupPtr evens_and_5 = world->excl(drop);
    EXPECT_EQ(members(evens_and_5), (std::vector<int>{0, 2, 4, 5}));
    EXPECT_EQ(evens_and_5->rank(), rank == 1 || rank == 3 ? mpi::kUndefined : rank == 5 ? 3 : rank / 2);
    // (0, 4, 2) then (5, 1, -4): in the triplets' order.
    const int up_down[] = {0, 4, 2, 5, 1, -4};
    mpi::GroupPtr picked = world->range_incl(up_down);
    EXPECT_EQ(members(picked), (std::vector<int>{0, 2, 4, 5, 1}));
    const int odds[] = {1, 5, 2};
    mpi::GroupPtr evens = world->range_excl(odds);
    EXPECT_EQ(members(evens), (std::vector<int>{0, 2, 4}));
    const int last_first[] = {5, 0};
    mpi::GroupPtr ends = world->incl(last_first);
    EXPECT_EQ(members(mpi::Group::set_union(*ends, *evens)), (std::vector<int>{5, 0, 2, 4}));
    EXPECT_EQ(members(mpi::Group::intersection(*evens, *ends)), (std::vector<int>{0}));
    EXPECT_EQ(members(mpi::Group::difference(*evens, *ends)), (std::vector<int>{2, 4}));
    EXPECT_EQ(mpi::Group::difference(*evens, *world)->size(), 0);
    EXPECT_EQ(mpi::Group::set_union(*evens, *ends)->rank(), rank == 0 ? 0 : rank == 2 ? 1 : rank == 4 ? 2 : rank == 5 ? 3 : mpi::kUndefined);
    EXPECT_EQ(mpi::Group::compare(*world, *c.comm_group(c.world())), mpi::Comparison::Ident);
    EXPECT_EQ(mpi::Group::compare(*picked, *world->excl(std::vector<int>{3})), mpi::Comparison::Similar);
    EXPECT_EQ(mpi::Group::compare(*evens, *ends), mpi::Comparison::Unequal);
    // Refusals name the triplet.
    const int zero_stride[] = {0, 3, 0};
    expect_mpi_error([&] { world->range_incl(zero_stride); }, ErrorClass::MPI_ERR_ARG,
                     "MPI_Group_range_incl(ranges[0][2]=0)");
    const int backwards[] = {4, 1, 1};
    expect_mpi_error([&] { world->range_excl(backwards); }, ErrorClass::MPI_ERR_ARG,
                     "MPI_Group_range_excl(ranges[0]={4, 1, 1})");
    const int outside[] = {0, 1, 1, 2, 6, 1};
    expect_mpi_error([&] { world->range_incl(outside); }, ErrorClass::MPI_ERR_RANK,
                     "MPI_Group_range_incl(ranges[1][1]=6)");
    const int overlap[] = {0, 4, 2, 3, 4, 1};
    expect_mpi_error([&] { world->range_incl(overlap); }, ErrorClass::MPI_ERR_RANK, "rank 4 named twice");
    const int twice[] = {2, 2};
    expect_mpi_error([&] { world->excl(twice); }, ErrorClass::MPI_ERR_RANK, "MPI_Group_excl(ranks[1]=2)");
  });
}

TEST(Comm, CreateKeepsTheGroupsOrderAndAcceptsDisjointGroups) {
  run_ranks("ideal", 6, {}, [](Context& c) {
    const int rank = c.world().rank();
    mpi::GroupPtr world = c.comm_group(c.world());
    const int order[] = {4, 2, 0};
    const Communicator* made = c.comm_create(c.world(), world->incl(order));
    if (rank % 2 == 1) {
      EXPECT_EQ(made, nullptr);
    } else {
      ASSERT_NE(made, nullptr);
      EXPECT_EQ(made->world_ranks(), (std::vector<int>{4, 2, 0}));
      EXPECT_EQ(made->rank(), (4 - rank) / 2);
      int sum = rank;
      mpi::allreduce(c, mpi::kInPlace, &sum, 1, c.datatype(BasicKind::Int), Op::Sum, *made);
      EXPECT_EQ(sum, 6);
      c.comm_free(made);
    }
    // MPI-2.2: disjoint groups, one per parity, in one call.
    const int evens[] = {0, 2, 4}, odds[] = {5, 3, 1};
    const Communicator* half = c.comm_create(c.world(), rank % 2 == 0 ? world->incl(evens) : world->incl(odds));
    ASSERT_NE(half, nullptr);
    EXPECT_EQ(half->world_ranks(), rank % 2 == 0 ? (std::vector<int>{0, 2, 4}) : (std::vector<int>{5, 3, 1}));
    int sum = rank;
    mpi::allreduce(c, mpi::kInPlace, &sum, 1, c.datatype(BasicKind::Int), Op::Sum, *half);
    EXPECT_EQ(sum, rank % 2 == 0 ? 6 : 9);
    // An empty group gives every rank null, and still agrees on a context id.
    EXPECT_EQ(c.comm_create(c.world(), world->incl(std::vector<int>{})), nullptr);
    // A group reaching outside the communicator is refused on every rank.
    expect_mpi_error([&] { c.comm_create(*half, world); }, ErrorClass::MPI_ERR_GROUP,
                     "MPI_Comm_create(group): member");
    mpi::GroupPtr null;
    expect_mpi_error([&] { c.comm_create(c.world(), null); }, ErrorClass::MPI_ERR_GROUP, "MPI_GROUP_NULL");
    c.comm_free(half);
    mpi::barrier(c, c.world());
  });
}

TEST(Comm, SplitTypeSharedGroupsTheRanksOfEachHost) {
  run_ranks("ideal", 6, {}, [](Context& c) {
    const int rank = c.world().rank();
    ASSERT_EQ(c.node(), std::optional<int>(rank / 3));  // 3 ranks per host
    const Communicator* host = c.comm_split_type(c.world(), mpi::kCommTypeShared, -rank);
    ASSERT_NE(host, nullptr);
    const int first = rank / 3 * 3;
    EXPECT_EQ(host->world_ranks(), (std::vector<int>{first + 2, first + 1, first}));  // by key
    EXPECT_EQ(c.comm_split_type(c.world(), mpi::kUndefined, 0), nullptr);
    // Within the host communicator, everyone is on one host.
    const Communicator* again = c.comm_split_type(*host, mpi::kCommTypeShared, 0);
    EXPECT_EQ(again->size(), 3);
    expect_mpi_error([&] { c.comm_split_type(c.world(), 7, 0); }, ErrorClass::MPI_ERR_ARG,
                     "MPI_Comm_split_type(split_type=7)");
    c.comm_free(again);
    c.comm_free(host);
  }, 3);
  run_ranks("ideal", 2, {}, [](Context& c) {  // one rank per host: nobody shares
    const Communicator* host = c.comm_split_type(c.world(), mpi::kCommTypeShared, 0);
    EXPECT_EQ(host->size(), 1);
    c.comm_free(host);
  }, 1);
}

TEST(Comm, CartesianGridsCreateSubAndDup) {
  run_ranks("ideal", 7, {}, [](Context& c) {
    const int rank = c.world().rank();
    const Communicator* grid = c.cart_create(c.world(), mpi::CartTopology({2, 3}, {true, false}, "test"));
    if (rank == 6) {
      EXPECT_EQ(grid, nullptr);  // outside the 2 x 3 grid
    } else {
      ASSERT_NE(grid, nullptr);
      ASSERT_NE(grid->cart(), nullptr);
      EXPECT_EQ(grid->rank(), rank);
      EXPECT_EQ(grid->cart()->dims(), (std::vector<int>{2, 3}));
      const Communicator* dup = c.comm_dup(*grid);
      ASSERT_NE(dup->cart(), nullptr);
      EXPECT_EQ(dup->cart()->dims(), (std::vector<int>{2, 3}));
      EXPECT_EQ(c.comm_split(*grid, 0, 0)->cart(), nullptr);
      // Rows (keep dimension 1) and columns (keep dimension 0).
      const Communicator* row = c.cart_sub(*grid, {false, true});
      EXPECT_EQ(row->size(), 3);
      EXPECT_EQ(row->rank(), rank % 3);
      EXPECT_EQ(row->world_rank(0), rank / 3 * 3);
      EXPECT_EQ(row->cart()->dims(), (std::vector<int>{3}));
      EXPECT_EQ(row->cart()->periods(), (std::vector<bool>{false}));
      const Communicator* column = c.cart_sub(*grid, {true, false});
      EXPECT_EQ(column->world_ranks(), (std::vector<int>{rank % 3, rank % 3 + 3}));
      EXPECT_EQ(column->cart()->periods(), (std::vector<bool>{true}));
      const Communicator* point = c.cart_sub(*grid, {false, false});
      EXPECT_EQ(point->size(), 1);
      EXPECT_EQ(point->cart()->ndims(), 0);
      int sum = rank;
      mpi::allreduce(c, mpi::kInPlace, &sum, 1, c.datatype(BasicKind::Int), Op::Sum, *row);
      EXPECT_EQ(sum, rank < 3 ? 3 : 12);
      expect_mpi_error([&] { c.cart_create(*grid, mpi::CartTopology({7}, {false}, "MPI_Cart_create")); },
                       ErrorClass::MPI_ERR_DIMS, "the grid has 7 processes, the communicator only 6");
    }
    expect_mpi_error([&] { c.cart_sub(c.world(), {}); }, ErrorClass::MPI_ERR_TOPOLOGY, "MPI_Cart_sub(comm)");
    mpi::barrier(c, c.world());
  });
}

}  // namespace
}  // namespace twinfab::mpitest
