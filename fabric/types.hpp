// twinfab fabric contract: the value types of the verbs-like data path.
//
// These mirror libibverbs (ibv_send_wr, ibv_recv_wr, ibv_wc, ibv_wc_status, access
// flags) closely on purpose: the simulated backend is judged against the behaviour of
// real hardware, so the vocabulary is the hardware's.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace twinfab::fabric {

class AddressHandle;

/// QP transport service.
enum class Transport : uint8_t { RC, UC, UD };
std::string_view to_string(Transport t) noexcept;

/// QP state machine (ibv_qp_state subset): RESET -> INIT -> RTR -> RTS, any -> ERR,
/// any -> RESET.
enum class QpState : uint8_t { Reset, Init, ReadyToReceive, ReadyToSend, Error };
std::string_view to_string(QpState s) noexcept;

/// Memory region access flags (ibv_access_flags). Local read is always allowed.
enum class Access : uint32_t {
  None = 0,
  LocalWrite = 1u << 0,
  RemoteWrite = 1u << 1,
  RemoteRead = 1u << 2,
  RemoteAtomic = 1u << 3,
};
constexpr Access operator|(Access a, Access b) noexcept {
  return static_cast<Access>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr Access operator&(Access a, Access b) noexcept {
  return static_cast<Access>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}
constexpr bool has(Access set, Access flag) noexcept { return (set & flag) == flag; }
/// Throws fabric::Error(InvalidArgument) for access flags verbs refuses: bits that are
/// no Access flag, and RemoteWrite or RemoteAtomic without LocalWrite (ibv_reg_mr(3):
/// IBV_ACCESS_REMOTE_WRITE/ATOMIC require IBV_ACCESS_LOCAL_WRITE). Every backend's
/// register_memory() calls it, so they refuse the same registrations.
void check_access(Access access);
/// Every access right; what a test or a bounce buffer usually wants.
constexpr Access kAllAccess =
    Access::LocalWrite | Access::RemoteWrite | Access::RemoteRead | Access::RemoteAtomic;

/// Send-queue work request opcodes (ibv_wr_opcode).
enum class Opcode : uint8_t {
  Send,
  SendWithImm,
  RdmaWrite,
  RdmaWriteWithImm,
  RdmaRead,
  AtomicCompareSwap,
  AtomicFetchAdd,
};
std::string_view to_string(Opcode op) noexcept;
/// False for a value cast to Opcode that names none (post_send refuses it).
constexpr bool is_valid(Opcode op) noexcept { return op <= Opcode::AtomicFetchAdd; }

/// Completion opcodes (ibv_wc_opcode).
enum class WcOpcode : uint8_t { Send, RdmaWrite, RdmaRead, CompareSwap, FetchAdd, Recv, RecvRdmaWithImm };
std::string_view to_string(WcOpcode op) noexcept;

/// Completion status, one-to-one with ibv_wc_status (same order, same meaning).
enum class WcStatus : uint8_t {
  Success,
  LocalLengthError,
  LocalQpOperationError,
  LocalEecOperationError,
  LocalProtectionError,
  WrFlushError,
  MemoryWindowBindError,
  BadResponseError,
  LocalAccessError,
  RemoteInvalidRequestError,
  RemoteAccessError,
  RemoteOperationError,
  RetryExceededError,
  RnrRetryExceededError,
  LocalRddViolationError,
  RemoteInvalidRdRequest,
  RemoteAbortError,
  InvalidEecnError,
  InvalidEecStateError,
  FatalError,
  ResponseTimeoutError,
  GeneralError,
};
/// The libibverbs spelling, e.g. "IBV_WC_REM_ACCESS_ERR", so logs read like rdma-core's.
std::string_view to_string(WcStatus s) noexcept;

/// Send flags (ibv_send_flags).
enum class SendFlags : uint8_t {
  None = 0,
  Signaled = 1u << 0,  ///< generate a completion (otherwise only on error)
  Inline = 1u << 1,    ///< payload copied at post time; lkey ignored; len <= max_inline
  Fence = 1u << 2,     ///< wait for prior RDMA reads/atomics before starting
  Solicited = 1u << 3,
};
constexpr SendFlags operator|(SendFlags a, SendFlags b) noexcept {
  return static_cast<SendFlags>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}
constexpr bool has(SendFlags set, SendFlags flag) noexcept {
  return (static_cast<uint8_t>(set) & static_cast<uint8_t>(flag)) == static_cast<uint8_t>(flag);
}

/// One scatter/gather element: `length` bytes at virtual address `addr` in the region
/// whose local key is `lkey`.
struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
};

/// A send-queue work request. The SGE span only needs to stay valid during post_send
/// (the device copies the list), like ibv_post_send.
struct SendWr {
  uint64_t wr_id = 0;
  Opcode opcode = Opcode::Send;
  SendFlags flags = SendFlags::Signaled;
  std::span<const Sge> sg_list{};
  uint32_t imm_data = 0;  ///< SendWithImm / RdmaWriteWithImm
  /// RDMA and atomic target. Atomics use exactly 8 bytes at an 8-byte aligned address,
  /// and the single SGE receives the old value.
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;
  uint64_t compare_add = 0;  ///< CAS: compare value; FAA: value to add
  uint64_t swap = 0;         ///< CAS: value written if equal
  /// UD only: where to send (from Device::create_address_handle). Not owned.
  const AddressHandle* ah = nullptr;
};

/// A receive work request. On UD the first 40 bytes of the buffer receive the GRH
/// area (as in verbs); twinfab backends leave it untouched but reserve it.
struct RecvWr {
  uint64_t wr_id = 0;
  std::span<const Sge> sg_list{};
};

/// UD receive buffers start with this many bytes reserved for the global routing
/// header, exactly as in verbs; the payload follows.
inline constexpr uint32_t kUdGrhBytes = 40;

/// A work completion (ibv_wc).
// The one-byte fields last: 32 bytes rather than 40 with padding after each (every CQ
// ring entry and every channel's poll buffer holds one; memory per simulated rank).
struct WorkCompletion {
  uint64_t wr_id = 0;
  uint32_t byte_len = 0;  ///< receives: payload bytes (UD: including the 40-byte GRH)
  uint32_t imm_data = 0;
  uint32_t qp_num = 0;   ///< local QP the completion belongs to
  uint32_t src_qp = 0;   ///< UD receives: the sending QP number
  uint32_t src_node = 0; ///< UD receives: a backend node id of the sender (LID-like)
  WcStatus status = WcStatus::Success;
  WcOpcode opcode = WcOpcode::Send;
  bool has_imm = false;
};
static_assert(sizeof(WorkCompletion) == 32, "see the field order above");

}  // namespace twinfab::fabric
