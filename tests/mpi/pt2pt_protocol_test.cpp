// Every protocol and every rendezvous variant, 0 B to 16 MiB, contiguous and derived
// datatypes, on the presets that have (ideal, connectx-ddr) and lack
// (chelsio-t3-iwarp) RDMA write with immediate.
#include <gtest/gtest.h>

#include <vector>

#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::MessageStatus;
using mpi::RendezvousVariant;
using mpi::RequestId;

struct ProtocolCase {
  std::string platform;
  RendezvousVariant variant;
  std::uint64_t eager_threshold;
};

std::string case_name(const ::testing::TestParamInfo<ProtocolCase>& info) {
  std::string name = info.param.platform + "_" + std::string(mpi::to_string(info.param.variant)) + "_eager" +
                     std::to_string(info.param.eager_threshold);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

class Protocols : public ::testing::TestWithParam<ProtocolCase> {};

// Sizes around every boundary: empty, one byte, what fits a receive head slot and a
// small send buffer (64 bytes after the header) and one more, a packet's payload, the
// eager threshold, and large rendezvous transfers up to 16 MiB.
std::vector<std::size_t> sizes_for(std::uint64_t eager, std::size_t payload) {
  std::vector<std::size_t> sizes{0, 1, 7, 64, 65, payload - 1, payload, payload + 1, 3 * payload + 5};
  if (eager > 0) {
    sizes.push_back(eager);
  }
  sizes.push_back(eager + 1);
  sizes.push_back(100000);
  sizes.push_back(1 << 20);
  sizes.push_back(16 << 20);
  return sizes;
}

TEST_P(Protocols, EverySizeArrivesIntact) {
  const ProtocolCase param = GetParam();
  mpi::Config config;
  config.rendezvous = param.variant;
  config.eager_threshold = param.eager_threshold;
  run_ranks(param.platform, 2, config, [&](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    const std::size_t payload = 8192 - mpi::kPacketHeaderBytes;
    const auto sizes = sizes_for(param.eager_threshold, payload);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::size_t n = sizes[i];
      const auto data = pattern(n, static_cast<unsigned>(i));
      if (world.rank() == 0) {
        c.send(data.data(), static_cast<std::int64_t>(n), type, 1, static_cast<int>(i), world);
        // Then the reverse direction with the receive posted late (unexpected path).
        std::vector<std::byte> in(n);
        MessageStatus s = c.recv(in.data(), static_cast<std::int64_t>(n), type, 1, static_cast<int>(i), world);
        EXPECT_EQ(s.count_bytes, static_cast<std::int64_t>(n));
        EXPECT_TRUE(in == data) << "size " << n << " (reverse)";
      } else {
        std::vector<std::byte> in(n);
        RequestId r = c.irecv(in.data(), static_cast<std::int64_t>(n), type, 0, static_cast<int>(i), world);
        MessageStatus s = c.wait(r);
        EXPECT_EQ(s.count_bytes, static_cast<std::int64_t>(n));
        EXPECT_EQ(s.error, mpi::ErrorClass::MPI_SUCCESS);
        EXPECT_TRUE(in == data) << "size " << n;
        c.send(data.data(), static_cast<std::int64_t>(n), type, 0, static_cast<int>(i), world);
      }
    }
    const auto& counters = c.pt2pt_counters();
    EXPECT_GT(counters.tiny, 0u);
    if (param.eager_threshold > payload) {
      EXPECT_GT(counters.short_eager, 0u);
    }
    const std::uint64_t rendezvous =
        counters.rendezvous_write_imm + counters.rendezvous_read + counters.rendezvous_write_fin;
    EXPECT_GT(rendezvous, 0u);
    switch (param.variant) {
      case RendezvousVariant::Read: EXPECT_EQ(counters.rendezvous_read, rendezvous); break;
      case RendezvousVariant::WriteFin: EXPECT_EQ(counters.rendezvous_write_fin, rendezvous); break;
      case RendezvousVariant::WriteImm:
        if (param.platform == "chelsio-t3-iwarp") EXPECT_EQ(counters.rendezvous_write_fin, rendezvous);
        else EXPECT_EQ(counters.rendezvous_write_imm, rendezvous);
        break;
      case RendezvousVariant::Auto:
        if (param.platform == "chelsio-t3-iwarp") EXPECT_EQ(counters.rendezvous_read, rendezvous);
        else EXPECT_EQ(counters.rendezvous_write_imm, rendezvous);
        break;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(
    Pt2pt, Protocols,
    ::testing::Values(ProtocolCase{"ideal", RendezvousVariant::Auto, 32768},
                      ProtocolCase{"ideal", RendezvousVariant::Read, 32768},
                      ProtocolCase{"ideal", RendezvousVariant::WriteFin, 32768},
                      ProtocolCase{"ideal", RendezvousVariant::WriteImm, 0},  // no short: rendezvous past one packet
                      ProtocolCase{"connectx-ddr", RendezvousVariant::Auto, 32768},
                      ProtocolCase{"connectx-ddr", RendezvousVariant::Read, 100000},
                      ProtocolCase{"connectx-ddr", RendezvousVariant::WriteFin, 16384},
                      ProtocolCase{"chelsio-t3-iwarp", RendezvousVariant::Auto, 32768},
                      ProtocolCase{"chelsio-t3-iwarp", RendezvousVariant::WriteImm, 32768},
                      ProtocolCase{"chelsio-t3-iwarp", RendezvousVariant::WriteFin, 8000}),
    case_name);

// Derived (non-contiguous) datatypes through eager and both rendezvous directions:
// a strided vector sent, received as a contiguous run, and vice versa.
TEST(Pt2pt, DerivedDatatypesThroughEveryProtocol) {
  for (auto variant : {RendezvousVariant::WriteImm, RendezvousVariant::Read}) {
    mpi::Config config;
    config.rendezvous = variant;
    run_ranks("ideal", 2, config, [](Context& c) {
      const auto& world = c.world();
      const auto& dbl = c.datatype(BasicKind::Double);
      for (std::int64_t count : {1, 100, 3000, 200000}) {  // tiny, short, rendezvous x2
        auto column = mpi::Datatype::vector(count, 1, 3, dbl);  // every third double
        column->commit();
        if (world.rank() == 0) {
          std::vector<double> matrix(static_cast<std::size_t>(count * 3));
          for (std::size_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<double>(i);
          c.send(matrix.data(), 1, column, 1, 1, world);
          std::vector<double> flat(static_cast<std::size_t>(count));
          for (std::int64_t i = 0; i < count; ++i) flat[static_cast<std::size_t>(i)] = -static_cast<double>(i);
          c.send(flat.data(), count, dbl, 1, 2, world);
        } else {
          std::vector<double> flat(static_cast<std::size_t>(count), -1);
          MessageStatus s = c.recv(flat.data(), count, dbl, 0, 1, world);
          EXPECT_EQ(s.count_bytes, count * 8);
          for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(flat[static_cast<std::size_t>(i)], 3.0 * i);
          std::vector<double> matrix(static_cast<std::size_t>(count * 3), 7.0);
          c.recv(matrix.data(), 1, column, 0, 2, world);
          for (std::int64_t i = 0; i < count * 3; ++i) {
            const double want = i % 3 == 0 ? -static_cast<double>(i / 3) : 7.0;
            ASSERT_EQ(matrix[static_cast<std::size_t>(i)], want) << "count " << count << " at " << i;
          }
        }
      }
    });
  }
}

}  // namespace
}  // namespace twinfab::mpitest
