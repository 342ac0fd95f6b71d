// Unit tests of mpi/pt2pt/protocol.hpp: the protocol and rendezvous variant follow
// the channel's capabilities (channel.hpp), never its kind. The RC cases pin today's
// choices (the channel interface changed none of them); the others are what a
// channel without RDMA (UD, shared memory) or with only part of it will get.
#include <gtest/gtest.h>

#include "mpi/pt2pt/protocol.hpp"

namespace twinfab::mpi {
namespace {

/// What RcChannel offers with 8 KiB packets; `imm`: the device has write with immediate.
ChannelCapabilities rc(bool imm = true) {
  ChannelCapabilities caps;
  caps.max_payload = 8192 - kPacketHeaderBytes;
  caps.rdma_write = true;
  caps.rdma_read = true;
  caps.rdma_write_with_imm = imm;
  caps.rdma_atomics = true;
  caps.max_inline_write = 64;
  return caps;
}

/// A datagram channel's: MTU-sized packets, no RDMA.
ChannelCapabilities datagram() {
  ChannelCapabilities caps;
  caps.max_payload = 2048 - kPacketHeaderBytes;
  return caps;
}

TEST(MpiProtocolTest, RcChoosesByThresholds) {
  const Config config;  // tiny: one packet; eager up to 32 KiB
  EXPECT_EQ(choose_protocol(0, config, rc()), Protocol::Tiny);
  EXPECT_EQ(choose_protocol(rc().max_payload, config, rc()), Protocol::Tiny);
  EXPECT_EQ(choose_protocol(rc().max_payload + 1, config, rc()), Protocol::Short);
  EXPECT_EQ(choose_protocol(config.eager_threshold, config, rc()), Protocol::Short);
  EXPECT_EQ(choose_protocol(config.eager_threshold + 1, config, rc()), Protocol::Rendezvous);
}

TEST(MpiProtocolTest, TinyThresholdIsCappedByThePacket) {
  Config config;
  config.tiny_threshold = 100;
  EXPECT_EQ(choose_protocol(100, config, rc()), Protocol::Tiny);
  EXPECT_EQ(choose_protocol(101, config, rc()), Protocol::Short);
  config.tiny_threshold = 1 << 20;  // larger than a packet: a packet decides
  EXPECT_EQ(choose_protocol(datagram().max_payload, config, datagram()), Protocol::Tiny);
  EXPECT_EQ(choose_protocol(datagram().max_payload + 1, config, datagram()), Protocol::Short);
}

TEST(MpiProtocolTest, WithoutRdmaEveryLongMessageIsSegmentedEager) {
  const Config config;
  ASSERT_FALSE(datagram().offers_rendezvous());
  EXPECT_EQ(choose_protocol(0, config, datagram()), Protocol::Tiny);
  EXPECT_EQ(choose_protocol(config.eager_threshold + 1, config, datagram()), Protocol::Short);
  EXPECT_EQ(choose_protocol(std::uint64_t{1} << 31, config, datagram()), Protocol::Short);
}

TEST(MpiProtocolTest, RcVariantsAreTodays) {
  using V = RendezvousVariant;
  EXPECT_EQ(resolve_variant(V::Auto, rc(true)), V::WriteImm);
  EXPECT_EQ(resolve_variant(V::Auto, rc(false)), V::Read);  // siw: no write with immediate
  EXPECT_EQ(resolve_variant(V::WriteImm, rc(true)), V::WriteImm);
  EXPECT_EQ(resolve_variant(V::WriteImm, rc(false)), V::WriteFin);
  EXPECT_EQ(resolve_variant(V::WriteFin, rc()), V::WriteFin);
  EXPECT_EQ(resolve_variant(V::Read, rc()), V::Read);
}

TEST(MpiProtocolTest, VariantFollowsWhatTheChannelHas) {
  using V = RendezvousVariant;
  ChannelCapabilities write_only = datagram();
  write_only.rdma_write = true;  // e.g. a channel with writes but no reads
  ASSERT_TRUE(write_only.offers_rendezvous());
  EXPECT_EQ(resolve_variant(V::Auto, write_only), V::WriteFin);
  EXPECT_EQ(resolve_variant(V::Read, write_only), V::WriteFin);
  write_only.rdma_write_with_imm = true;
  EXPECT_EQ(resolve_variant(V::Read, write_only), V::WriteImm);

  ChannelCapabilities read_only = datagram();
  read_only.rdma_read = true;
  read_only.rdma_write_with_imm = true;  // meaningless without writes: ignored
  EXPECT_EQ(resolve_variant(V::Auto, read_only), V::Read);
  EXPECT_EQ(resolve_variant(V::WriteImm, read_only), V::Read);
  EXPECT_EQ(resolve_variant(V::WriteFin, read_only), V::Read);
}

}  // namespace
}  // namespace twinfab::mpi
