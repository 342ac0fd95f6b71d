// Conformance: 8-byte remote atomics on RC: compare-and-swap (success and failure) and
// fetch-and-add. Both return the old value into the local SGE; memory changes only
// when it should.
#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

class Atomics : public ConformanceTest {};

constexpr size_t kTarget = 8;  // word offset of the atomic target, neighbours at 0 and 16
constexpr uint64_t kNeighbour = 0x0102030405060708ull;

struct AtomicSetup {
  std::unique_ptr<ConnectedPair> pair;
  std::unique_ptr<RegisteredBuffer> local;
  std::unique_ptr<RegisteredBuffer> remote;
};

/// A connected RC pair, 64 local bytes (all 0xff) and 24 remote bytes: neighbour,
/// `initial`, neighbour. Empty pair after a gtest failure.
AtomicSetup setup(Device& a, Device& b, uint64_t initial) {
  AtomicSetup s;
  s.pair = make_connected_pair(a, b, Transport::RC);
  if (!s.pair) return s;
  s.local = std::make_unique<RegisteredBuffer>(a, 64);
  s.remote = std::make_unique<RegisteredBuffer>(b, 24);
  s.local->fill(0xff);
  s.remote->set_word(0, kNeighbour);
  s.remote->set_word(kTarget, initial);
  s.remote->set_word(16, kNeighbour);
  return s;
}

void check_neighbours(const RegisteredBuffer& remote) {
  EXPECT_EQ(remote.word(0), kNeighbour) << "the atomic wrote before its target word";
  EXPECT_EQ(remote.word(16), kNeighbour) << "the atomic wrote after its target word";
}

SendWr compare_swap(RegisteredBuffer& remote, const Sge& result, uint64_t compare, uint64_t swap, uint64_t wr_id) {
  return SendWr{.wr_id = wr_id, .opcode = Opcode::AtomicCompareSwap, .sg_list = std::span(&result, 1),
                .remote_addr = remote.remote_addr(kTarget), .rkey = remote.rkey(), .compare_add = compare, .swap = swap};
}

#define TWINFAB_REQUIRE_ATOMICS(device)                                 \
  do {                                                                  \
    if (!(device).capabilities().rc) GTEST_SKIP() << lacks("RC");       \
    if (!(device).capabilities().atomics) GTEST_SKIP() << lacks("8-byte remote atomics"); \
  } while (0)

TEST_P(Atomics, CompareSwapSucceedsWhenEqual) {
  run_on_backend([&](Device& a, Device& b) {
    TWINFAB_REQUIRE_ATOMICS(a);
    AtomicSetup s = setup(a, b, 0x1111);
    ASSERT_TRUE(s.pair);
    const Sge result = s.local->sge(0, 8);
    ASSERT_TRUE(posted(*s.pair->a.qp, compare_swap(*s.remote, result, 0x1111, 0x2222, 1)));
    auto wc = poll_n(a, *s.pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_EQ(wc[0].opcode, WcOpcode::CompareSwap);
    EXPECT_EQ(wc[0].wr_id, 1u);
    EXPECT_EQ(s.local->word(0), 0x1111u) << "CAS must return the old value";
    EXPECT_EQ(s.remote->word(kTarget), 0x2222u) << "CAS with an equal compare value must swap";
    EXPECT_EQ(s.local->word(8), ~uint64_t{0}) << "CAS wrote past its 8-byte result";
    check_neighbours(*s.remote);
  });
}

TEST_P(Atomics, CompareSwapFailsWhenDifferentAndStillReturnsTheOldValue) {
  run_on_backend([&](Device& a, Device& b) {
    TWINFAB_REQUIRE_ATOMICS(a);
    AtomicSetup s = setup(a, b, 0x1111);
    ASSERT_TRUE(s.pair);
    const Sge result = s.local->sge(0, 8);
    ASSERT_TRUE(posted(*s.pair->a.qp, compare_swap(*s.remote, result, 0x3333, 0x2222, 2)));
    auto wc = poll_n(a, *s.pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]) << " (a failed compare is not an error)";
    EXPECT_EQ(wc[0].opcode, WcOpcode::CompareSwap);
    EXPECT_EQ(s.local->word(0), 0x1111u) << "CAS must return the old value";
    EXPECT_EQ(s.remote->word(kTarget), 0x1111u) << "CAS with a different compare value must not swap";
    check_neighbours(*s.remote);
  });
}

TEST_P(Atomics, FetchAddReturnsTheOldValueAndAddsInOrder) {
  run_on_backend([&](Device& a, Device& b) {
    TWINFAB_REQUIRE_ATOMICS(a);
    AtomicSetup s = setup(a, b, 40);
    ASSERT_TRUE(s.pair);
    constexpr int kOps = 4;
    std::vector<Sge> results;
    for (int i = 0; i < kOps; ++i) results.push_back(s.local->sge(8 * i, 8));
    for (int i = 0; i < kOps; ++i) {
      ASSERT_TRUE(posted(*s.pair->a.qp,
                         SendWr{.wr_id = 10u + i, .opcode = Opcode::AtomicFetchAdd, .sg_list = std::span(&results[i], 1),
                                .remote_addr = s.remote->remote_addr(kTarget), .rkey = s.remote->rkey(), .compare_add = 2}));
    }
    auto wc = poll_n(a, *s.pair->a.send_cq, kOps);
    ASSERT_EQ(wc.size(), size_t{kOps});
    for (int i = 0; i < kOps; ++i) {
      EXPECT_EQ(wc[i].status, WcStatus::Success) << describe(wc[i]);
      EXPECT_EQ(wc[i].opcode, WcOpcode::FetchAdd);
      EXPECT_EQ(wc[i].wr_id, 10u + i);
      EXPECT_EQ(s.local->word(8 * i), 40u + 2 * i) << "FAA " << i << " must return the value before it (RC order)";
    }
    EXPECT_EQ(s.remote->word(kTarget), 40u + 2 * kOps);
    check_neighbours(*s.remote);
  });
}

TEST_P(Atomics, FetchAddWrapsAround) {
  run_on_backend([&](Device& a, Device& b) {
    TWINFAB_REQUIRE_ATOMICS(a);
    AtomicSetup s = setup(a, b, ~uint64_t{0});
    ASSERT_TRUE(s.pair);
    const Sge result = s.local->sge(0, 8);
    ASSERT_TRUE(posted(*s.pair->a.qp, SendWr{.wr_id = 1, .opcode = Opcode::AtomicFetchAdd, .sg_list = std::span(&result, 1),
                                             .remote_addr = s.remote->remote_addr(kTarget), .rkey = s.remote->rkey(),
                                             .compare_add = 3}));
    auto wc = poll_n(a, *s.pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_EQ(s.local->word(0), ~uint64_t{0});
    EXPECT_EQ(s.remote->word(kTarget), 2u) << "FAA is modulo 2^64";
    check_neighbours(*s.remote);
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(Atomics);

}  // namespace twinfab::testing
