// Smoke test of the verbs backend on whatever RDMA device the host has (rxe or siw in
// the micro-VM): open, register, connect two RC QPs of one device to each other,
// send/receive, RDMA write, and the clear NotFound error for a missing device. The
// device tests skip, with the reason, on a host without RDMA; the error-path tests run
// everywhere.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/verbs/verbs_backend.hpp"
#include "fabric/device.hpp"
#include "fabric/error.hpp"
#include "tests/fabric/verbs_test_support.hpp"

namespace twinfab {
namespace {

using fabric::Access;
using fabric::Address;
using fabric::CompletionQueue;
using fabric::Device;
using fabric::Opcode;
using fabric::QpConfig;
using fabric::QpState;
using fabric::QueuePair;
using fabric::RecvWr;
using fabric::SendWr;
using fabric::Sge;
using fabric::Status;
using fabric::Transport;
using fabric::WcOpcode;
using fabric::WcStatus;
using fabric::WorkCompletion;

using verbs_test::connect_pair;
using verbs_test::kTimeout;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Waits (through the device's runtime, which must not consume completions) and polls
/// until `n` completions arrived or kTimeout passed.
std::vector<WorkCompletion> poll_n(Device& device, CompletionQueue& cq, size_t n) {
  std::vector<WorkCompletion> out;
  const double deadline = device.runtime().now() + kTimeout;
  CompletionQueue* const sources[] = {&cq};
  std::array<WorkCompletion, 8> batch;
  while (out.size() < n) {
    if (device.runtime().wait(sources, deadline) == Status::Timeout) break;
    const size_t got = cq.poll(std::span(batch).first(std::min(batch.size(), n - out.size())));
    out.insert(out.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(got));
  }
  return out;
}

std::string describe(const WorkCompletion& wc) {
  return "wr_id " + std::to_string(wc.wr_id) + " " + std::string(fabric::to_string(wc.opcode)) + " " +
         std::string(fabric::to_string(wc.status)) + " byte_len " + std::to_string(wc.byte_len);
}

TEST(VerbsSmoke, NonexistentDeviceNameIsNotFoundWithAClearMessage) {
  verbs::OpenOptions options;
  options.device_name = "twinfab_no_such_device0";
  try {
    auto device = verbs::open_device(options);
    FAIL() << "opened a device that does not exist";
  } catch (const fabric::Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.status(), Status::NotFound) << msg;
    EXPECT_TRUE(contains(msg, "twinfab_no_such_device0")) << msg;
    EXPECT_TRUE(contains(msg, "rdma link add rxe0 type rxe netdev")) << msg;
    EXPECT_TRUE(contains(msg, "type siw")) << msg;
    EXPECT_TRUE(contains(msg, "ci/vm/run --device rxe")) << msg;
    EXPECT_TRUE(contains(msg, "--backend sim")) << msg;
  }
}

TEST(VerbsSmoke, WithoutKernelRdmaSupportTheErrorSaysSo) {
  struct stat st;
  if (::stat("/sys/class/infiniband", &st) == 0) GTEST_SKIP() << "this kernel has RDMA support";
  EXPECT_TRUE(verbs::list_devices().empty());
  try {
    auto device = verbs::open_device();
    FAIL() << "opened a device on a kernel without RDMA";
  } catch (const fabric::Error& e) {
    EXPECT_EQ(e.status(), Status::NotFound);
    EXPECT_TRUE(contains(e.what(), "this kernel has no RDMA support")) << e.what();
    EXPECT_TRUE(contains(e.what(), "/sys/class/infiniband")) << e.what();
  }
}

TEST(VerbsSmoke, DiscoveryDescribesTheDeviceHonestly) {
  OPEN_DEVICE_OR_SKIP(device);
  const auto& caps = device->capabilities();
  auto all = verbs::list_devices();
  auto it = std::find_if(all.begin(), all.end(), [&](const verbs::DeviceInfo& d) { return d.name == caps.device_name; });
  ASSERT_NE(it, all.end()) << caps.device_name << " is open but not listed";
  EXPECT_TRUE(it->active);
  EXPECT_EQ(caps.backend, "verbs");
  EXPECT_TRUE(caps.rc);
  EXPECT_GT(caps.mtu, 0u);
  EXPECT_GT(caps.max_sge, 0u);
  EXPECT_GT(caps.max_qp_wr, 0u);
  if (caps.link == fabric::LinkKind::IWarp) {
    EXPECT_EQ(it->transport, "iWARP");
    EXPECT_TRUE(caps.requires_connection_manager);
    EXPECT_TRUE(caps.active_side_sends_first);
    EXPECT_FALSE(caps.uc);
    EXPECT_FALSE(caps.ud);
    EXPECT_FALSE(caps.atomics);
    EXPECT_FALSE(caps.write_with_imm);
    EXPECT_FALSE(caps.in_order_placement);
  } else {
    EXPECT_EQ(it->transport, "InfiniBand");
    EXPECT_FALSE(caps.requires_connection_manager);
    EXPECT_TRUE(caps.in_order_placement);
    EXPECT_GE(it->default_gid_index, 0);
    if (caps.link == fabric::LinkKind::RoCE) {
      EXPECT_TRUE(contains(it->default_gid, "::ffff:")) << "the default RoCE GID should be the IPv4-mapped RoCE v2 one, "
                                                        << "got index " << it->default_gid_index << ": " << it->default_gid;
    }
    std::printf("default GID index %d: %s\n", it->default_gid_index, it->default_gid.c_str());
  }
  std::printf("%s", fabric::describe(caps).c_str());
}

TEST(VerbsSmoke, RcSendReceiveAndRdmaWriteBetweenTwoQpsOfOneDevice) {
  OPEN_DEVICE_OR_SKIP(device);
  const auto& caps = device->capabilities();
  auto cq_x = device->create_cq(64);
  auto cq_y = device->create_cq(64);
  QpConfig config;
  config.transport = Transport::RC;
  config.send_cq = cq_x.get();
  config.recv_cq = cq_x.get();
  auto x = device->create_qp(config);
  config.send_cq = cq_y.get();
  config.recv_cq = cq_y.get();
  auto y = device->create_qp(config);
  EXPECT_EQ(x->state(), QpState::Reset);

  // On iWARP only the active side may send first; which one it is follows from the blobs.
  const bool x_active = verbs::is_active_side(x->local_address(), y->local_address());
  EXPECT_NE(x_active, verbs::is_active_side(y->local_address(), x->local_address()));
  QueuePair& active = x_active ? *x : *y;
  QueuePair& passive = x_active ? *y : *x;
  CompletionQueue& active_cq = x_active ? *cq_x : *cq_y;
  CompletionQueue& passive_cq = x_active ? *cq_y : *cq_x;

  std::vector<uint64_t> active_mem(512, 0), passive_mem(512, 0);  // 4 KiB each, 8-byte aligned
  auto active_mr = device->register_memory(active_mem.data(), 4096, fabric::kAllAccess);
  auto passive_mr = device->register_memory(passive_mem.data(), 4096, fabric::kAllAccess);
  auto* active_bytes = reinterpret_cast<uint8_t*>(active_mem.data());
  auto* passive_bytes = reinterpret_cast<uint8_t*>(passive_mem.data());

  // A receive may be posted in INIT, before the connection exists.
  ASSERT_EQ(passive.to_init(), Status::Ok) << passive.last_error();
  const Sge recv_sge = passive_mr->sge(0, 256);
  ASSERT_EQ(passive.post_recv(RecvWr{1, std::span(&recv_sge, 1)}), Status::Ok) << passive.last_error();

  connect_pair(*device, active, passive);
  if (HasFatalFailure()) return;

  // Send/receive, active side first.
  const char hello[] = "hello from the active side";
  std::memcpy(active_bytes, hello, sizeof hello);
  const Sge send_sge = active_mr->sge(0, sizeof hello);
  ASSERT_EQ(active.post_send(SendWr{.wr_id = 2, .sg_list = std::span(&send_sge, 1)}), Status::Ok)
      << active.last_error();
  auto got = poll_n(*device, passive_cq, 1);
  ASSERT_EQ(got.size(), 1u) << "the message did not arrive";
  EXPECT_EQ(got[0].status, WcStatus::Success) << describe(got[0]);
  EXPECT_EQ(got[0].opcode, WcOpcode::Recv);
  EXPECT_EQ(got[0].wr_id, 1u);
  EXPECT_EQ(got[0].byte_len, sizeof hello);
  EXPECT_EQ(got[0].qp_num, passive.qp_num());
  EXPECT_STREQ(reinterpret_cast<const char*>(passive_bytes), hello);
  auto sent = poll_n(*device, active_cq, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, WcStatus::Success) << describe(sent[0]);
  EXPECT_EQ(sent[0].opcode, WcOpcode::Send);

  // RDMA write, in both directions now that the active side has sent.
  for (int i = 0; i < 1024; ++i) active_bytes[1024 + i] = static_cast<uint8_t>(i * 7 + 1);
  const Sge write_sge = active_mr->sge(1024, 1024);
  ASSERT_EQ(active.post_send(SendWr{.wr_id = 3, .opcode = Opcode::RdmaWrite, .sg_list = std::span(&write_sge, 1),
                                    .remote_addr = passive_mr->remote_addr(2048), .rkey = passive_mr->rkey()}),
            Status::Ok)
      << active.last_error();
  sent = poll_n(*device, active_cq, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, WcStatus::Success) << describe(sent[0]);
  EXPECT_EQ(sent[0].opcode, WcOpcode::RdmaWrite);
  EXPECT_EQ(std::memcmp(passive_bytes + 2048, active_bytes + 1024, 1024), 0) << "RDMA write data differs";

  for (int i = 0; i < 512; ++i) passive_bytes[3072 + i] = static_cast<uint8_t>(255 - i);
  const Sge back_sge = passive_mr->sge(3072, 512);
  ASSERT_EQ(passive.post_send(SendWr{.wr_id = 4, .opcode = Opcode::RdmaWrite, .sg_list = std::span(&back_sge, 1),
                                     .remote_addr = active_mr->remote_addr(3072), .rkey = active_mr->rkey()}),
            Status::Ok)
      << passive.last_error();
  sent = poll_n(*device, passive_cq, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, WcStatus::Success) << describe(sent[0]);
  EXPECT_EQ(std::memcmp(active_bytes + 3072, passive_bytes + 3072, 512), 0) << "RDMA write data differs";

  // What the device lacks is refused with Unsupported and a reason, not posted.
  const Sge eight = active_mr->sge(0, 8);
  if (!caps.atomics) {
    EXPECT_EQ(active.post_send(SendWr{.wr_id = 5, .opcode = Opcode::AtomicFetchAdd, .sg_list = std::span(&eight, 1),
                                      .remote_addr = passive_mr->remote_addr(0), .rkey = passive_mr->rkey()}),
              Status::Unsupported);
    EXPECT_TRUE(contains(active.last_error(), "atomics")) << active.last_error();
  }
  if (!caps.write_with_imm) {
    EXPECT_EQ(active.post_send(SendWr{.wr_id = 6, .opcode = Opcode::RdmaWriteWithImm, .sg_list = std::span(&eight, 1),
                                      .remote_addr = passive_mr->remote_addr(0), .rkey = passive_mr->rkey()}),
              Status::Unsupported);
    EXPECT_TRUE(contains(active.last_error(), "write_with_imm")) << active.last_error();
  }

  // Nothing else is pending, so a wait must time out, quickly.
  CompletionQueue* const sources[] = {&active_cq, &passive_cq};
  const double start = device->runtime().now();
  Status s = Status::Ok;
  while (s == Status::Ok) s = device->runtime().wait(sources, start + 0.05);
  EXPECT_EQ(s, Status::Timeout);
  EXPECT_LT(device->runtime().now() - start, 1.0);
}

TEST(VerbsSmoke, UdSendCarriesTheGrhAreaAndTheSource) {
  OPEN_DEVICE_OR_SKIP(device);
  const auto& caps = device->capabilities();
  if (!caps.ud) GTEST_SKIP() << "device lacks UD (" << fabric::to_string(caps.link) << ")";
  auto cq = device->create_cq(16);
  QpConfig config;
  config.transport = Transport::UD;
  config.send_cq = cq.get();
  config.recv_cq = cq.get();
  auto sender = device->create_qp(config);
  auto receiver = device->create_qp(config);
  ASSERT_EQ(sender->connect(nullptr), Status::Ok) << sender->last_error();
  ASSERT_EQ(receiver->connect(nullptr), Status::Ok) << receiver->last_error();

  std::vector<uint8_t> mem(fabric::kUdGrhBytes + 2 * caps.mtu + 64, 0);
  auto mr = device->register_memory(mem.data(), mem.size(), fabric::kAllAccess);
  const Sge r = mr->sge(0, fabric::kUdGrhBytes + caps.mtu);
  ASSERT_EQ(receiver->post_recv(RecvWr{1, std::span(&r, 1)}), Status::Ok) << receiver->last_error();
  uint8_t* payload = mem.data() + fabric::kUdGrhBytes + caps.mtu;
  for (uint32_t i = 0; i < 100; ++i) payload[i] = static_cast<uint8_t>(i + 3);

  auto ah = device->create_address_handle(receiver->local_address());
  EXPECT_EQ(ah->remote_qp_num(), receiver->qp_num());
  const Sge too_big = mr->sge(fabric::kUdGrhBytes + caps.mtu, caps.mtu + 1);
  EXPECT_EQ(sender->post_send(SendWr{.wr_id = 2, .sg_list = std::span(&too_big, 1), .ah = ah.get()}),
            Status::InvalidArgument);
  EXPECT_TRUE(contains(sender->last_error(), "MTU")) << sender->last_error();

  const Sge s = mr->sge(fabric::kUdGrhBytes + caps.mtu, 100);
  ASSERT_EQ(sender->post_send(SendWr{.wr_id = 3, .sg_list = std::span(&s, 1), .ah = ah.get()}), Status::Ok)
      << sender->last_error();
  auto wcs = poll_n(*device, *cq, 2);
  ASSERT_EQ(wcs.size(), 2u);
  for (const WorkCompletion& wc : wcs) {
    EXPECT_EQ(wc.status, WcStatus::Success) << describe(wc);
    if (wc.opcode == WcOpcode::Recv) {
      EXPECT_EQ(wc.byte_len, fabric::kUdGrhBytes + 100);
      EXPECT_EQ(wc.src_qp, sender->qp_num());
      EXPECT_EQ(std::memcmp(mem.data() + fabric::kUdGrhBytes, payload, 100), 0);
    } else {
      EXPECT_EQ(wc.wr_id, 3u);
    }
  }
}

TEST(VerbsSmoke, BadArgumentsAreRefusedWithAReason) {
  OPEN_DEVICE_OR_SKIP(device);
  std::vector<uint64_t> mem(8);
  try {
    auto mr = device->register_memory(mem.data(), 64, Access::RemoteWrite);
    FAIL() << "registered RemoteWrite without LocalWrite";
  } catch (const fabric::Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
    EXPECT_TRUE(contains(e.what(), "LocalWrite")) << e.what();
  }
  auto cq = device->create_cq(8);
  QpConfig config;
  config.send_cq = cq.get();
  config.recv_cq = cq.get();
  auto qp = device->create_qp(config);
  const Sge sge{reinterpret_cast<uint64_t>(mem.data()), 8, 0};
  EXPECT_EQ(qp->post_send(SendWr{.wr_id = 1, .sg_list = std::span(&sge, 1)}), Status::InvalidState);
  EXPECT_TRUE(contains(qp->last_error(), "RESET")) << qp->last_error();
  EXPECT_EQ(qp->post_recv(RecvWr{2, std::span(&sge, 1)}), Status::InvalidState);
  const Address garbage = Address::from_bytes(std::vector<std::byte>(7, std::byte{1}));
  EXPECT_EQ(qp->connect(&garbage), Status::InvalidArgument);
  EXPECT_FALSE(qp->last_error().empty());
}

}  // namespace
}  // namespace twinfab
