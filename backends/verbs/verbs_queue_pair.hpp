// Internal: a queue pair over ibv_qp (RC, UC, UD), with the contract's state machine.
//
// IB/RoCE: connect() is the classic INIT -> RTR -> RTS with the peer's route from its
// blob. iWARP: the QP goes to INIT here and rdma_cm (CmConnection) does the rest; the
// provider moves it to RTS when the connection is established.
//
// Checks that verbs leaves to the provider (or to luck) are done before posting, so
// that every refusal is a status plus a last_error() that names the reason: opcodes
// the device or transport lacks (Unsupported), malformed requests (InvalidArgument),
// posting in the wrong state (InvalidState).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "backends/verbs/verbs_address.hpp"
#include "fabric/queue_pair.hpp"

namespace twinfab::verbs {

class CmConnection;
class VerbsDevice;

class VerbsQueuePair final : public fabric::QueuePair {
 public:
  /// Throws fabric::Error: Unsupported for a transport the device lacks,
  /// InvalidArgument for missing/foreign CQs or SRQ and sizes beyond the device's
  /// limits.
  VerbsQueuePair(VerbsDevice& device, const fabric::QpConfig& config);
  ~VerbsQueuePair() override;
  VerbsQueuePair(const VerbsQueuePair&) = delete;
  VerbsQueuePair& operator=(const VerbsQueuePair&) = delete;

  uint32_t qp_num() const noexcept override { return qp_->qp_num; }
  fabric::Transport transport() const noexcept override { return transport_; }
  /// The cached state, refreshed from the device while the QP is RTR/RTS (the device
  /// moves it to ERR on its own after an error completion): a system call then, so
  /// keep it off the data path.
  fabric::QpState state() const noexcept override;
  fabric::Address local_address() const override;

  fabric::Status to_init() override;
  fabric::Status to_rtr(const fabric::Address* remote) override;
  fabric::Status to_rts() override;
  fabric::Status to_error() override;
  fabric::Status to_reset() override;
  fabric::Status connect(const fabric::Address* remote) override;

  fabric::Status post_send(const fabric::SendWr& wr) override;
  fabric::Status post_recv(const fabric::RecvWr& wr) override;
  const std::string& last_error() const noexcept override { return last_error_; }

 private:
  fabric::Status fail(fabric::Status status, std::string message);
  fabric::Status modify(ibv_qp_attr& attr, int mask, fabric::QpState target, const char* step);
  fabric::Status connect_through_cm(const fabric::Address* remote);
  /// Checks a send WR against device capabilities, the transport and this QP's sizes.
  fabric::Status check_send(const fabric::SendWr& wr, uint64_t total_bytes) {
    // What almost every post is (an MPI packet or rendezvous transfer): a send, RDMA
    // write or read on RC within the QP's SGE and inline limits, accepted by this one
    // inline test; check_send_fully() finds what is wrong with anything else.
    const fabric::Opcode op = wr.opcode;
    if (transport_ == fabric::Transport::RC &&
        (op == fabric::Opcode::Send || op == fabric::Opcode::RdmaWrite || op == fabric::Opcode::RdmaRead) &&
        wr.sg_list.size() <= config_.max_send_sge &&
        (!fabric::has(wr.flags, fabric::SendFlags::Inline) ||
         (op != fabric::Opcode::RdmaRead && total_bytes <= config_.max_inline)))
      return fabric::Status::Ok;
    return check_send_fully(wr, total_bytes);
  }
  fabric::Status check_send_fully(const fabric::SendWr& wr, uint64_t total_bytes);
  IwarpEndpoint cm_endpoint() const;
  std::string name() const;
  /// Why a WR cannot be posted to an iWARP QP in ERR (`call`: "post_send", ...).
  std::string closed_connection_message(const char* call) const;

  VerbsDevice& device_;
  ibv_qp* qp_ = nullptr;
  fabric::Transport transport_;
  fabric::QpConfig config_;  // WRs are checked against what was asked, not what the provider rounded up to
  fabric::RcReliability reliability_;  // the config's, else the verbs defaults (RcReliability{})
  uint32_t psn_ = 0;
  mutable fabric::QpState state_ = fabric::QpState::Reset;
  std::optional<RoutedEndpoint> remote_;   // IB/RoCE RC/UC, set by to_rtr
  std::unique_ptr<CmConnection> cm_;       // iWARP only
  std::string last_error_;
};

}  // namespace twinfab::verbs
