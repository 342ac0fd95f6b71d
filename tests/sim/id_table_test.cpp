// The simulated HCA's table of QPs and memory regions by number: lookups of live,
// removed and never-added ids, in the scanned (small) and the binary-searched (large)
// layouts, and compaction keeping every live entry.
#include <gtest/gtest.h>

#include <vector>

#include "backends/sim/id_table.hpp"

namespace twinfab::sim {
namespace {

TEST(IdTable, FindsLiveIdsAndNothingForRemovedOrUnknownOnes) {
  std::vector<int> objects(4);
  IdTable<int> table;
  for (uint32_t i = 0; i < 4; ++i) table.add(0x100 + i, &objects[i]);
  EXPECT_EQ(table.find(0x102), &objects[2]);
  EXPECT_EQ(table.find(0x99), nullptr);
  EXPECT_EQ(table.find(0x104), nullptr);
  table.remove(0x102);
  table.remove(0x102);  // twice: nothing
  table.remove(0x777);  // never added: nothing
  EXPECT_EQ(table.find(0x102), nullptr);
  EXPECT_EQ(table.find(0x103), &objects[3]);
  EXPECT_EQ(table.size(), 3u);
}

TEST(IdTable, ManyEntriesWithChurnKeepEveryLiveOneAndStayCompact) {
  // Registrations come and go (as a registration cache's do) while a few live on: the
  // table must find every live one across compactions, and only those.
  std::vector<int> objects(5000);
  IdTable<int> table;
  std::vector<bool> live(objects.size(), false);
  uint32_t next = 0x1000;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    table.add(next + static_cast<uint32_t>(i), &objects[i]);
    live[i] = true;
    // Keep every 97th; remove the others two steps later.
    if (i >= 2 && (i - 2) % 97 != 0) {
      table.remove(next + static_cast<uint32_t>(i - 2));
      live[i - 2] = false;
    }
  }
  std::size_t expected = 0;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    EXPECT_EQ(table.find(next + static_cast<uint32_t>(i)), live[i] ? &objects[i] : nullptr) << i;
    expected += live[i];
  }
  EXPECT_EQ(table.size(), expected);
  EXPECT_EQ(table.find(next + 5000), nullptr);
}

}  // namespace
}  // namespace twinfab::sim
