#include "fabric/types.hpp"

#include <fmt/format.h>

#include "fabric/error.hpp"
#include "fabric/queue_pair.hpp"

namespace twinfab::fabric {

void check_qp_config(const QpConfig& config) {
  if (config.transport != Transport::RC && config.transport != Transport::UC && config.transport != Transport::UD)
    throw Error(Status::InvalidArgument,
                fmt::format("create_qp: transport {} is not a fabric::Transport", static_cast<int>(config.transport)));
  const auto check = [](const char* name, const std::optional<uint8_t>& value, unsigned max) {
    if (value && *value > max)
      throw Error(Status::InvalidArgument,
                  fmt::format("create_qp: {} = {} is outside 0..{} (its verbs encoding)", name, *value, max));
  };
  check("ack_timeout", config.ack_timeout, 31);
  check("min_rnr_timer", config.min_rnr_timer, 31);
  check("retry_count", config.retry_count, 7);
  check("rnr_retry", config.rnr_retry, 7);
}

RcReliability resolve_reliability(const QpConfig& config, const RcReliability& device_default) noexcept {
  return RcReliability{config.ack_timeout.value_or(device_default.ack_timeout),
                       config.retry_count.value_or(device_default.retry_count),
                       config.rnr_retry.value_or(device_default.rnr_retry),
                       config.min_rnr_timer.value_or(device_default.min_rnr_timer)};
}

void check_access(Access access) {
  constexpr auto known = static_cast<uint32_t>(Access::LocalWrite | Access::RemoteWrite | Access::RemoteRead |
                                               Access::RemoteAtomic);
  if ((static_cast<uint32_t>(access) & ~known) != 0)
    throw Error(Status::InvalidArgument,
                fmt::format("register_memory: access {:#x} has bits that are no fabric::Access flag",
                            static_cast<uint32_t>(access)));
  // The contract mirrors verbs here instead of silently adding LocalWrite, which would
  // let receives land in memory the caller registered read-only.
  if ((has(access, Access::RemoteWrite) || has(access, Access::RemoteAtomic)) && !has(access, Access::LocalWrite))
    throw Error(Status::InvalidArgument,
                "register_memory: RemoteWrite and RemoteAtomic need LocalWrite too (verbs rule: "
                "IBV_ACCESS_REMOTE_WRITE/ATOMIC require IBV_ACCESS_LOCAL_WRITE)");
}

std::string_view to_string(Transport t) noexcept {
  switch (t) {
    case Transport::RC: return "RC";
    case Transport::UC: return "UC";
    case Transport::UD: return "UD";
  }
  return "?";
}

std::string_view to_string(QpState s) noexcept {
  switch (s) {
    case QpState::Reset: return "RESET";
    case QpState::Init: return "INIT";
    case QpState::ReadyToReceive: return "RTR";
    case QpState::ReadyToSend: return "RTS";
    case QpState::Error: return "ERR";
  }
  return "?";
}

std::string_view to_string(Opcode op) noexcept {
  switch (op) {
    case Opcode::Send: return "SEND";
    case Opcode::SendWithImm: return "SEND_WITH_IMM";
    case Opcode::RdmaWrite: return "RDMA_WRITE";
    case Opcode::RdmaWriteWithImm: return "RDMA_WRITE_WITH_IMM";
    case Opcode::RdmaRead: return "RDMA_READ";
    case Opcode::AtomicCompareSwap: return "ATOMIC_CMP_AND_SWP";
    case Opcode::AtomicFetchAdd: return "ATOMIC_FETCH_AND_ADD";
  }
  return "?";
}

std::string_view to_string(WcOpcode op) noexcept {
  switch (op) {
    case WcOpcode::Send: return "SEND";
    case WcOpcode::RdmaWrite: return "RDMA_WRITE";
    case WcOpcode::RdmaRead: return "RDMA_READ";
    case WcOpcode::CompareSwap: return "COMP_SWAP";
    case WcOpcode::FetchAdd: return "FETCH_ADD";
    case WcOpcode::Recv: return "RECV";
    case WcOpcode::RecvRdmaWithImm: return "RECV_RDMA_WITH_IMM";
  }
  return "?";
}

std::string_view to_string(WcStatus s) noexcept {
  switch (s) {
    case WcStatus::Success: return "IBV_WC_SUCCESS";
    case WcStatus::LocalLengthError: return "IBV_WC_LOC_LEN_ERR";
    case WcStatus::LocalQpOperationError: return "IBV_WC_LOC_QP_OP_ERR";
    case WcStatus::LocalEecOperationError: return "IBV_WC_LOC_EEC_OP_ERR";
    case WcStatus::LocalProtectionError: return "IBV_WC_LOC_PROT_ERR";
    case WcStatus::WrFlushError: return "IBV_WC_WR_FLUSH_ERR";
    case WcStatus::MemoryWindowBindError: return "IBV_WC_MW_BIND_ERR";
    case WcStatus::BadResponseError: return "IBV_WC_BAD_RESP_ERR";
    case WcStatus::LocalAccessError: return "IBV_WC_LOC_ACCESS_ERR";
    case WcStatus::RemoteInvalidRequestError: return "IBV_WC_REM_INV_REQ_ERR";
    case WcStatus::RemoteAccessError: return "IBV_WC_REM_ACCESS_ERR";
    case WcStatus::RemoteOperationError: return "IBV_WC_REM_OP_ERR";
    case WcStatus::RetryExceededError: return "IBV_WC_RETRY_EXC_ERR";
    case WcStatus::RnrRetryExceededError: return "IBV_WC_RNR_RETRY_EXC_ERR";
    case WcStatus::LocalRddViolationError: return "IBV_WC_LOC_RDD_VIOL_ERR";
    case WcStatus::RemoteInvalidRdRequest: return "IBV_WC_REM_INV_RD_REQ_ERR";
    case WcStatus::RemoteAbortError: return "IBV_WC_REM_ABORT_ERR";
    case WcStatus::InvalidEecnError: return "IBV_WC_INV_EECN_ERR";
    case WcStatus::InvalidEecStateError: return "IBV_WC_INV_EEC_STATE_ERR";
    case WcStatus::FatalError: return "IBV_WC_FATAL_ERR";
    case WcStatus::ResponseTimeoutError: return "IBV_WC_RESP_TIMEOUT_ERR";
    case WcStatus::GeneralError: return "IBV_WC_GENERAL_ERR";
  }
  return "?";
}

}  // namespace twinfab::fabric
