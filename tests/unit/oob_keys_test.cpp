// OobKeys (fabric/oob_keys.hpp): parts of one rank that publish blobs under keys of
// their own do not overwrite each other, each reads its peers' part under its key, a
// key a rank never published reads empty, and a truncated blob is an error.
#include <gtest/gtest.h>

#include <map>
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

 private:
  Store& store_;
  int rank_;
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

TEST(OobKeys, ATruncatedBlobIsAnError) {
  Store store;
  FakeOob oob0(store, 0);
  fabric::OobKeys keys(oob0);
  store.visible[1] = {std::byte{100}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{'x'}};  // claims 100 bytes
  EXPECT_THROW(keys.view(0).get(1), fabric::Error);
}

}  // namespace
}  // namespace twinfab
