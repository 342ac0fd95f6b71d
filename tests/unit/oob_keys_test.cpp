// OobKeys (fabric/oob_keys.hpp): parts of one rank that publish blobs under keys of
// their own do not overwrite each other, each reads its peers' part under its key, a
// key a rank never published reads empty, a truncated blob is an error, and a view
// starts the shared exchange's barrier (or none, as it).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "fabric/error.hpp"
#include "fabric/oob_keys.hpp"

namespace twinfab {
namespace {

/// Two ranks' exchange in one process: put() is visible after fence(), as PMIx's.
struct Store {
  std::map<int, std::vector<std::byte>> pending, visible;
};

class FakeOob final : public fabric::OobExchange {
 public:
  FakeOob(Store& store, int rank) : store_(store), rank_(rank) {}
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return 2; }
  void put(std::span<const std::byte> blob) override { store_.pending[rank_].assign(blob.begin(), blob.end()); }
  void fence() override { store_.visible = store_.pending; }
  std::vector<std::byte> get(int rank) const override {
    auto it = store_.visible.find(rank);
    return it == store_.visible.end() ? std::vector<std::byte>{} : it->second;
  }
  std::optional<int> node() const noexcept override { return std::nullopt; }
  std::unique_ptr<fabric::PendingBarrier> start_barrier() override {
    struct Done final : fabric::PendingBarrier {
      bool done() const override { return true; }
    };
    ++barriers_started;
    return std::make_unique<Done>();
  }
  int barriers_started = 0;

 private:
  Store& store_;
  int rank_;
};

/// An exchange that offers no started barrier (the contract's default).
class BlockingOnlyOob final : public fabric::OobExchange {
 public:
  int rank() const noexcept override { return 0; }
  int size() const noexcept override { return 1; }
  void put(std::span<const std::byte>) override {}
  void fence() override {}
  std::vector<std::byte> get(int) const override { return {}; }
  std::optional<int> node() const noexcept override { return std::nullopt; }
};

std::vector<std::byte> bytes(const std::string& s) {
  std::vector<std::byte> b;
  for (char c : s) b.push_back(static_cast<std::byte>(c));
  return b;
}

TEST(OobKeys, EachKeyKeepsItsOwnPart) {
  Store store;
  FakeOob oob0(store, 0), oob1(store, 1);
  fabric::OobKeys keys0(oob0), keys1(oob1);
  // As the hybrid channel: key 0 publishes and fences, then key 1 does.
  keys0.view(0).put(bytes("ud-address-of-0"));
  keys1.view(0).put(bytes("ud-address-of-1"));
  keys0.view(0).fence();
  keys1.view(0).fence();
  EXPECT_EQ(keys0.view(0).get(1), bytes("ud-address-of-1"));
  EXPECT_TRUE(keys0.view(1).get(1).empty()) << "key 1 was not published yet";
  keys0.view(1).put(bytes("rc-0"));
  keys1.view(1).put(bytes(""));
  keys0.view(1).fence();
  keys1.view(1).fence();
  EXPECT_EQ(keys1.view(0).get(0), bytes("ud-address-of-0")) << "key 1's put replaced key 0's part";
  EXPECT_EQ(keys1.view(1).get(0), bytes("rc-0"));
  EXPECT_TRUE(keys0.view(1).get(1).empty());
  EXPECT_EQ(keys0.view(1).rank(), 0);
  EXPECT_EQ(keys0.view(1).size(), 2);
}

// A channel behind a key view (the hybrid's UD and RC) ends by a started barrier when
// the shared exchange has one, and falls back to its agent when it has none.
TEST(OobKeys, AViewStartsTheSharedExchangesBarrierOrNone) {
  Store store;
  FakeOob oob0(store, 0);
  fabric::OobKeys keys(oob0);
  std::unique_ptr<fabric::PendingBarrier> b = keys.view(1).start_barrier();
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->done());
  EXPECT_EQ(oob0.barriers_started, 1);
  BlockingOnlyOob blocking;
  fabric::OobKeys blocking_keys(blocking);
  EXPECT_EQ(blocking_keys.view(0).start_barrier(), nullptr);
}

TEST(OobKeys, ATruncatedBlobIsAnError) {
  Store store;
  FakeOob oob0(store, 0);
  fabric::OobKeys keys(oob0);
  store.visible[1] = {std::byte{100}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{'x'}};  // claims 100 bytes
  EXPECT_THROW(keys.view(0).get(1), fabric::Error);
}

}  // namespace
}  // namespace twinfab
