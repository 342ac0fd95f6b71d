// Shared helpers of the fabric conformance suite.
//
// Every test is a TEST_P of a fixture derived from ConformanceTest, instantiated once
// per backend of available_backends(). A test body runs through run_on_backend(), which
// hands it two devices `a` and `b` that reach each other. Conventions:
//
// - Waiting: only through `device.runtime().wait({cqs of that device}, deadline)`, with
//   a bounded deadline (kTimeout from now: simulated seconds in the simulator, real
//   seconds on hardware), so that a broken backend fails a test instead of hanging it.
//   Each wait names the CQs of one device and uses that device's runtime.
// - Connections: the QP on `a` is the active side. On a device that needs a
//   connection manager both sides call connect() until both return Ok; when the
//   active side must send first (iWARP), connect_endpoints() makes `a` send one
//   handshake message to `b` (consumed by the helper) before the test starts.
// - Capabilities: a test that needs something the device lacks calls GTEST_SKIP()
//   with "device lacks <capability>"; never a silent pass.
// - Failures in helpers are reported with ADD_FAILURE and an empty/false result; the
//   test then ASSERTs on the result.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/error.hpp"
#include "tests/fabric/test_backend.hpp"

// gtest prints these through ADL: failures show "InvalidArgument", not "4-byte object".
namespace twinfab::fabric {
inline void PrintTo(Status s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(WcStatus s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(WcOpcode op, std::ostream* os) { *os << to_string(op); }
inline void PrintTo(Opcode op, std::ostream* os) { *os << to_string(op); }
inline void PrintTo(QpState s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(Transport t, std::ostream* os) { *os << to_string(t); }
}  // namespace twinfab::fabric

namespace twinfab::testing {

inline void PrintTo(const std::shared_ptr<TestBackend>& backend, std::ostream* os) { *os << backend->name(); }

using fabric::Access;
using fabric::Address;
using fabric::CompletionQueue;
using fabric::Device;
using fabric::MemoryRegion;
using fabric::Opcode;
using fabric::QpConfig;
using fabric::QpState;
using fabric::QueuePair;
using fabric::RecvWr;
using fabric::Runtime;
using fabric::SendFlags;
using fabric::SendWr;
using fabric::Sge;
using fabric::SharedReceiveQueue;
using fabric::Status;
using fabric::Transport;
using fabric::WcOpcode;
using fabric::WcStatus;
using fabric::WorkCompletion;

/// Upper bound of every wait (simulated or real seconds).
inline constexpr double kTimeout = 5.0;
/// How long a test watches for something that must not happen (a completion that
/// must not come, data that must not land).
inline constexpr double kQuietWindow = 0.05;

// ------------------------------------------------------------------ fixture

class ConformanceTest : public ::testing::TestWithParam<std::shared_ptr<TestBackend>> {
 protected:
  /// Runs `body` on the backend's two devices.
  void run_on_backend(const std::function<void(Device& a, Device& b)>& body) { GetParam()->run(body); }
};

/// "sim_ideal" etc.: the parameter name of a test instance.
std::string backend_name(const ::testing::TestParamInfo<std::shared_ptr<TestBackend>>& info);

/// Instantiates fixture `Fixture` (derived from ConformanceTest) for every backend.
/// An empty backend list is reported once, by ConformanceSetup.AtLeastOneBackend,
/// instead of as an "uninstantiated suite" per fixture.
#define TWINFAB_INSTANTIATE_CONFORMANCE(Fixture)                                                    \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Fixture);                                           \
  INSTANTIATE_TEST_SUITE_P(Conformance, Fixture, ::testing::ValuesIn(::twinfab::testing::available_backends()), \
                           ::twinfab::testing::backend_name)

// ------------------------------------------------------------------ buffers

/// Byte `i` of pattern `seed`: varies with both, so shifted or mixed-up data shows.
uint8_t pattern_byte(uint32_t seed, size_t i);
void fill_pattern(std::span<uint8_t> bytes, uint32_t seed, size_t first_index = 0);

/// A heap buffer (8-byte aligned, so atomics can target it) registered on a device.
/// `guard` extra bytes before and after the registered range are allocated but not
/// registered, so a test can check that nothing was written just outside the region.
class RegisteredBuffer {
 public:
  RegisteredBuffer(Device& device, size_t size, Access access = fabric::kAllAccess, size_t guard = 0);

  uint8_t* data() noexcept { return base() + guard_; }
  const uint8_t* data() const noexcept { return base() + guard_; }
  size_t size() const noexcept { return size_; }
  std::span<uint8_t> bytes() noexcept { return {data(), size_}; }
  /// The registered range plus the guard bytes on both sides.
  std::span<uint8_t> with_guards() noexcept { return {base(), size_ + 2 * guard_}; }
  MemoryRegion& mr() noexcept { return *mr_; }

  Sge sge(size_t offset, uint32_t length) const noexcept { return mr_->sge(offset, length); }
  uint64_t remote_addr(size_t offset = 0) const noexcept { return mr_->remote_addr(offset); }
  uint32_t rkey() const noexcept { return mr_->rkey(); }
  uint32_t lkey() const noexcept { return mr_->lkey(); }

  void fill(uint8_t value);
  void fill_pattern(uint32_t seed);
  uint64_t word(size_t offset) const;  ///< 8 bytes at `offset`, host order
  void set_word(size_t offset, uint64_t value);

 private:
  uint8_t* base() noexcept { return reinterpret_cast<uint8_t*>(storage_.data()); }
  const uint8_t* base() const noexcept { return reinterpret_cast<const uint8_t*>(storage_.data()); }

  size_t size_;
  size_t guard_;
  std::vector<uint64_t> storage_;
  std::unique_ptr<MemoryRegion> mr_;
};

// ------------------------------------------------------------------ endpoints

/// A QP with its CQs (owned unless given in the config) and, optionally, an SRQ it
/// receives from (not owned). Members are ordered so the QP dies before its CQs.
struct Endpoint {
  Device* device = nullptr;
  std::unique_ptr<CompletionQueue> own_send_cq;
  std::unique_ptr<CompletionQueue> own_recv_cq;
  CompletionQueue* send_cq = nullptr;
  CompletionQueue* recv_cq = nullptr;
  SharedReceiveQueue* srq = nullptr;
  std::unique_ptr<QueuePair> qp;

  /// Posts to the SRQ when the QP has one, else to the QP.
  Status post_recv(const RecvWr& wr);
  Status post_send(const SendWr& wr) { return qp->post_send(wr); }
  uint32_t qp_num() const { return qp->qp_num(); }
};

/// A QP of config.transport on `device`; CQs of `config` that are null are created
/// (capacity 512). Throws what create_qp throws.
Endpoint make_endpoint(Device& device, QpConfig config);

/// A QpConfig with the given transport and the helpers' defaults.
QpConfig qp_config(Transport transport);

/// Connects two RC/UC endpoints: exchanges local_address(), calls connect() on both
/// until both return Ok (InProgress means "call again", bounded by kTimeout), then,
/// if the device's active side must send first, makes `active` (the QP on `a`) send a
/// handshake message that `passive` receives. Adds a gtest failure and returns false
/// when something goes wrong.
bool connect_endpoints(Endpoint& active, Endpoint& passive);

/// Brings a UD endpoint to RTS (connect(nullptr), bounded like connect_endpoints).
bool activate_ud(Endpoint& endpoint);

/// A UD endpoint on `device`, in RTS; its `qp` is null after a gtest failure.
Endpoint make_ud_endpoint(Device& device);

/// Two connected endpoints: `a` on device a (active side), `b` on device b.
struct ConnectedPair {
  Endpoint a;
  Endpoint b;
};

/// A connected RC/UC pair with the given configs (transport taken from them), or
/// nullptr after a gtest failure.
std::unique_ptr<ConnectedPair> make_connected_pair(Device& a, Device& b, QpConfig config_a, QpConfig config_b);
std::unique_ptr<ConnectedPair> make_connected_pair(Device& a, Device& b, Transport transport);

// ------------------------------------------------------------------ completions

/// Polls `cq` (of `device`) until `n` completions arrived or `timeout` passed; returns
/// all that arrived (the caller checks the count).
std::vector<WorkCompletion> poll_n(Device& device, CompletionQueue& cq, size_t n, double timeout = kTimeout);
/// Polls `cq` for `window` seconds and returns everything that arrived.
std::vector<WorkCompletion> poll_for(Device& device, CompletionQueue& cq, double window = kQuietWindow);
/// Polls once, without waiting.
std::vector<WorkCompletion> poll_now(CompletionQueue& cq);


/// Waits until `placed()` holds (memory written by the device), re-checking whenever
/// `device`'s runtime wakes: at once when data lands (simulator), or after a short spin
/// (hardware). False after `timeout`.
bool wait_for_memory(Device& device, const std::function<bool()>& placed, double timeout = kTimeout);

/// Whether an RC RDMA write's completion at the initiator means its data is already
/// placed at the target: true on InfiniBand/RoCE (the ACK follows placement), false on
/// iWARP (a write completes once handed to TCP).
bool write_completion_implies_placement(const Device& device);

/// Whether the device has RC receiver-not-ready flow control (RNR NAK and retry).
/// iWARP has none: a send that finds no receive is a fatal connection error.
bool has_rnr_flow_control(const Device& device);

/// Whether a remote access error (bad rkey, out of bounds, missing access flag) comes
/// back to the initiator as the completion of the faulty WR: true on InfiniBand/RoCE
/// (the responder NAKs it: RemoteAccessError, later WRs flushed). False on iWARP: the
/// target reports the error in a TERMINATE message and closes the connection; an RDMA
/// write is not acknowledged, so the faulty write may already have completed
/// successfully at the initiator (its data only handed to TCP), and a read still
/// waiting for its response is flushed when the connection goes down.
bool remote_access_errors_complete_the_faulty_wr(const Device& device);

/// Polls `qp.state()` (a QP of `device`) until it is `state`; false after `timeout`.
bool wait_for_state(Device& device, QueuePair& qp, QpState state, double timeout = kTimeout);

/// "wr_id 3 RECV IBV_WC_SUCCESS byte_len 10 qp 5 ..." for failure messages.
std::string describe(const WorkCompletion& wc);

/// Posts `wr` and expects Ok (gtest failure with last_error otherwise).
::testing::AssertionResult posted(QueuePair& qp, const SendWr& wr);
::testing::AssertionResult posted(Endpoint& ep, const RecvWr& wr);

/// Whether `e` holds a fabric::Error with `status`; the message must say something.
::testing::AssertionResult is_error(const fabric::Error& e, Status status);

/// Device cannot be used for a test that needs `what`: "device lacks <what>".
std::string lacks(const std::string& what);

}  // namespace twinfab::testing
