// Matched probe and receive (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv) through
// the engine: every protocol and rendezvous variant, order, the message staying out
// of the matching, the rendezvous waiting for the receive's buffer, errors.
#include <gtest/gtest.h>

#include <vector>

#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::ErrorClass;
using mpi::kAnySource;
using mpi::kAnyTag;
using mpi::MessageId;
using mpi::MessageStatus;
using mpi::RendezvousVariant;
using mpi::RequestId;

// Tiny, short (several packets), rendezvous.
const std::vector<std::size_t> kSizes{8, 20000, 1 << 20};

class MatchedProbe : public ::testing::TestWithParam<RendezvousVariant> {};

// Two messages with the same envelope: the matched probe takes the first sent; a
// probe and a receive posted afterwards see only the second; the matched receive
// then gets the first.
TEST_P(MatchedProbe, TakesTheFirstMessageOutOfTheMatching) {
  mpi::Config config;
  config.rendezvous = GetParam();
  run_ranks("ideal", 2, config, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    for (std::size_t i = 0; i < kSizes.size(); ++i) {
      const std::size_t n = kSizes[i];
      const auto bytes = static_cast<std::int64_t>(n);
      const int tag = 3 + static_cast<int>(i);  // the next size's messages may be here already
      const auto first = pattern(n, 1), second = pattern(n, 2);
      if (world.rank() == 0) {
        std::vector<RequestId> sends{c.isend(first.data(), bytes, type, 1, tag, world),
                                     c.isend(second.data(), bytes, type, 1, tag, world)};
        c.waitall(sends);
        continue;
      }
      MessageStatus s;
      const MessageId message = c.mprobe(kAnySource, kAnyTag, world, &s);
      EXPECT_GT(message, mpi::kMessageNoProc);
      EXPECT_EQ(s.source, 0);
      EXPECT_EQ(s.tag, tag);
      EXPECT_EQ(s.count_bytes, bytes);
      const auto registrations = c.pt2pt_counters().registrations;
      // The second message is the one left for everybody else.
      s = c.probe(0, tag, world);
      EXPECT_EQ(s.count_bytes, bytes);
      std::vector<std::byte> in(n);
      s = c.recv(in.data(), bytes, type, kAnySource, tag, world);
      EXPECT_EQ(in, second) << n;
      EXPECT_FALSE(c.iprobe(kAnySource, tag, world)) << n;
      MessageId taken = message;
      RequestId r = c.imrecv(in.data(), bytes, type, taken);
      EXPECT_EQ(taken, mpi::kMessageNull);
      s = c.wait(r);
      EXPECT_EQ(s.error, ErrorClass::MPI_SUCCESS);
      EXPECT_EQ(s.source, 0);
      EXPECT_EQ(s.tag, tag);
      EXPECT_EQ(s.count_bytes, bytes);
      EXPECT_EQ(in, first) << n;
      // Only the rendezvous registers the receive buffer: once for each message,
      // the matched one only at imrecv.
      if (n == kSizes.back()) {
        EXPECT_EQ(c.pt2pt_counters().registrations, registrations + 2);
      }
    }
    EXPECT_EQ(c.live_requests(), 0u);
  });
}

// The sender of a matched but not yet received message is not released: a rendezvous
// moves no data and a synchronous send gets no acknowledgement before the receive.
TEST_P(MatchedProbe, SenderWaitsForTheMatchedReceive) {
  mpi::Config config;
  config.rendezvous = GetParam();
  run_ranks("ideal", 2, config, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    for (std::size_t n : {std::size_t{8}, std::size_t{1} << 20}) {
      const auto bytes = static_cast<std::int64_t>(n);
      const auto data = pattern(n, 7);
      int token = 0;
      if (world.rank() == 0) {
        RequestId send = c.isend(data.data(), bytes, type, 1, 5, world, mpi::SendMode::Synchronous);
        c.recv(&token, 1, c.datatype(BasicKind::Int), 1, 6, world);  // rank 1 has probed
        for (int i = 0; i < 100; ++i) {
          EXPECT_FALSE(c.test(send)) << n;
          c.progress_or_wait(c.runtime().now() + 1e-6);
        }
        c.send(&token, 1, c.datatype(BasicKind::Int), 1, 7, world);
        c.wait(send);
        continue;
      }
      MessageId message = c.mprobe(0, 5, world);
      c.send(&token, 1, c.datatype(BasicKind::Int), 0, 6, world);
      c.recv(&token, 1, c.datatype(BasicKind::Int), 0, 7, world);
      std::vector<std::byte> in(n);
      RequestId r = c.imrecv(in.data(), bytes, type, message);
      EXPECT_EQ(c.wait(r).count_bytes, bytes);
      EXPECT_EQ(in, data);
    }
  });
}

TEST_P(MatchedProbe, TruncationIsReportedAsForAReceive) {
  mpi::Config config;
  config.rendezvous = GetParam();
  run_ranks("ideal", 2, config, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    for (std::size_t n : kSizes) {
      const auto data = pattern(n, 9);
      if (world.rank() == 0) {
        c.send(data.data(), static_cast<std::int64_t>(n), type, 1, 1, world);
        continue;
      }
      MessageId message = c.mprobe(0, 1, world);
      std::vector<std::byte> in(n / 2);
      RequestId r = c.imrecv(in.data(), static_cast<std::int64_t>(in.size()), type, message);
      MessageStatus s = c.wait(r);
      EXPECT_EQ(s.error, ErrorClass::MPI_ERR_TRUNCATE) << n;
      EXPECT_EQ(s.count_bytes, static_cast<std::int64_t>(in.size())) << n;
      EXPECT_TRUE(std::equal(in.begin(), in.end(), data.begin())) << n;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Variants, MatchedProbe,
                         ::testing::Values(RendezvousVariant::WriteImm, RendezvousVariant::Read,
                                           RendezvousVariant::WriteFin),
                         [](const ::testing::TestParamInfo<RendezvousVariant>& info) {
                           std::string name(mpi::to_string(info.param));
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(MatchedProbeBasics, DerivedDatatypeAndMessageToSelf) {
  run_ranks("ideal", 1, {}, [](Context& c) {
    const auto& dbl = c.datatype(BasicKind::Double);
    constexpr std::int64_t kCount = 200000;  // a rendezvous-sized message, to itself
    auto column = mpi::Datatype::vector(kCount, 1, 2, dbl);
    column->commit();
    std::vector<double> flat(kCount);
    for (std::int64_t i = 0; i < kCount; ++i) flat[static_cast<std::size_t>(i)] = static_cast<double>(i);
    c.send(flat.data(), kCount, dbl, 0, 4, c.world());
    MessageStatus s;
    MessageId message = c.mprobe(0, 4, c.world(), &s);
    EXPECT_EQ(s.count_bytes, kCount * 8);
    std::vector<double> matrix(kCount * 2, -1.0);
    RequestId r = c.imrecv(matrix.data(), 1, column, message);
    c.wait(r);
    for (std::int64_t i = 0; i < kCount * 2; ++i)
      ASSERT_EQ(matrix[static_cast<std::size_t>(i)], i % 2 == 0 ? static_cast<double>(i / 2) : -1.0) << i;
  });
}

TEST(MatchedProbeBasics, NothingThereAndProcNull) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& world = c.world();
    EXPECT_FALSE(c.improbe(kAnySource, kAnyTag, world));
    MessageStatus s;
    std::optional<MessageId> none = c.improbe(mpi::kProcNull, 3, world, &s);
    ASSERT_TRUE(none);
    EXPECT_EQ(*none, mpi::kMessageNoProc);
    EXPECT_EQ(s.source, mpi::kProcNull);
    EXPECT_EQ(s.tag, kAnyTag);
    EXPECT_EQ(c.mprobe(mpi::kProcNull, kAnyTag, world), mpi::kMessageNoProc);
    int v = 5;
    MessageId message = *none;
    RequestId r = c.imrecv(&v, 1, c.datatype(BasicKind::Int), message);
    EXPECT_EQ(message, mpi::kMessageNull);
    s = c.wait(r);
    EXPECT_EQ(s.source, mpi::kProcNull);
    EXPECT_EQ(s.tag, kAnyTag);
    EXPECT_EQ(s.count_bytes, 0);
    EXPECT_EQ(v, 5);
  });
}

TEST(MatchedProbeBasics, RefusedCallsChangeNothing) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    int v = 0;
    if (world.rank() == 0) {
      v = 11;
      c.send(&v, 1, type, 1, 2, world);
      return;
    }
    expect_error([&] { c.mprobe(2, 0, world); }, ErrorClass::MPI_ERR_RANK, "MPI_Mprobe(source=2)");
    expect_error([&] { c.improbe(0, -4, world); }, ErrorClass::MPI_ERR_TAG, "MPI_Improbe(tag=-4)");
    MessageId null = mpi::kMessageNull;
    expect_error([&] { c.imrecv(&v, 1, type, null); }, ErrorClass::MPI_ERR_REQUEST, "MPI_Imrecv(message)");
    MessageId message = c.mprobe(0, 2, world);
    const MessageId copy = message;
    // A bad buffer is refused before the message is taken: it stays receivable.
    expect_error([&] { c.imrecv(nullptr, 1, type, message); }, ErrorClass::MPI_ERR_BUFFER, "MPI_Imrecv(buf)");
    expect_error([&] { c.imrecv(&v, -1, type, message); }, ErrorClass::MPI_ERR_COUNT, "MPI_Imrecv");
    EXPECT_EQ(message, copy);
    EXPECT_FALSE(c.iprobe(0, 2, world));  // still out of the matching
    RequestId r = c.imrecv(&v, 1, type, message);
    c.wait(r);
    EXPECT_EQ(v, 11);
    MessageId stale = copy;  // received already
    expect_error([&] { c.imrecv(&v, 1, type, stale); }, ErrorClass::MPI_ERR_REQUEST, "already received");
    EXPECT_EQ(stale, copy);
    EXPECT_EQ(c.live_requests(), 0u);
  });
}

}  // namespace
}  // namespace twinfab::mpitest
