// Conformance: one-sided RDMA write and read at unaligned offsets and of length zero,
// and RDMA write with immediate (consumes a receive, delivers the immediate).
#include <array>
#include <cstring>

#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

class Rdma : public ConformanceTest {};

constexpr size_t kBufferBytes = 4096;
constexpr uint32_t kLength = 1001;
constexpr size_t kRemoteOffset = 3;
constexpr size_t kLocalOffset = 5;

TEST_P(Rdma, WriteAtAnUnalignedOffsetLandsExactly) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, kBufferBytes);
    RegisteredBuffer dst(b, kBufferBytes);
    src.fill_pattern(11);
    dst.fill(0x5a);
    const Sge sge = src.sge(kLocalOffset, kLength);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 1, .opcode = Opcode::RdmaWrite, .sg_list = std::span(&sge, 1),
                                           .remote_addr = dst.remote_addr(kRemoteOffset), .rkey = dst.rkey()}));
    auto wc = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_EQ(wc[0].opcode, WcOpcode::RdmaWrite);
    EXPECT_EQ(wc[0].wr_id, 1u);
    EXPECT_EQ(wc[0].qp_num, pair->a.qp_num());

    auto landed = [&] { return std::memcmp(dst.data() + kRemoteOffset, src.data() + kLocalOffset, kLength) == 0; };
    if (write_completion_implies_placement(a)) {
      EXPECT_TRUE(landed()) << "on InfiniBand/RoCE RC a write's completion means its data is placed at the target";
    }
    EXPECT_TRUE(wait_for_memory(b, landed)) << "the written data never appeared at the target";
    for (size_t i = 0; i < kRemoteOffset; ++i) EXPECT_EQ(dst.data()[i], 0x5a) << "byte " << i << " before the write";
    for (size_t i = kRemoteOffset + kLength; i < kBufferBytes; ++i) {
      ASSERT_EQ(dst.data()[i], 0x5a) << "byte " << i << " after the write";
    }
    EXPECT_TRUE(poll_now(*pair->b.recv_cq).empty()) << "an RDMA write must not complete anything at the target";
  });
}

TEST_P(Rdma, ReadAtAnUnalignedOffsetFetchesExactly) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer local(a, kBufferBytes);
    RegisteredBuffer remote(b, kBufferBytes);
    local.fill(0x5a);
    remote.fill_pattern(12);
    const size_t local_offset = 7;
    const Sge sge = local.sge(local_offset, kLength);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 2, .opcode = Opcode::RdmaRead, .sg_list = std::span(&sge, 1),
                                           .remote_addr = remote.remote_addr(kRemoteOffset), .rkey = remote.rkey()}));
    auto wc = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_EQ(wc[0].opcode, WcOpcode::RdmaRead);
    EXPECT_EQ(wc[0].wr_id, 2u);
    EXPECT_EQ(std::memcmp(local.data() + local_offset, remote.data() + kRemoteOffset, kLength), 0);
    for (size_t i = 0; i < local_offset; ++i) EXPECT_EQ(local.data()[i], 0x5a) << "byte " << i << " before the read";
    for (size_t i = local_offset + kLength; i < kBufferBytes; ++i) {
      ASSERT_EQ(local.data()[i], 0x5a) << "byte " << i << " after the read";
    }
  });
}

TEST_P(Rdma, ZeroLengthWriteAndReadComplete) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer local(a, 64);
    RegisteredBuffer remote(b, 64);
    local.fill(0x11);
    remote.fill(0x22);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 1, .opcode = Opcode::RdmaWrite,
                                           .remote_addr = remote.remote_addr(8), .rkey = remote.rkey()}));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 2, .opcode = Opcode::RdmaRead,
                                           .remote_addr = remote.remote_addr(8), .rkey = remote.rkey()}));
    auto wc = poll_n(a, *pair->a.send_cq, 2);
    ASSERT_EQ(wc.size(), 2u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
    EXPECT_EQ(wc[0].opcode, WcOpcode::RdmaWrite);
    EXPECT_EQ(wc[1].status, WcStatus::Success) << describe(wc[1]);
    EXPECT_EQ(wc[1].opcode, WcOpcode::RdmaRead);
    for (uint8_t byte : remote.bytes()) ASSERT_EQ(byte, 0x22);
    for (uint8_t byte : local.bytes()) ASSERT_EQ(byte, 0x11);
  });
}

/// Write-with-immediate on `transport`: data lands at the offset, a posted receive is
/// consumed (its buffer untouched) and reports RecvRdmaWithImm with the immediate.
/// A write with immediate of `length` bytes (0: no SGE, remote address or rkey).
void check_write_with_immediate(Device& a, Device& b, Transport transport, uint32_t length = kLength) {
  SCOPED_TRACE(std::string("transport ") + std::string(fabric::to_string(transport)) + ", " +
               std::to_string(length) + " bytes");
  auto pair = make_connected_pair(a, b, transport);
  ASSERT_TRUE(pair);
  RegisteredBuffer src(a, kBufferBytes);
  RegisteredBuffer dst(b, kBufferBytes);
  RegisteredBuffer recv_buffer(b, 64);
  src.fill_pattern(13);
  dst.fill(0x5a);
  recv_buffer.fill(0xee);
  const Sge r = recv_buffer.sge(0, 64);
  ASSERT_TRUE(posted(pair->b, RecvWr{77, std::span(&r, 1)}));
  const Sge sge = src.sge(kLocalOffset, length);
  if (length > 0) {
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 3, .opcode = Opcode::RdmaWriteWithImm, .sg_list = std::span(&sge, 1),
                                           .imm_data = 0x12345678, .remote_addr = dst.remote_addr(kRemoteOffset),
                                           .rkey = dst.rkey()}));
  } else {
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 3, .opcode = Opcode::RdmaWriteWithImm, .imm_data = 0x12345678}));
  }

  auto recv = poll_n(b, *pair->b.recv_cq, 1);
  ASSERT_EQ(recv.size(), 1u) << "write with immediate did not consume the posted receive";
  EXPECT_EQ(recv[0].status, WcStatus::Success) << describe(recv[0]);
  EXPECT_EQ(recv[0].opcode, WcOpcode::RecvRdmaWithImm);
  EXPECT_EQ(recv[0].wr_id, 77u);
  EXPECT_TRUE(recv[0].has_imm);
  EXPECT_EQ(recv[0].imm_data, 0x12345678u);
  EXPECT_EQ(recv[0].byte_len, length) << "byte_len of RECV_RDMA_WITH_IMM is the length written (as in verbs)";
  EXPECT_EQ(recv[0].qp_num, pair->b.qp_num());
  // The completion of the receive follows the placement of the data.
  EXPECT_EQ(std::memcmp(dst.data() + kRemoteOffset, src.data() + kLocalOffset, length), 0) << "data not in place";
  EXPECT_EQ(dst.data()[kRemoteOffset - 1], 0x5a);
  EXPECT_EQ(dst.data()[kRemoteOffset + length], 0x5a);
  for (uint8_t byte : recv_buffer.bytes()) ASSERT_EQ(byte, 0xee) << "the receive buffer must not be written";

  auto send = poll_n(a, *pair->a.send_cq, 1);
  ASSERT_EQ(send.size(), 1u);
  EXPECT_EQ(send[0].status, WcStatus::Success) << describe(send[0]);
  EXPECT_EQ(send[0].opcode, WcOpcode::RdmaWrite) << "verbs reports a write with immediate as IBV_WC_RDMA_WRITE";
}

TEST_P(Rdma, WaitForCompletionEndsOnACompletionNotOnWrittenMemory) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, kBufferBytes);
    RegisteredBuffer dst(b, kBufferBytes);
    src.fill_pattern(13);
    dst.fill(0);
    const Sge sge = src.sge(0, kLength);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 3, .opcode = Opcode::RdmaWrite, .sg_list = std::span(&sge, 1),
                                           .remote_addr = dst.remote_addr(0), .rkey = dst.rkey()}));
    // At the target the write completes nothing: while it lands, a wait for a
    // completion lasts until its deadline, in one call (wait() would return early in
    // the simulator, and every microsecond on hardware, for memory pollers).
    Runtime& target = b.runtime();
    CompletionQueue* const recv_cq[] = {pair->b.recv_cq};
    const double window = 0.01;
    const double start = target.now();
    EXPECT_EQ(target.wait_for_completion(recv_cq, start + window), Status::Timeout);
    EXPECT_GE(target.now(), start + window);
    EXPECT_TRUE(poll_now(*pair->b.recv_cq).empty());
    auto landed = [&] { return std::memcmp(dst.data(), src.data(), kLength) == 0; };
    EXPECT_TRUE(wait_for_memory(b, landed)) << "the written data never appeared at the target";
    // The requester's completion ends its wait, well before the deadline.
    Runtime& rt = a.runtime();
    CompletionQueue* const send_cq[] = {pair->a.send_cq};
    const double deadline = rt.now() + 10.0;
    while (poll_now(*pair->a.send_cq).empty()) {
      ASSERT_EQ(rt.wait_for_completion(send_cq, deadline), Status::Ok) << "no completion for the write";
    }
  });
}

TEST_P(Rdma, WriteWithImmediateConsumesAReceiveAndDeliversTheImmediate) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (!caps.write_with_imm) GTEST_SKIP() << lacks("RDMA write with immediate");
    check_write_with_immediate(a, b, Transport::RC);
    if (caps.uc) check_write_with_immediate(a, b, Transport::UC);
  });
}

// What the MPI channel's control messages rely on (mpi/channels/packet.hpp): a
// zero-byte write with immediate names no memory (InfiniBand C9-88: no remote
// address or rkey is checked), consumes a posted receive without writing its buffer
// and delivers the immediate.
TEST_P(Rdma, ZeroByteWriteWithImmediateNeedsNoMemoryAndDeliversTheImmediate) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (!caps.write_with_imm) GTEST_SKIP() << lacks("RDMA write with immediate");
    check_write_with_immediate(a, b, Transport::RC, 0);
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(Rdma);

}  // namespace twinfab::testing
