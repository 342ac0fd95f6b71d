// twinfab fabric contract: queue pairs.
//
// State machine as in verbs: RESET -> INIT -> RTR -> RTS; any state -> ERR; any -> RESET.
// Posting receives needs INIT or later; posting sends needs RTS. Posting in RESET is
// Status::InvalidState (never a crash). A QP in ERR completes every outstanding and
// newly posted WR with WcStatus::WrFlushError — except on connection-manager (iWARP)
// devices, where a post in ERR is refused with InvalidState (soft-iWARP would silently
// drop it, cxgb4 refuses it) and WRs outstanding when the connection dropped may never
// complete. On iWARP an RDMA write is not acknowledged: a remote access error shows as
// the connection being torn down (the QP reaches ERR), not always as a completion.
//
// Connection: exchange `local_address()` out of band and call `connect(peer)` on both
// sides (RC/UC), or `connect(nullptr)` for UD. Devices that need a connection manager
// (iWARP) complete the handshake inside connect(), waiting only through their runtime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fabric/address.hpp"
#include "fabric/status.hpp"
#include "fabric/types.hpp"

namespace twinfab::fabric {

class CompletionQueue;
class SharedReceiveQueue;

/// The RC reliability settings a QP runs with, in the verbs encodings. The defaults are
/// the usual verbs settings (what MVAPICH2 and Open MPI use, but for a shorter ACK
/// timeout than their 20 = 4.3 s).
struct RcReliability {
  uint8_t ack_timeout = 14;    ///< local ACK timeout = 4.096 us * 2^ack_timeout (67 ms); 0 = infinite
  uint8_t retry_count = 7;     ///< losses in a row before RetryExceededError
  uint8_t rnr_retry = 7;       ///< RNR retries before RnrRetryExceededError; 7 = infinite
  uint8_t min_rnr_timer = 12;  ///< what a sender waits after an RNR NAK of ours; 12 = 0.64 ms
};

/// What create_qp needs. The RC reliability knobs use the verbs encodings.
struct QpConfig {
  Transport transport = Transport::RC;
  CompletionQueue* send_cq = nullptr;
  CompletionQueue* recv_cq = nullptr;
  SharedReceiveQueue* srq = nullptr;  ///< receives come from the SRQ when set
  uint32_t max_send_wr = 256;
  uint32_t max_recv_wr = 256;
  uint32_t max_send_sge = 4;
  uint32_t max_recv_sge = 4;
  uint32_t max_inline = 64;
  uint32_t qkey = 0x11111111;  ///< UD
  /// RC reliability (RcReliability's fields). Unset, a field takes the device's
  /// default: the simulator's is the platform's `[hca]` value, a verbs device's the
  /// RcReliability default.
  std::optional<uint8_t> ack_timeout{};
  std::optional<uint8_t> retry_count{};
  std::optional<uint8_t> rnr_retry{};
  std::optional<uint8_t> min_rnr_timer{};
};

/// A UD queue pair's configuration as message-passing layers post to one: one scatter
/// entry per work request, no inline data, `send`/`recv` as its CQs.
inline QpConfig ud_qp_config(CompletionQueue* send, CompletionQueue* recv, uint32_t max_send_wr,
                             uint32_t max_recv_wr) noexcept {
  QpConfig c;
  c.transport = Transport::UD;
  c.send_cq = send;
  c.recv_cq = recv;
  c.max_send_wr = max_send_wr;
  c.max_recv_wr = max_recv_wr;
  c.max_send_sge = 1;
  c.max_recv_sge = 1;
  c.max_inline = 0;
  return c;
}

/// `config`'s RC reliability fields where set, `device_default`'s where not.
RcReliability resolve_reliability(const QpConfig& config, const RcReliability& device_default) noexcept;

/// Throws fabric::Error(InvalidArgument) for a QpConfig no backend can honour the same
/// way: a transport value that names none, and reliability fields outside their verbs
/// widths (ack_timeout and min_rnr_timer 0..31, retry_count and rnr_retry 0..7; a
/// verbs provider would take the low bits, the simulator the whole value). Every
/// backend's create_qp() calls it first.
void check_qp_config(const QpConfig& config);

/// How long a caller that connects QPs lets a connection-manager handshake progress
/// between connect() calls (simulated or real seconds, through its runtime): short
/// against a handshake's round trips, long enough not to spin.
inline constexpr double kConnectPollSeconds = 1e-5;

class QueuePair {
 public:
  virtual ~QueuePair() = default;

  virtual uint32_t qp_num() const noexcept = 0;
  virtual Transport transport() const noexcept = 0;
  virtual QpState state() const noexcept = 0;
  /// The blob to hand to the peer (out of band).
  virtual Address local_address() const = 0;

  virtual Status to_init() = 0;
  /// RC/UC: `remote` is the peer's blob; UD: nullptr.
  virtual Status to_rtr(const Address* remote) = 0;
  virtual Status to_rts() = 0;
  virtual Status to_error() = 0;
  virtual Status to_reset() = 0;

  /// INIT -> RTR -> RTS. `remote` is nullptr for UD. Non-blocking like everything
  /// else: a device that needs a connection-manager handshake (iWARP) returns
  /// InProgress until the handshake is done; call it again (both sides keep calling,
  /// in any order, waiting kConnectPollSeconds between calls) until it returns Ok or an error.
  /// A QP already in RTS returns Ok and changes nothing (to connect it elsewhere,
  /// to_reset() first); one in ERR is InvalidState: reset it first.
  virtual Status connect(const Address* remote) {
    Status s = state() == QpState::Reset ? to_init() : Status::Ok;
    // From ERR, to_rtr() refuses with its reason (it once returned Ok, doing nothing).
    if (s == Status::Ok && (state() == QpState::Init || state() == QpState::Error)) s = to_rtr(remote);
    if (s == Status::Ok && state() == QpState::ReadyToReceive) s = to_rts();
    return s;
  }

  /// Non-blocking. NoResource when the send queue is full (retry after polling);
  /// InvalidArgument for a malformed WR (too many SGEs, inline too large, UD message
  /// larger than the MTU, atomic not 8 bytes or misaligned); Unsupported for an opcode
  /// the device lacks; InvalidState before RTS. last_error() says which.
  virtual Status post_send(const SendWr& wr) = 0;
  virtual Status post_recv(const RecvWr& wr) = 0;

  /// The reason for the last non-Ok status this QP returned.
  virtual const std::string& last_error() const noexcept = 0;
};

}  // namespace twinfab::fabric
