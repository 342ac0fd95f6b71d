// Unit tests of fabric/hook: DeviceDecorator, DropHook, DelayHook, TraceHook, over a tiny fake
// device written here. The fake completes receives only when the test tells it to
// (FakeDevice::deliver), so every message, drop and re-post is under the test's control.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/error.hpp"
#include "fabric/hook/device_decorator.hpp"
#include "fabric/hook/delay_hook.hpp"
#include "fabric/hook/drop_hook.hpp"
#include "fabric/hook/trace_hook.hpp"

namespace twinfab::fabric::hook {
namespace {

// ------------------------------------------------------------------ the fake device

class FakeRuntime final : public Runtime {
 public:
  double now() const override { return now_; }
  // Each wait records its deadline; with `waits_until_deadline`, time jumps to it and
  // the wait times out (nothing else ever happens on the fake), else it returns at once.
  Status wait(std::span<CompletionQueue* const>, double deadline) override { return waited(deadline); }
  Status wait_for_completion(std::span<CompletionQueue* const>, double deadline) override { return waited(deadline); }
  Status wait_for_event(std::span<CompletionQueue* const>, double deadline) override { return waited(deadline); }
  void sleep_for(double seconds) override {
    now_ += seconds;
    sleeps.push_back(seconds);
  }
  void idle_for(double seconds) override { now_ += seconds; }
  void yield() override {}
  std::unique_ptr<Agent> spawn(const std::string&, std::function<void()> body) override {
    struct Done final : Agent {
      void join() override {}
      const std::string& name() const override { return name_; }
      std::string name_ = "fake";
    };
    body();
    return std::make_unique<Done>();
  }
  bool on_agent() const override { return false; }  // spawn() runs the body in the caller
  void set_now(double t) { now_ = t; }

  bool waits_until_deadline = false;
  std::vector<double> deadlines;  ///< of every wait, in order
  std::vector<double> sleeps;     ///< of every sleep_for, in order

 private:
  Status waited(double deadline) {
    deadlines.push_back(deadline);
    if (!waits_until_deadline || deadline == kForever) return Status::Ok;
    now_ = std::max(now_, deadline);
    return Status::Timeout;
  }
  double now_ = 0;
};

class FakeCq final : public CompletionQueue {
 public:
  size_t poll(std::span<WorkCompletion> out) override {
    size_t n = 0;
    while (n < out.size() && !queue.empty()) {
      out[n++] = queue.front();
      queue.pop_front();
    }
    return n;
  }
  uint32_t capacity() const noexcept override { return 1024; }
  bool overrun() noexcept override { return false; }
  std::deque<WorkCompletion> queue;
};

struct PostedRecv {
  uint64_t wr_id;
  std::vector<Sge> sges;
};

class FakeSrq final : public SharedReceiveQueue {
 public:
  Status post_recv(const RecvWr& wr) override {
    posted.push_back({wr.wr_id, {wr.sg_list.begin(), wr.sg_list.end()}});
    return Status::Ok;
  }
  uint32_t capacity() const noexcept override { return 1024; }
  const std::string& last_error() const noexcept override { return no_error; }
  std::deque<PostedRecv> posted;
  std::string no_error;
};

class FakeMr final : public MemoryRegion {
 public:
  FakeMr(void* addr, size_t length, Access access) : addr_(addr), length_(length), access_(access) {}
  void* addr() const noexcept override { return addr_; }
  size_t length() const noexcept override { return length_; }
  uint32_t lkey() const noexcept override { return 0x1234; }
  uint32_t rkey() const noexcept override { return 0x5678; }
  Access access() const noexcept override { return access_; }

 private:
  void* addr_;
  size_t length_;
  Access access_;
};

class FakeQp final : public QueuePair {
 public:
  FakeQp(uint32_t num, const QpConfig& config)
      : num_(num),
        transport_(config.transport),
        send_cq_(dynamic_cast<FakeCq*>(config.send_cq)),
        recv_cq_(dynamic_cast<FakeCq*>(config.recv_cq)),
        srq_(dynamic_cast<FakeSrq*>(config.srq)) {
    // Proves that a decorator hands the inner device its own (inner) objects.
    if (send_cq_ == nullptr || recv_cq_ == nullptr || (config.srq != nullptr && srq_ == nullptr)) {
      throw Error(Status::InvalidArgument, "FakeQp: config names objects of another device");
    }
  }
  uint32_t qp_num() const noexcept override { return num_; }
  Transport transport() const noexcept override { return transport_; }
  QpState state() const noexcept override { return state_; }
  Address local_address() const override { return Address::make("fake", transport_, {}); }
  Status to_init() override { return go(QpState::Reset, QpState::Init); }
  Status to_rtr(const Address*) override { return go(QpState::Init, QpState::ReadyToReceive); }
  Status to_rts() override { return go(QpState::ReadyToReceive, QpState::ReadyToSend); }
  Status to_error() override {
    state_ = QpState::Error;
    return Status::Ok;
  }
  Status to_reset() override {
    state_ = QpState::Reset;
    posted.clear();
    return Status::Ok;
  }
  Status post_send(const SendWr& wr) override {
    if (state_ != QpState::ReadyToSend) return fail(Status::InvalidState, "fake: post_send before RTS");
    if (refuse_sends) return fail(Status::NoResource, "fake: send queue full");
    sends.push_back(wr.wr_id);
    if (record_payloads) {
      std::string bytes;  // what the device reads at post time
      for (const Sge& sge : wr.sg_list) bytes.append(reinterpret_cast<const char*>(sge.addr), sge.length);
      payloads.push_back(std::move(bytes));
    }
    if (has(wr.flags, SendFlags::Signaled)) {
      WorkCompletion wc;
      wc.wr_id = wr.wr_id;
      wc.opcode = WcOpcode::Send;
      wc.qp_num = num_;
      send_cq_->queue.push_back(wc);
    }
    return Status::Ok;
  }
  Status post_recv(const RecvWr& wr) override {
    if (state_ == QpState::Reset) return fail(Status::InvalidState, "fake: post_recv in RESET");
    posted.push_back({wr.wr_id, {wr.sg_list.begin(), wr.sg_list.end()}});
    return Status::Ok;
  }
  const std::string& last_error() const noexcept override { return last_error_; }

  /// Consumes the oldest receive (of the QP or its SRQ) with `payload`, as the device
  /// would; UD payload lands after the GRH area. False if no receive was posted.
  bool deliver(std::string_view payload, uint32_t src_qp, WcOpcode opcode = WcOpcode::Recv) {
    std::deque<PostedRecv>& queue = srq_ ? srq_->posted : posted;
    if (queue.empty()) return false;
    PostedRecv r = queue.front();
    queue.pop_front();
    const size_t skip = transport_ == Transport::UD ? kUdGrhBytes : 0;
    size_t offset = 0;  // position in the (GRH + payload) stream
    for (const Sge& sge : r.sges) {
      auto* dst = reinterpret_cast<char*>(sge.addr);
      for (uint32_t i = 0; i < sge.length && offset < skip + payload.size(); ++i, ++offset) {
        if (offset >= skip) dst[i] = payload[offset - skip];
      }
    }
    WorkCompletion wc;
    wc.wr_id = r.wr_id;
    wc.opcode = opcode;
    wc.byte_len = static_cast<uint32_t>(skip + payload.size());
    wc.qp_num = num_;
    wc.src_qp = transport_ == Transport::UD ? src_qp : 0;
    recv_cq_->queue.push_back(wc);
    return true;
  }

  std::deque<PostedRecv> posted;
  std::vector<uint64_t> sends;
  bool record_payloads = false;       ///< keep the bytes of each send in `payloads`
  std::vector<std::string> payloads;  ///< the bytes of each send, read when it was posted
  bool refuse_sends = false;          ///< post_send returns NoResource (a full send queue)

 private:
  Status go(QpState from, QpState to) {
    if (state_ != from) return fail(Status::InvalidState, "fake: illegal transition");
    state_ = to;
    return Status::Ok;
  }
  Status fail(Status s, std::string why) {
    last_error_ = std::move(why);
    return s;
  }
  uint32_t num_;
  Transport transport_;
  FakeCq* send_cq_;
  FakeCq* recv_cq_;
  FakeSrq* srq_;
  QpState state_ = QpState::Reset;
  std::string last_error_;
};

class FakeAh final : public AddressHandle {
 public:
  uint32_t remote_qp_num() const noexcept override { return 0; }
};

class FakeDevice final : public Device {
 public:
  FakeDevice() { caps_.device_name = "fake0"; }
  const DeviceCapabilities& capabilities() const noexcept override { return caps_; }
  Runtime& runtime() noexcept override { return runtime_; }
  std::unique_ptr<MemoryRegion> register_memory(void* addr, size_t length, Access access) override {
    return std::make_unique<FakeMr>(addr, length, access);
  }
  std::unique_ptr<CompletionQueue> create_cq(uint32_t) override {
    auto cq = std::make_unique<FakeCq>();
    last_cq = cq.get();
    return cq;
  }
  std::unique_ptr<SharedReceiveQueue> create_srq(uint32_t, uint32_t) override {
    auto srq = std::make_unique<FakeSrq>();
    last_srq = srq.get();
    return srq;
  }
  std::unique_ptr<QueuePair> create_qp(const QpConfig& config) override {
    auto qp = std::make_unique<FakeQp>(next_qp_num_++, config);
    qps.push_back(qp.get());
    return qp;
  }
  std::unique_ptr<AddressHandle> create_address_handle(const Address&) override {
    return std::make_unique<FakeAh>();
  }

  FakeQp& qp(uint32_t qp_num) {
    for (FakeQp* q : qps)
      if (q->qp_num() == qp_num) return *q;
    throw std::out_of_range("no such fake QP");
  }

  FakeRuntime runtime_;
  std::vector<FakeQp*> qps;
  FakeCq* last_cq = nullptr;
  FakeSrq* last_srq = nullptr;

 private:
  DeviceCapabilities caps_;
  uint32_t next_qp_num_ = 100;
};

// ------------------------------------------------------------------ helpers

/// A QP (of `transport`) on a hooked device, brought to RTS, with its own CQs.
struct HookedQp {
  std::unique_ptr<CompletionQueue> send_cq;
  std::unique_ptr<CompletionQueue> recv_cq;
  std::unique_ptr<QueuePair> qp;
};

HookedQp make_qp(Device& device, Transport transport, SharedReceiveQueue* srq = nullptr) {
  HookedQp h;
  h.send_cq = device.create_cq(64);
  h.recv_cq = device.create_cq(64);
  QpConfig config;
  config.transport = transport;
  config.send_cq = h.send_cq.get();
  config.recv_cq = h.recv_cq.get();
  config.srq = srq;
  h.qp = device.create_qp(config);
  Address peer = Address::make("fake", transport, {});
  EXPECT_EQ(h.qp->connect(transport == Transport::UD ? nullptr : &peer), Status::Ok);
  return h;
}

std::vector<WorkCompletion> poll_all(CompletionQueue& cq) {
  std::vector<WorkCompletion> out;
  std::array<WorkCompletion, 8> batch;
  while (size_t n = cq.poll(batch)) out.insert(out.end(), batch.begin(), batch.begin() + n);
  return out;
}

constexpr uint32_t kSenderQp = 4242;

/// Sends `count` messages through the fake into one UD/UC/RC QP behind a DropHook with
/// a single receive posted, and returns, per message, whether it was dropped. Checks on
/// the way that a delivered message is intact and that the receive buffer is never
/// lost (exactly one receive stays posted).
std::vector<bool> drop_pattern(Transport transport, double p, uint64_t seed, int count, DropHook::Counters* out = nullptr) {
  auto fake_owned = std::make_unique<FakeDevice>();
  FakeDevice& fake = *fake_owned;
  DropHook hook(std::move(fake_owned), p, seed);
  HookedQp h = make_qp(hook, transport);
  FakeQp& inner = fake.qp(h.qp->qp_num());

  std::array<char, 128> buffer{};
  auto mr = hook.register_memory(buffer.data(), buffer.size(), kAllAccess);
  const Sge sge = mr->sge(0, static_cast<uint32_t>(buffer.size()));
  const size_t payload_at = transport == Transport::UD ? kUdGrhBytes : 0;
  EXPECT_EQ(h.qp->post_recv(RecvWr{77, std::span<const Sge>(&sge, 1)}), Status::Ok);

  std::vector<bool> dropped;
  for (int i = 0; i < count; ++i) {
    const std::string message = "message " + std::to_string(i);
    EXPECT_TRUE(inner.deliver(message, kSenderQp)) << "receive buffer lost before message " << i;
    std::vector<WorkCompletion> wcs = poll_all(*h.recv_cq);
    EXPECT_LE(wcs.size(), 1u);
    if (wcs.empty()) {
      dropped.push_back(true);
    } else {
      dropped.push_back(false);
      EXPECT_EQ(wcs[0].wr_id, 77u);
      EXPECT_EQ(std::string(buffer.data() + payload_at, message.size()), message);
      EXPECT_EQ(h.qp->post_recv(RecvWr{77, std::span<const Sge>(&sge, 1)}), Status::Ok);
    }
    // Delivered (re-posted by the test) or dropped (re-posted by the hook): one receive.
    EXPECT_EQ(inner.posted.size(), 1u) << "after message " << i;
    EXPECT_TRUE(inner.posted.empty() || inner.posted.front().sges.size() == 1u) << "SGE list not kept";
    if (!inner.posted.empty() && inner.posted.front().sges.size() == 1) {
      EXPECT_EQ(inner.posted.front().wr_id, 77u);
      EXPECT_EQ(inner.posted.front().sges[0].addr, sge.addr);
      EXPECT_EQ(inner.posted.front().sges[0].length, sge.length);
      EXPECT_EQ(inner.posted.front().sges[0].lkey, sge.lkey);
    }
  }
  if (out) *out = hook.counters();
  return dropped;
}

size_t count_true(const std::vector<bool>& v) { return static_cast<size_t>(std::count(v.begin(), v.end(), true)); }

// ------------------------------------------------------------------ DropHook

TEST(DropHook, DropsAboutPOfUdReceivesWithAFixedSeed) {
  constexpr int kMessages = 4000;
  constexpr double kP = 0.25;
  DropHook::Counters counters;
  std::vector<bool> dropped = drop_pattern(Transport::UD, kP, 42, kMessages, &counters);
  const size_t n = count_true(dropped);
  EXPECT_EQ(counters.seen, static_cast<uint64_t>(kMessages));
  EXPECT_EQ(counters.dropped, n);
  EXPECT_EQ(counters.repost_failures, 0u);
  // Binomial(4000, 0.25): mean 1000, sigma 27.4; 5 sigma.
  EXPECT_NEAR(static_cast<double>(n), kP * kMessages, 137.0);
  // Golden: the hook draws (mt19937_64() >> 11) * 2^-53 < p, identical on every
  // platform; a change of this number is a change of every drop experiment's output.
  EXPECT_EQ(n, 967u);
}

TEST(DropHook, SameSeedSameDropsOtherSeedOtherDrops) {
  std::vector<bool> first = drop_pattern(Transport::UD, 0.1, 7, 500);
  std::vector<bool> again = drop_pattern(Transport::UD, 0.1, 7, 500);
  std::vector<bool> other = drop_pattern(Transport::UD, 0.1, 8, 500);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  EXPECT_GT(count_true(first), 0u);
}

TEST(DropHook, UcIsDroppedRcNever) {
  DropHook::Counters rc_counters, uc_counters;
  std::vector<bool> rc = drop_pattern(Transport::RC, 1.0, 1, 50, &rc_counters);
  std::vector<bool> uc = drop_pattern(Transport::UC, 1.0, 1, 50, &uc_counters);
  EXPECT_EQ(count_true(rc), 0u) << "RC loss is the backend's reliability model, never the hook's";
  EXPECT_EQ(rc_counters.seen, 0u);
  EXPECT_EQ(rc_counters.dropped, 0u);
  EXPECT_EQ(count_true(uc), 50u);
  EXPECT_EQ(uc_counters.dropped, 50u);
}

TEST(DropHook, ProbabilityOutsideZeroOneIsRefused) {
  FakeDevice fake;
  EXPECT_THROW((DropHook{fake, -0.1, 1}), Error);
  EXPECT_THROW((DropHook{fake, 1.5, 1}), Error);
  DropHook hook(fake, 0.5, 1);
  try {
    hook.set_probability(2.0);
    ADD_FAILURE() << "set_probability(2.0) accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
  }
  EXPECT_EQ(hook.probability(), 0.5);
}

TEST(DropHook, RepostedReceiveGoesToTheBackAndGetsALaterMessage) {
  FakeDevice fake;
  DropHook hook(fake, 1.0, 3);
  HookedQp h = make_qp(hook, Transport::UD);
  FakeQp& inner = fake.qp(h.qp->qp_num());

  std::array<char, 256> buffer{};
  auto mr = hook.register_memory(buffer.data(), buffer.size(), kAllAccess);
  const Sge first = mr->sge(0, 128);
  const Sge second = mr->sge(128, 128);
  ASSERT_EQ(h.qp->post_recv(RecvWr{1, std::span<const Sge>(&first, 1)}), Status::Ok);
  ASSERT_EQ(h.qp->post_recv(RecvWr{2, std::span<const Sge>(&second, 1)}), Status::Ok);

  ASSERT_TRUE(inner.deliver("lost", kSenderQp));  // consumes receive 1, dropped
  EXPECT_TRUE(poll_all(*h.recv_cq).empty());
  EXPECT_EQ(hook.dropped(), 1u);
  ASSERT_EQ(inner.posted.size(), 2u);
  EXPECT_EQ(inner.posted[0].wr_id, 2u);
  EXPECT_EQ(inner.posted[1].wr_id, 1u) << "the dropped receive is posted again, at the back";
  EXPECT_EQ(inner.posted[1].sges[0].addr, first.addr);

  hook.set_probability(0.0);
  ASSERT_TRUE(inner.deliver("kept A", kSenderQp));
  ASSERT_TRUE(inner.deliver("kept B", kSenderQp));
  std::vector<WorkCompletion> wcs = poll_all(*h.recv_cq);
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_EQ(wcs[0].wr_id, 2u);
  EXPECT_EQ(wcs[1].wr_id, 1u);
  EXPECT_EQ(wcs[1].byte_len, kUdGrhBytes + 6);
  EXPECT_EQ(wcs[1].src_qp, kSenderQp);
  EXPECT_EQ(std::string(buffer.data() + kUdGrhBytes, 6), "kept B");
  EXPECT_EQ(std::string(buffer.data() + 128 + kUdGrhBytes, 6), "kept A");
  EXPECT_TRUE(inner.posted.empty());
}

TEST(DropHook, MultiSgeReceiveIsRepostedWithItsWholeSgeList) {
  FakeDevice fake;
  DropHook hook(fake, 1.0, 3);
  HookedQp h = make_qp(hook, Transport::UD);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  std::array<char, 256> buffer{};
  auto mr = hook.register_memory(buffer.data(), buffer.size(), kAllAccess);
  const std::array<Sge, 3> sges{mr->sge(0, kUdGrhBytes), mr->sge(100, 10), mr->sge(200, 50)};
  {
    // The caller's SGE array may die right after post_recv (verbs rule): the hook copies it.
    std::array<Sge, 3> temporary = sges;
    ASSERT_EQ(h.qp->post_recv(RecvWr{9, temporary}), Status::Ok);
    temporary.fill(Sge{});
  }
  ASSERT_TRUE(inner.deliver("dropped", kSenderQp));
  EXPECT_TRUE(poll_all(*h.recv_cq).empty());
  ASSERT_EQ(inner.posted.size(), 1u);
  ASSERT_EQ(inner.posted[0].sges.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(inner.posted[0].sges[i].addr, sges[i].addr);
    EXPECT_EQ(inner.posted[0].sges[i].length, sges[i].length);
  }
  hook.set_probability(0);
  ASSERT_TRUE(inner.deliver("0123456789abc", kSenderQp));
  std::vector<WorkCompletion> wcs = poll_all(*h.recv_cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(std::string(buffer.data() + 100, 10), "0123456789");
  EXPECT_EQ(std::string(buffer.data() + 200, 3), "abc");
}

TEST(DropHook, SrqReceiveIsRepostedToTheSrq) {
  FakeDevice fake;
  DropHook hook(fake, 1.0, 5);
  auto srq = hook.create_srq(16, 1);
  HookedQp h = make_qp(hook, Transport::UD, srq.get());
  FakeQp& inner = fake.qp(h.qp->qp_num());
  ASSERT_NE(fake.last_srq, nullptr);
  EXPECT_EQ(&srq->underlying(), fake.last_srq);

  std::array<char, 128> buffer{};
  auto mr = hook.register_memory(buffer.data(), buffer.size(), kAllAccess);
  const Sge sge = mr->sge(0, 128);
  ASSERT_EQ(srq->post_recv(RecvWr{11, std::span<const Sge>(&sge, 1)}), Status::Ok);
  ASSERT_TRUE(inner.deliver("gone", kSenderQp));
  EXPECT_TRUE(poll_all(*h.recv_cq).empty());
  EXPECT_TRUE(inner.posted.empty());
  ASSERT_EQ(fake.last_srq->posted.size(), 1u);
  EXPECT_EQ(fake.last_srq->posted[0].wr_id, 11u);
  EXPECT_EQ(hook.dropped(), 1u);
}

TEST(DropHook, WriteWithImmediateOnUcIsDroppable) {
  FakeDevice fake;
  DropHook hook(fake, 1.0, 5);
  HookedQp h = make_qp(hook, Transport::UC);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  ASSERT_EQ(h.qp->post_recv(RecvWr{12, {}}), Status::Ok);
  ASSERT_TRUE(inner.deliver("", 0, WcOpcode::RecvRdmaWithImm));
  EXPECT_TRUE(poll_all(*h.recv_cq).empty());
  EXPECT_EQ(inner.posted.size(), 1u);
}

TEST(DropHook, SendCompletionsAndErrorsAreNeverDropped) {
  FakeDevice fake;
  DropHook hook(fake, 1.0, 5);
  HookedQp h = make_qp(hook, Transport::UD);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  ASSERT_EQ(h.qp->post_send(SendWr{.wr_id = 1}), Status::Ok);
  EXPECT_EQ(poll_all(*h.send_cq).size(), 1u);

  ASSERT_EQ(h.qp->post_recv(RecvWr{13, {}}), Status::Ok);
  ASSERT_TRUE(inner.deliver("", kSenderQp));
  // Turn that success into a flush, as a QP in error would report it.
  FakeCq* inner_recv_cq = dynamic_cast<FakeCq*>(&h.recv_cq->underlying());
  ASSERT_NE(inner_recv_cq, nullptr);
  ASSERT_EQ(inner_recv_cq->queue.size(), 1u);
  inner_recv_cq->queue.front().status = WcStatus::WrFlushError;
  std::vector<WorkCompletion> wcs = poll_all(*h.recv_cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, WcStatus::WrFlushError);
  EXPECT_EQ(hook.seen(), 0u);
  EXPECT_TRUE(inner.posted.empty()) << "a flushed receive is not re-posted";
}

TEST(DropHook, RepostRefusedDeliversTheMessageInsteadOfLosingTheBuffer) {
  FakeDevice fake;
  DropHook hook(fake, 1.0, 5);
  HookedQp h = make_qp(hook, Transport::UD);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  ASSERT_EQ(h.qp->post_recv(RecvWr{14, {}}), Status::Ok);
  ASSERT_TRUE(inner.deliver("", kSenderQp));
  // The fake refuses receives in RESET (without flushing the CQ).
  ASSERT_EQ(inner.to_reset(), Status::Ok);
  std::vector<WorkCompletion> wcs = poll_all(*h.recv_cq);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].wr_id, 14u);
  DropHook::Counters c = hook.counters();
  EXPECT_EQ(c.dropped, 0u);
  EXPECT_EQ(c.repost_failures, 1u);
}

// ------------------------------------------------------------------ DeviceDecorator

TEST(DeviceDecorator, ForwardsAndTranslatesToInnerObjects) {
  FakeDevice fake;
  DeviceDecorator device(fake);
  EXPECT_EQ(device.capabilities().device_name, "fake0");
  EXPECT_EQ(&device.runtime(), &fake.runtime());
  auto cq = device.create_cq(8);
  EXPECT_EQ(&cq->underlying(), fake.last_cq) << "Runtime::wait must get the backend's CQ";
  EXPECT_NE(cq.get(), static_cast<CompletionQueue*>(fake.last_cq));

  HookedQp h = make_qp(device, Transport::RC);  // FakeQp throws unless given inner CQs
  EXPECT_EQ(h.qp->state(), QpState::ReadyToSend);
  EXPECT_EQ(device.find_qp(h.qp->qp_num()), h.qp.get());
  const uint32_t num = h.qp->qp_num();

  // last_error comes from the inner QP.
  auto idle = device.create_qp(QpConfig{.transport = Transport::RC, .send_cq = cq.get(), .recv_cq = cq.get()});
  EXPECT_EQ(idle->post_send(SendWr{}), Status::InvalidState);
  EXPECT_EQ(idle->last_error(), "fake: post_send before RTS");
  EXPECT_EQ(idle->to_rts(), Status::InvalidState);

  h.qp.reset();
  EXPECT_EQ(device.find_qp(num), nullptr);
}

TEST(DeviceDecorator, RefusesCqsOfAnotherDevice) {
  FakeDevice fake;
  DeviceDecorator device(fake);
  DeviceDecorator other(fake);
  auto foreign = other.create_cq(8);
  auto raw = fake.create_cq(8);
  auto mine = device.create_cq(8);
  for (CompletionQueue* wrong : {foreign.get(), raw.get()}) {
    try {
      device.create_qp(QpConfig{.transport = Transport::RC, .send_cq = mine.get(), .recv_cq = wrong});
      ADD_FAILURE() << "a CQ not made by this decorator was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("recv_cq"), std::string::npos) << e.what();
    }
  }
}

TEST(DeviceDecorator, NullInnerDeviceIsRefused) {
  EXPECT_THROW(DeviceDecorator{std::unique_ptr<Device>{}}, Error);
}

// ------------------------------------------------------------------ DelayHook

/// One delay the hook draws for `seed`'s k-th WR: mean + jitter * (2u - 1), u from
/// 53 bits of std::mt19937_64 (the hook's documented draw).
std::vector<double> replay_delays(double mean, double jitter, uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(mean + jitter * (2 * (static_cast<double>(rng() >> 11) * 0x1.0p-53) - 1));
  return out;
}

/// Posts `count` signaled sends at time 0 through a DelayHook over the fake and steps
/// time by `step` until all have reached the fake QP, polling the hook's CQ at each
/// step; returns the time at which each one reached it, by wr_id. Checks the QP's order.
std::vector<double> release_times(double mean, double jitter, uint64_t seed, int count, double step = 1e-7) {
  auto fake_owned = std::make_unique<FakeDevice>();
  FakeDevice& fake = *fake_owned;
  DelayHook hook(std::move(fake_owned), mean, jitter, seed);
  HookedQp h = make_qp(hook, Transport::RC);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  const Sge sge{0, 0, 0};
  for (int i = 0; i < count; ++i)
    EXPECT_EQ(h.qp->post_send(SendWr{.wr_id = static_cast<uint64_t>(i), .sg_list = std::span(&sge, 1)}), Status::Ok);
  std::vector<double> at(count, -1);
  size_t seen = 0;
  for (int k = 0; seen < static_cast<size_t>(count) && k < 1000000; ++k) {
    poll_all(*h.send_cq);
    for (; seen < inner.sends.size(); ++seen) at[inner.sends[seen]] = fake.runtime_.now();
    fake.runtime_.set_now(fake.runtime_.now() + step);
  }
  EXPECT_EQ(inner.sends.size(), size_t(count));
  for (size_t i = 0; i < inner.sends.size(); ++i) EXPECT_EQ(inner.sends[i], i) << "the QP's WRs were reordered";
  EXPECT_EQ(hook.held(), 0u);
  return at;
}

TEST(DelayHook, ZeroDelayChangesNothing) {
  auto fake_owned = std::make_unique<FakeDevice>();
  FakeDevice& fake = *fake_owned;
  DelayHook hook(std::move(fake_owned), 0, 0, 1);
  HookedQp h = make_qp(hook, Transport::RC);
  const Sge sge{0, 0, 0};
  for (uint64_t i = 0; i < 5; ++i) EXPECT_EQ(h.qp->post_send(SendWr{.wr_id = i, .sg_list = std::span(&sge, 1)}), Status::Ok);
  EXPECT_EQ(fake.qp(h.qp->qp_num()).sends, (std::vector<uint64_t>{0, 1, 2, 3, 4})) << "forwarded at once, in order";
  EXPECT_EQ(poll_all(*h.send_cq).size(), 5u);
  EXPECT_EQ(hook.held(), 0u);
  EXPECT_EQ(hook.counters().delayed, 0u);
  // The runtime passes waits and sleeps through unchanged.
  CompletionQueue* const sources[] = {h.send_cq.get()};
  EXPECT_EQ(hook.runtime().wait(sources, 2.5), Status::Ok);
  EXPECT_EQ(fake.runtime_.deadlines, (std::vector<double>{2.5}));
  hook.runtime().sleep_for(1.0);
  EXPECT_EQ(fake.runtime_.sleeps, (std::vector<double>{1.0}));
  EXPECT_EQ(hook.runtime().now(), fake.runtime_.now());
}

TEST(DelayHook, EachWrLeavesAtItsDrawnDelayAndAQpKeepsItsOrder) {
  constexpr double kMean = 10e-6, kJitter = 8e-6, kStep = 1e-7;
  constexpr int kCount = 40;
  const std::vector<double> at = release_times(kMean, kJitter, 7, kCount, kStep);
  const std::vector<double> delays = replay_delays(kMean, kJitter, 7, kCount);
  double previous = 0;
  int held_back = 0;  // WRs that left later than their own draw, behind a longer one
  for (int i = 0; i < kCount; ++i) {
    SCOPED_TRACE("wr " + std::to_string(i));
    const double due = std::max(delays[i], previous);  // posted at 0: its draw, or behind the previous WR
    EXPECT_GE(delays[i], kMean - kJitter - 1e-12);
    EXPECT_LE(delays[i], kMean + kJitter + 1e-12);
    EXPECT_GE(at[i], due - 1e-12) << "left before its time";
    EXPECT_LT(at[i], due + kStep + 1e-12) << "left later than the first poll after its time";
    held_back += due > delays[i];
    previous = due;
  }
  EXPECT_GT(held_back, 0) << "with this jitter some WRs must wait behind a longer draw (order kept)";
}

TEST(DelayHook, SameSeedSameTimesOtherSeedOtherTimes) {
  const auto a = release_times(5e-6, 4e-6, 11, 20);
  EXPECT_EQ(a, release_times(5e-6, 4e-6, 11, 20));
  EXPECT_NE(a, release_times(5e-6, 4e-6, 12, 20));
}

TEST(DelayHook, WaitEndsWhenAHeldWrIsDueAndPostsIt) {
  auto fake_owned = std::make_unique<FakeDevice>();
  FakeDevice& fake = *fake_owned;
  fake.runtime_.waits_until_deadline = true;
  DelayHook hook(std::move(fake_owned), 3e-6, 0, 1);
  HookedQp h = make_qp(hook, Transport::UD);
  const Sge sge{0, 0, 0};
  FakeAh ah;
  ASSERT_EQ(h.qp->post_send(SendWr{.wr_id = 9, .sg_list = std::span(&sge, 1), .ah = &ah}), Status::Ok);
  EXPECT_TRUE(fake.qp(h.qp->qp_num()).sends.empty()) << "held";
  EXPECT_DOUBLE_EQ(hook.next_due(), 3e-6);
  CompletionQueue* const sources[] = {h.send_cq.get()};
  // The caller waits up to 1 s; the inner wait is cut at the WR's time, the WR is
  // posted, and the wait returns Ok (spurious for the caller, who polls).
  EXPECT_EQ(hook.runtime().wait_for_completion(sources, 1.0), Status::Ok);
  ASSERT_EQ(fake.runtime_.deadlines.size(), 1u);
  EXPECT_DOUBLE_EQ(fake.runtime_.deadlines[0], 3e-6);
  EXPECT_EQ(fake.qp(h.qp->qp_num()).sends, (std::vector<uint64_t>{9}));
  EXPECT_EQ(poll_all(*h.send_cq).size(), 1u);
  // Nothing held: the next wait is the caller's own.
  EXPECT_EQ(hook.runtime().wait(sources, 2.0), Status::Timeout);
  EXPECT_DOUBLE_EQ(fake.runtime_.deadlines.back(), 2.0);
  // A computation is cut in slices at the WR's time and lasts as long in all.
  ASSERT_EQ(h.qp->post_send(SendWr{.wr_id = 10, .sg_list = std::span(&sge, 1), .ah = &ah}), Status::Ok);
  hook.runtime().sleep_for(10e-6);
  ASSERT_EQ(fake.runtime_.sleeps.size(), 2u);
  EXPECT_NEAR(fake.runtime_.sleeps[0], 3e-6, 1e-12);  // (2 + 3e-6) - 2: not exactly 3e-6
  EXPECT_NEAR(fake.runtime_.sleeps[0] + fake.runtime_.sleeps[1], 10e-6, 1e-12);
  EXPECT_EQ(fake.qp(h.qp->qp_num()).sends, (std::vector<uint64_t>{9, 10}));
  const DelayHook::Counters c = hook.counters();
  EXPECT_EQ(c.delayed, 2u);
  EXPECT_EQ(c.released, 2u);
  EXPECT_NEAR(c.total_delay, 6e-6, 1e-12);
}

TEST(DelayHook, InlinePayloadIsCopiedAtPostTime) {
  auto fake_owned = std::make_unique<FakeDevice>();
  FakeDevice& fake = *fake_owned;
  DelayHook hook(std::move(fake_owned), 1e-6, 0, 1);
  HookedQp h = make_qp(hook, Transport::RC);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  inner.record_payloads = true;
  std::array<char, 8> first{'a', 'b', 'c', 'd', 0, 0, 0, 0}, second{'e', 'f', 0, 0, 0, 0, 0, 0};
  const Sge sges[] = {{reinterpret_cast<uint64_t>(first.data()), 4, 0}, {reinterpret_cast<uint64_t>(second.data()), 2, 0}};
  ASSERT_EQ(h.qp->post_send(SendWr{.wr_id = 1, .flags = SendFlags::Signaled | SendFlags::Inline, .sg_list = sges}),
            Status::Ok);
  first.fill('x');  // allowed at once for an inline send
  second.fill('y');
  fake.runtime_.set_now(1e-6);
  poll_all(*h.send_cq);
  ASSERT_EQ(inner.payloads.size(), 1u);
  EXPECT_EQ(inner.payloads[0], "abcdef");
}

TEST(DelayHook, HeldWrsCountAgainstTheSendQueueAndResetDiscardsThem) {
  auto fake_owned = std::make_unique<FakeDevice>();
  FakeDevice& fake = *fake_owned;
  DelayHook hook(std::move(fake_owned), 1e-3, 0, 1);
  auto cq = hook.create_cq(16);
  QpConfig config;
  config.send_cq = config.recv_cq = cq.get();
  config.max_send_wr = 2;
  auto qp = hook.create_qp(config);
  Address peer = Address::make("fake", Transport::RC, {});
  ASSERT_EQ(qp->connect(&peer), Status::Ok);
  const Sge sge{0, 0, 0};
  EXPECT_EQ(qp->post_send(SendWr{.wr_id = 1, .sg_list = std::span(&sge, 1)}), Status::Ok);
  EXPECT_EQ(qp->post_send(SendWr{.wr_id = 2, .sg_list = std::span(&sge, 1)}), Status::Ok);
  EXPECT_EQ(qp->post_send(SendWr{.wr_id = 3, .sg_list = std::span(&sge, 1)}), Status::NoResource);
  EXPECT_NE(qp->last_error().find("delay hook"), std::string::npos) << qp->last_error();
  // A full inner send queue when they are due: they wait, first in line, for a poll.
  FakeQp& inner = fake.qp(qp->qp_num());
  inner.refuse_sends = true;
  fake.runtime_.set_now(1e-3);
  EXPECT_EQ(hook.release_due(), 0u);
  EXPECT_EQ(hook.held(), 2u);
  EXPECT_EQ(hook.next_due(), Runtime::kForever) << "a blocked line does not cut waits";
  inner.refuse_sends = false;
  poll_all(*cq);
  EXPECT_EQ(inner.sends, (std::vector<uint64_t>{1, 2}));
  // RESET discards what is held.
  EXPECT_EQ(qp->post_send(SendWr{.wr_id = 4, .sg_list = std::span(&sge, 1)}), Status::Ok);
  ASSERT_EQ(qp->to_reset(), Status::Ok);
  EXPECT_EQ(hook.held(), 0u);
  EXPECT_EQ(hook.counters().discarded, 1u);
  fake.runtime_.set_now(1.0);
  poll_all(*cq);
  EXPECT_EQ(inner.sends, (std::vector<uint64_t>{1, 2}));
}

TEST(DelayHook, BadParametersAreClearErrors) {
  FakeDevice fake;
  const auto message = [&](double mean, double jitter) -> std::string {
    try {
      DelayHook hook(fake, mean, jitter, 1);
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidArgument);
      return e.what();
    }
    ADD_FAILURE() << "mean " << mean << " jitter " << jitter << " was accepted";
    return "";
  };
  EXPECT_NE(message(-1e-6, 0).find("mean delay"), std::string::npos);
  EXPECT_NE(message(std::nan(""), 0).find("mean delay"), std::string::npos);
  EXPECT_NE(message(7200, 0).find("mean delay"), std::string::npos);
  EXPECT_NE(message(1e-6, -1e-6).find("jitter"), std::string::npos);
  EXPECT_NE(message(1e-6, std::numeric_limits<double>::infinity()).find("jitter"), std::string::npos);
  const std::string too_wide = message(1e-6, 2e-6);
  EXPECT_NE(too_wide.find("jitter must be <= mean"), std::string::npos) << too_wide;
  EXPECT_NO_THROW((DelayHook{fake, 1e-6, 1e-6, 1}));
}

// ------------------------------------------------------------------ TraceHook

TEST(TraceHook, SeesEveryWorkRequestAndCompletion) {
  FakeDevice fake;
  std::vector<TraceEvent> events;
  TraceHook hook(fake, [&](const TraceEvent& e) { events.push_back(e); });
  HookedQp h = make_qp(hook, Transport::RC);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  const uint32_t qp = h.qp->qp_num();

  std::array<char, 256> buffer{};
  auto mr = hook.register_memory(buffer.data(), buffer.size(), kAllAccess);
  const std::array<Sge, 2> two{mr->sge(0, 100), mr->sge(100, 28)};

  fake.runtime_.set_now(1.5);
  ASSERT_EQ(h.qp->post_recv(RecvWr{1, two}), Status::Ok);
  ASSERT_EQ(h.qp->post_recv(RecvWr{2, std::span<const Sge>(two).first(1)}), Status::Ok);
  fake.runtime_.set_now(2.0);
  ASSERT_EQ(h.qp->post_send(SendWr{.wr_id = 10, .opcode = Opcode::RdmaWrite, .sg_list = two}), Status::Ok);
  ASSERT_EQ(h.qp->post_send(SendWr{.wr_id = 11, .opcode = Opcode::SendWithImm, .flags = SendFlags::None,
                                   .sg_list = std::span<const Sge>(two).first(1), .imm_data = 0xab}),
            Status::Ok);
  ASSERT_TRUE(inner.deliver("hello", 0));
  ASSERT_TRUE(inner.deliver("world!", 0));
  fake.runtime_.set_now(3.25);
  EXPECT_EQ(poll_all(*h.recv_cq).size(), 2u);
  EXPECT_EQ(poll_all(*h.send_cq).size(), 1u);  // the unsignaled send has none

  // A refused post is traced with its status.
  auto idle = hook.create_qp(QpConfig{.transport = Transport::RC, .send_cq = h.send_cq.get(), .recv_cq = h.recv_cq.get()});
  EXPECT_EQ(idle->post_recv(RecvWr{99, {}}), Status::InvalidState);

  ASSERT_EQ(events.size(), 8u);
  using Kind = TraceEvent::Kind;
  EXPECT_EQ(events[0].kind, Kind::PostRecv);
  EXPECT_EQ(events[0].time, 1.5);
  EXPECT_EQ(events[0].qp_num, qp);
  EXPECT_EQ(events[0].wr_id, 1u);
  EXPECT_EQ(events[0].bytes, 128u);
  EXPECT_EQ(events[0].device, "fake0");
  EXPECT_EQ(events[1].bytes, 100u);

  EXPECT_EQ(events[2].kind, Kind::PostSend);
  EXPECT_EQ(events[2].time, 2.0);
  EXPECT_EQ(events[2].opcode, Opcode::RdmaWrite);
  EXPECT_EQ(events[2].wr_id, 10u);
  EXPECT_EQ(events[2].bytes, 128u);
  EXPECT_TRUE(events[2].signaled);
  EXPECT_EQ(events[2].post_status, Status::Ok);
  EXPECT_EQ(events[3].opcode, Opcode::SendWithImm);
  EXPECT_FALSE(events[3].signaled);
  EXPECT_TRUE(events[3].has_imm);
  EXPECT_EQ(events[3].imm_data, 0xabu);

  for (int i : {4, 5, 6}) {
    EXPECT_EQ(events[i].kind, Kind::Completion) << i;
    EXPECT_EQ(events[i].time, 3.25) << i;
    EXPECT_EQ(events[i].qp_num, qp) << i;
    EXPECT_EQ(events[i].wc_status, WcStatus::Success) << i;
  }
  EXPECT_EQ(events[4].wc_opcode, WcOpcode::Recv);
  EXPECT_EQ(events[4].wr_id, 1u);
  EXPECT_EQ(events[4].bytes, 5u);
  EXPECT_EQ(events[5].wr_id, 2u);
  EXPECT_EQ(events[5].bytes, 6u);
  EXPECT_EQ(events[6].wc_opcode, WcOpcode::Send);
  EXPECT_EQ(events[6].wr_id, 10u);

  EXPECT_EQ(events[7].kind, Kind::PostRecv);
  EXPECT_EQ(events[7].qp_num, idle->qp_num());
  EXPECT_EQ(events[7].post_status, Status::InvalidState);

  EXPECT_EQ(format_trace_event(events[2]), fmt::format("2.000000000 fake0 qp {} post_send RDMA_WRITE wr_id 10 bytes 128 -> Ok", qp));
  EXPECT_EQ(format_trace_event(events[4]), fmt::format("3.250000000 fake0 qp {} completion RECV wr_id 1 bytes 5 IBV_WC_SUCCESS", qp));
}

TEST(TraceHook, TracesSrqPosts) {
  FakeDevice fake;
  std::vector<TraceEvent> events;
  TraceHook hook(fake, [&](const TraceEvent& e) { events.push_back(e); });
  auto srq = hook.create_srq(8, 1);
  ASSERT_EQ(srq->post_recv(RecvWr{5, {}}), Status::Ok);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, TraceEvent::Kind::PostSrqRecv);
  EXPECT_EQ(events[0].wr_id, 5u);
}

TEST(TraceHook, EmptySinkIsRefusedAndSpdlogSinkWorks) {
  FakeDevice fake;
  EXPECT_THROW((TraceHook{fake, TraceSink{}}), Error);
  TraceHook hook(fake, spdlog_trace_sink());
  HookedQp h = make_qp(hook, Transport::RC);
  EXPECT_EQ(h.qp->post_send(SendWr{.wr_id = 1}), Status::Ok);
  EXPECT_EQ(poll_all(*h.send_cq).size(), 1u);
}

// ------------------------------------------------------------------ stacking

TEST(HookStack, TraceAboveDropSeesSurvivorsTraceBelowSeesEverything) {
  auto fake_owned = std::make_unique<FakeDevice>();
  FakeDevice& fake = *fake_owned;
  std::vector<TraceEvent> below, above;
  auto below_hook = std::make_unique<TraceHook>(std::move(fake_owned), [&](const TraceEvent& e) { below.push_back(e); });
  auto drop_owned = std::make_unique<DropHook>(std::move(below_hook), 1.0, 9);
  DropHook& drop = *drop_owned;
  TraceHook top(std::move(drop_owned), [&](const TraceEvent& e) { above.push_back(e); });

  HookedQp h = make_qp(top, Transport::UD);
  FakeQp& inner = fake.qp(h.qp->qp_num());
  EXPECT_EQ(&h.recv_cq->underlying(), static_cast<CompletionQueue*>(fake.last_cq)) << "underlying() crosses the whole stack";
  ASSERT_EQ(h.qp->post_recv(RecvWr{1, {}}), Status::Ok);
  ASSERT_TRUE(inner.deliver("x", kSenderQp));
  EXPECT_TRUE(poll_all(*h.recv_cq).empty());
  drop.set_probability(0);
  ASSERT_TRUE(inner.deliver("y", kSenderQp));
  EXPECT_EQ(poll_all(*h.recv_cq).size(), 1u);

  // above: post_recv, the surviving completion. below: post_recv, dropped completion,
  // the hook's re-post, the surviving completion.
  ASSERT_EQ(above.size(), 2u);
  EXPECT_EQ(above[0].kind, TraceEvent::Kind::PostRecv);
  EXPECT_EQ(above[1].kind, TraceEvent::Kind::Completion);
  ASSERT_EQ(below.size(), 4u);
  EXPECT_EQ(below[0].kind, TraceEvent::Kind::PostRecv);
  EXPECT_EQ(below[1].kind, TraceEvent::Kind::Completion);
  EXPECT_EQ(below[2].kind, TraceEvent::Kind::PostRecv);
  EXPECT_EQ(below[2].wr_id, 1u);
  EXPECT_EQ(below[3].kind, TraceEvent::Kind::Completion);
}

}  // namespace
}  // namespace twinfab::fabric::hook
