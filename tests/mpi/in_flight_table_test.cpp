// The RMA engine's table of RDMA operations in flight (mpi/rma/in_flight_table.hpp):
// cookies name one operation each, and a completed cookie names nothing even once its
// slot holds the next operation.
#include "mpi/rma/in_flight_table.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace twinfab::mpi::rma {
namespace {

struct Entry {
  int value = 0;
  std::shared_ptr<std::string> kept;  // what an operation keeps alive
};

TEST(InFlightTable, ACookieFindsItsEntryUntilTaken) {
  InFlightTable<Entry> table;
  const std::uint32_t a = table.insert(Entry{1, nullptr});
  const std::uint32_t b = table.insert(Entry{2, nullptr});
  EXPECT_NE(a, b);
  EXPECT_NE(a & kForeignCookieBit, 0u);
  EXPECT_NE(b & kForeignCookieBit, 0u);
  ASSERT_NE(table.find(a), nullptr);
  EXPECT_EQ(table.find(a)->value, 1);
  EXPECT_EQ(table.find(b)->value, 2);
  EXPECT_EQ(table.size(), 2u);
  Entry out;
  ASSERT_TRUE(table.take(a, out));
  EXPECT_EQ(out.value, 1);
  EXPECT_FALSE(table.contains(a));
  EXPECT_EQ(table.find(a), nullptr);
  EXPECT_FALSE(table.take(a, out)) << "a completion handed back twice";
  EXPECT_TRUE(table.contains(b));
  EXPECT_EQ(table.size(), 1u);
}

TEST(InFlightTable, AReusedSlotGetsANewCookie) {
  InFlightTable<Entry> table;
  const std::uint32_t first = table.insert(Entry{1, nullptr});
  Entry out;
  ASSERT_TRUE(table.take(first, out));
  const std::uint32_t second = table.insert(Entry{2, nullptr});
  EXPECT_EQ(second & InFlightTable<Entry>::kSlotMask, first & InFlightTable<Entry>::kSlotMask) << "the slot is reused";
  EXPECT_NE(second, first);
  EXPECT_FALSE(table.contains(first)) << "a waiter for the first operation would wait for the second";
  EXPECT_EQ(table.find(second)->value, 2);
}

TEST(InFlightTable, CookiesItNeverGaveNameNothing) {
  InFlightTable<Entry> table;
  const std::uint32_t cookie = table.insert(Entry{1, nullptr});
  EXPECT_EQ(table.find(cookie & ~kForeignCookieBit), nullptr) << "a cookie of the pt2pt engine";
  EXPECT_EQ(table.find(cookie + 1), nullptr) << "a slot never used";
  EXPECT_EQ(table.find(kForeignCookieBit | (5u << InFlightTable<Entry>::kSlotBits)), nullptr) << "another generation";
  EXPECT_TRUE(table.contains(cookie));
}

TEST(InFlightTable, TakingHandsOverWhatTheEntryKeptAlive) {
  InFlightTable<Entry> table;
  auto kept = std::make_shared<std::string>("staging");
  const std::uint32_t cookie = table.insert(Entry{1, kept});
  EXPECT_EQ(kept.use_count(), 2);
  {
    Entry out;
    ASSERT_TRUE(table.take(cookie, out));
    EXPECT_EQ(kept.use_count(), 2) << "moved, not copied";
  }
  EXPECT_EQ(kept.use_count(), 1) << "the table keeps nothing of a completed operation";
}

TEST(InFlightTable, ManyInFlightAtOnceKeepTheirOwnEntries) {
  InFlightTable<Entry> table;
  std::vector<std::uint32_t> cookies;
  for (int i = 0; i < 1000; ++i) cookies.push_back(table.insert(Entry{i, nullptr}));
  Entry out;
  for (int i = 0; i < 1000; i += 2) ASSERT_TRUE(table.take(cookies[static_cast<std::size_t>(i)], out));
  for (int i = 0; i < 500; ++i) cookies.push_back(table.insert(Entry{1000 + i, nullptr}));
  EXPECT_EQ(table.size(), 1000u);
  for (std::size_t i = 1; i < cookies.size(); i += (i < 1000 ? 2 : 1))
    EXPECT_EQ(table.find(cookies[i])->value, static_cast<int>(i)) << i;
}

}  // namespace
}  // namespace twinfab::mpi::rma
