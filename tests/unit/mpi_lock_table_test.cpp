// Unit tests of mpi/rma/lock_table.hpp, the reader-writer lock of the thread-based lock
// designs' agents: shared holders together, exclusive alone, first come first served
// (a shared request behind a waiting exclusive one waits), a release granting the run
// of requests it freed, an origin that is lost, and misuse.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "mpi/rma/lock_table.hpp"

namespace twinfab::mpi::rma {
namespace {

using Grants = std::vector<LockTable::Grant>;

std::vector<int> origins(const Grants& g) {
  std::vector<int> out;
  for (const auto& x : g) out.push_back(x.origin);
  return out;
}

TEST(LockTable, SharedHoldersTogetherExclusiveAlone) {
  LockTable t;
  Grants g;
  t.request(1, LockType::Shared, 10, g);
  t.request(2, LockType::Shared, 20, g);
  EXPECT_EQ(origins(g), (std::vector<int>{1, 2}));
  EXPECT_EQ(g[1].sequence, 20u);
  g.clear();
  t.request(3, LockType::Exclusive, 30, g);
  EXPECT_TRUE(g.empty());
  t.release(1, g);
  EXPECT_TRUE(g.empty());
  t.release(2, g);
  EXPECT_EQ(origins(g), (std::vector<int>{3}));
  EXPECT_TRUE(t.holds(3));
}

TEST(LockTable, FirstComeFirstServed) {
  LockTable t;
  Grants g;
  t.request(0, LockType::Exclusive, 1, g);
  t.request(1, LockType::Shared, 1, g);
  t.request(2, LockType::Exclusive, 1, g);
  t.request(3, LockType::Shared, 1, g);
  t.request(4, LockType::Shared, 1, g);
  EXPECT_EQ(origins(g), (std::vector<int>{0}));
  g.clear();
  t.release(0, g);
  EXPECT_EQ(origins(g), (std::vector<int>{1}));  // 3 and 4 wait behind the exclusive 2
  g.clear();
  t.release(1, g);
  EXPECT_EQ(origins(g), (std::vector<int>{2}));
  g.clear();
  t.release(2, g);
  EXPECT_EQ(origins(g), (std::vector<int>{3, 4}));
  EXPECT_EQ(t.waiting(), 0u);
}

TEST(LockTable, ForgetFreesWhatALostOriginHeldOrWaitedFor) {
  LockTable t;
  Grants g;
  t.request(0, LockType::Exclusive, 1, g);
  t.request(1, LockType::Exclusive, 1, g);
  t.request(2, LockType::Exclusive, 1, g);
  g.clear();
  t.forget(1, g);  // waiting: just gone
  EXPECT_TRUE(g.empty());
  t.forget(0, g);  // holding: the next one gets it
  EXPECT_EQ(origins(g), (std::vector<int>{2}));
}

TEST(LockTable, Misuse) {
  LockTable t;
  Grants g;
  EXPECT_THROW(t.release(0, g), std::logic_error);
  t.request(0, LockType::Shared, 1, g);
  EXPECT_THROW(t.request(0, LockType::Exclusive, 2, g), std::logic_error);
}

}  // namespace
}  // namespace twinfab::mpi::rma
