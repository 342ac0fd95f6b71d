#include "tests/fabric/conformance_helpers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iostream>

namespace twinfab::testing {

std::string backend_name(const ::testing::TestParamInfo<std::shared_ptr<TestBackend>>& info) {
  return info.param->name();
}

TEST(ConformanceSetup, AtLeastOneBackend) {
  const auto backends = available_backends();
  EXPECT_FALSE(backends.empty()) << "no backend registered in available_backends(): the suite tested nothing";
  for (const auto& backend : backends) std::cout << "[ backend  ] " << backend->name() << "\n";
}

std::string lacks(const std::string& what) { return "device lacks " + what; }

// ------------------------------------------------------------------ buffers

uint8_t pattern_byte(uint32_t seed, size_t i) {
  return static_cast<uint8_t>(seed * 131u + i * 7u + (i >> 8) * 13u + 1u);
}

void fill_pattern(std::span<uint8_t> bytes, uint32_t seed, size_t first_index) {
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = pattern_byte(seed, first_index + i);
}

RegisteredBuffer::RegisteredBuffer(Device& device, size_t size, Access access, size_t guard)
    : size_(size), guard_((guard + 7) / 8 * 8), storage_((size + 2 * guard_ + 7) / 8 + 1, 0) {
  mr_ = device.register_memory(data(), size_, access);
}

void RegisteredBuffer::fill(uint8_t value) { std::memset(base(), value, size_ + 2 * guard_); }

void RegisteredBuffer::fill_pattern(uint32_t seed) { twinfab::testing::fill_pattern(bytes(), seed); }

uint64_t RegisteredBuffer::word(size_t offset) const {
  uint64_t v;
  std::memcpy(&v, data() + offset, 8);
  return v;
}

void RegisteredBuffer::set_word(size_t offset, uint64_t value) { std::memcpy(data() + offset, &value, 8); }

// ------------------------------------------------------------------ endpoints

Status Endpoint::post_recv(const RecvWr& wr) { return srq != nullptr ? srq->post_recv(wr) : qp->post_recv(wr); }

QpConfig qp_config(Transport transport) {
  QpConfig config;
  config.transport = transport;
  return config;
}

Endpoint make_endpoint(Device& device, QpConfig config) {
  Endpoint ep;
  ep.device = &device;
  if (config.send_cq == nullptr) {
    ep.own_send_cq = device.create_cq(512);
    config.send_cq = ep.own_send_cq.get();
  }
  if (config.recv_cq == nullptr) {
    ep.own_recv_cq = device.create_cq(512);
    config.recv_cq = ep.own_recv_cq.get();
  }
  ep.send_cq = config.send_cq;
  ep.recv_cq = config.recv_cq;
  ep.srq = config.srq;
  ep.qp = device.create_qp(config);
  return ep;
}

namespace {

// How often the connection loop lets a connection-manager handshake progress.
constexpr double kConnectPollInterval = 1e-5;
constexpr uint64_t kHandshakeWrId = 0x4841'4e44'5348'4b00ull;  // "HANDSHK"

}  // namespace

bool connect_endpoints(Endpoint& active, Endpoint& passive) {
  Device& da = *active.device;
  Device& db = *passive.device;
  const Address addr_a = active.qp->local_address();
  const Address addr_b = passive.qp->local_address();
  bool done_a = false;
  bool done_b = false;
  const double deadline = da.runtime().now() + kTimeout;
  for (;;) {
    if (!done_a) {
      Status s = active.qp->connect(&addr_b);
      if (s == Status::Ok) {
        done_a = true;
      } else if (s != Status::InProgress) {
        ADD_FAILURE() << "connect() of the active QP (on a) returned " << fabric::to_string(s) << ": "
                      << active.qp->last_error();
        return false;
      }
    }
    if (!done_b) {
      Status s = passive.qp->connect(&addr_a);
      if (s == Status::Ok) {
        done_b = true;
      } else if (s != Status::InProgress) {
        ADD_FAILURE() << "connect() of the passive QP (on b) returned " << fabric::to_string(s) << ": "
                      << passive.qp->last_error();
        return false;
      }
    }
    if (done_a && done_b) break;
    if (da.runtime().now() >= deadline) {
      ADD_FAILURE() << "connection not established within " << kTimeout << " s (active done: " << done_a
                    << ", passive done: " << done_b << ")";
      return false;
    }
    // Lets the handshake progress: simulated time advances, or the thread sleeps.
    da.runtime().sleep_for(kConnectPollInterval);
  }
  if (active.qp->state() != QpState::ReadyToSend || passive.qp->state() != QpState::ReadyToSend) {
    ADD_FAILURE() << "connect() returned Ok but the QPs are in " << fabric::to_string(active.qp->state()) << " / "
                  << fabric::to_string(passive.qp->state()) << ", not RTS";
    return false;
  }

  if (da.capabilities().active_side_sends_first) {
    // iWARP: the active side's first message completes the connection.
    RegisteredBuffer out(da, 8);
    RegisteredBuffer in(db, 8);
    out.fill_pattern(0x5a);
    const Sge recv_sge = in.sge(0, 8);
    const Sge send_sge = out.sge(0, 8);
    if (!posted(passive, RecvWr{kHandshakeWrId, std::span(&recv_sge, 1)})) return false;
    if (!posted(*active.qp, SendWr{.wr_id = kHandshakeWrId, .sg_list = std::span(&send_sge, 1)})) return false;
    auto sent = poll_n(da, *active.send_cq, 1);
    auto got = poll_n(db, *passive.recv_cq, 1);
    if (sent.size() != 1 || got.size() != 1 || sent[0].status != WcStatus::Success ||
        got[0].status != WcStatus::Success || got[0].wr_id != kHandshakeWrId) {
      ADD_FAILURE() << "the active side's first (handshake) message did not complete: sent "
                    << (sent.empty() ? "nothing" : describe(sent[0])) << ", received "
                    << (got.empty() ? "nothing" : describe(got[0]));
      return false;
    }
  }
  return true;
}

bool activate_ud(Endpoint& endpoint) {
  Runtime& rt = endpoint.device->runtime();
  const double deadline = rt.now() + kTimeout;
  for (;;) {
    Status s = endpoint.qp->connect(nullptr);
    if (s == Status::Ok) return true;
    if (s != Status::InProgress) {
      ADD_FAILURE() << "connect(nullptr) of a UD QP returned " << fabric::to_string(s) << ": "
                    << endpoint.qp->last_error();
      return false;
    }
    if (rt.now() >= deadline) {
      ADD_FAILURE() << "UD QP not ready within " << kTimeout << " s";
      return false;
    }
    rt.sleep_for(kConnectPollInterval);
  }
}

Endpoint make_ud_endpoint(Device& device) {
  Endpoint ep = make_endpoint(device, qp_config(Transport::UD));
  if (!activate_ud(ep)) ep.qp.reset();
  return ep;
}

std::unique_ptr<ConnectedPair> make_connected_pair(Device& a, Device& b, QpConfig config_a, QpConfig config_b) {
  auto pair = std::make_unique<ConnectedPair>();
  pair->a = make_endpoint(a, config_a);
  pair->b = make_endpoint(b, config_b);
  if (!connect_endpoints(pair->a, pair->b)) return nullptr;
  return pair;
}

std::unique_ptr<ConnectedPair> make_connected_pair(Device& a, Device& b, Transport transport) {
  return make_connected_pair(a, b, qp_config(transport), qp_config(transport));
}

// ------------------------------------------------------------------ completions

namespace {

/// Polls into `out` until it holds `n` completions or `deadline`; `n` = SIZE_MAX for
/// "everything until the deadline".
void poll_until(Device& device, CompletionQueue& cq, size_t n, double deadline, std::vector<WorkCompletion>& out) {
  std::array<WorkCompletion, 16> batch;
  CompletionQueue* const sources[] = {&cq};
  while (out.size() < n) {
    const size_t want = std::min(batch.size(), n - out.size());
    const size_t got = cq.poll(std::span(batch).first(want));
    out.insert(out.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(got));
    if (got > 0) continue;
    if (device.runtime().now() >= deadline) break;
    Status s = device.runtime().wait(sources, deadline);
    if (s != Status::Ok && s != Status::Timeout) {
      ADD_FAILURE() << "Runtime::wait returned " << fabric::to_string(s);
      break;
    }
  }
}

}  // namespace

std::vector<WorkCompletion> poll_n(Device& device, CompletionQueue& cq, size_t n, double timeout) {
  std::vector<WorkCompletion> out;
  poll_until(device, cq, n, device.runtime().now() + timeout, out);
  return out;
}

std::vector<WorkCompletion> poll_for(Device& device, CompletionQueue& cq, double window) {
  std::vector<WorkCompletion> out;
  poll_until(device, cq, SIZE_MAX, device.runtime().now() + window, out);
  return out;
}

std::vector<WorkCompletion> poll_now(CompletionQueue& cq) {
  std::vector<WorkCompletion> out;
  std::array<WorkCompletion, 16> batch;
  while (size_t got = cq.poll(batch)) out.insert(out.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(got));
  return out;
}

bool wait_for_memory(Device& device, const std::function<bool()>& placed, double timeout) {
  Runtime& rt = device.runtime();
  const double deadline = rt.now() + timeout;
  while (!placed()) {
    if (rt.now() >= deadline) return false;
    Status s = rt.wait({}, deadline);
    if (s != Status::Ok && s != Status::Timeout) {
      ADD_FAILURE() << "Runtime::wait returned " << fabric::to_string(s);
      return false;
    }
  }
  return true;
}

bool write_completion_implies_placement(const Device& device) {
  return device.capabilities().link != fabric::LinkKind::IWarp;
}

bool has_rnr_flow_control(const Device& device) { return device.capabilities().link != fabric::LinkKind::IWarp; }

bool remote_access_errors_complete_the_faulty_wr(const Device& device) {
  return device.capabilities().link != fabric::LinkKind::IWarp;
}

bool wait_for_state(Device& device, QueuePair& qp, QpState state, double timeout) {
  Runtime& rt = device.runtime();
  const double deadline = rt.now() + timeout;
  while (qp.state() != state) {
    if (rt.now() >= deadline) return false;
    // Lets the device progress: simulated time advances, or the thread sleeps.
    rt.sleep_for(std::min(1e-3, deadline - rt.now()));
  }
  return true;
}

std::string describe(const WorkCompletion& wc) {
  std::string s = fmt::format("{{wr_id {:#x} {} {} byte_len {} qp {}", wc.wr_id, fabric::to_string(wc.opcode),
                              fabric::to_string(wc.status), wc.byte_len, wc.qp_num);
  if (wc.has_imm) s += fmt::format(" imm {:#x}", wc.imm_data);
  if (wc.src_qp != 0) s += fmt::format(" src_qp {}", wc.src_qp);
  return s + "}";
}

::testing::AssertionResult posted(QueuePair& qp, const SendWr& wr) {
  Status s = qp.post_send(wr);
  if (s == Status::Ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "post_send(wr_id " << wr.wr_id << ", " << fabric::to_string(wr.opcode)
                                       << ") returned " << fabric::to_string(s) << ": " << qp.last_error();
}

::testing::AssertionResult posted(Endpoint& ep, const RecvWr& wr) {
  Status s = ep.post_recv(wr);
  if (s == Status::Ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << (ep.srq ? "SRQ " : "") << "post_recv(wr_id " << wr.wr_id << ") returned "
                                       << fabric::to_string(s) << (ep.srq ? "" : ": " + ep.qp->last_error());
}

::testing::AssertionResult is_error(const fabric::Error& e, Status status) {
  if (e.status() != status) {
    return ::testing::AssertionFailure() << "fabric::Error with status " << fabric::to_string(e.status())
                                         << " (expected " << fabric::to_string(status) << "): " << e.what();
  }
  if (std::strlen(e.what()) == 0) return ::testing::AssertionFailure() << "fabric::Error without a message";
  return ::testing::AssertionSuccess() << e.what();
}

}  // namespace twinfab::testing
