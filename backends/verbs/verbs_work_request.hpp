// Internal: translation between the contract's work requests/completions and
// libibverbs' structures, shared by QPs, SRQs and CQs. Header-only: all of it is on
// every post and poll (in a TCG VM every call and return costs a code-cache lookup).
#pragma once

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <span>

#include "fabric/types.hpp"

namespace twinfab::verbs {

/// ibv_sge copies of a contract SGE list; small lists live on the stack.
class IbvSgeList final {
 public:
  explicit IbvSgeList(std::span<const fabric::Sge> sges);
  ibv_sge* data() noexcept { return heap_ ? heap_.get() : inline_.data(); }
  int size() const noexcept { return size_; }
  /// Sum of the lengths, in 64 bits so that many large SGEs cannot wrap.
  uint64_t total_bytes() const noexcept { return total_; }

 private:
  std::array<ibv_sge, 16> inline_;  // only the first size_ entries are set and read
  // Beyond 16 SGEs only. Not a std::vector: this list is built on every post, and an
  // empty vector still costs three stores and a check per post.
  std::unique_ptr<ibv_sge[]> heap_;
  int size_ = 0;
  uint64_t total_ = 0;
};

inline IbvSgeList::IbvSgeList(std::span<const fabric::Sge> sges) : size_(static_cast<int>(sges.size())) {
  if (sges.size() > inline_.size()) heap_ = std::make_unique<ibv_sge[]>(sges.size());
  ibv_sge* out = data();
  for (size_t i = 0; i < sges.size(); ++i) {
    out[i].addr = sges[i].addr;
    out[i].length = sges[i].length;
    out[i].lkey = sges[i].lkey;
    total_ += sges[i].length;
  }
}

inline ibv_wr_opcode to_ibv_opcode(fabric::Opcode opcode) noexcept {
  switch (opcode) {
    case fabric::Opcode::Send: return IBV_WR_SEND;
    case fabric::Opcode::SendWithImm: return IBV_WR_SEND_WITH_IMM;
    case fabric::Opcode::RdmaWrite: return IBV_WR_RDMA_WRITE;
    case fabric::Opcode::RdmaWriteWithImm: return IBV_WR_RDMA_WRITE_WITH_IMM;
    case fabric::Opcode::RdmaRead: return IBV_WR_RDMA_READ;
    case fabric::Opcode::AtomicCompareSwap: return IBV_WR_ATOMIC_CMP_AND_SWP;
    case fabric::Opcode::AtomicFetchAdd: return IBV_WR_ATOMIC_FETCH_AND_ADD;
  }
  return IBV_WR_SEND;
}

inline unsigned to_ibv_send_flags(fabric::SendFlags flags) noexcept {
  unsigned out = 0;
  if (fabric::has(flags, fabric::SendFlags::Signaled)) out |= IBV_SEND_SIGNALED;
  if (fabric::has(flags, fabric::SendFlags::Inline)) out |= IBV_SEND_INLINE;
  if (fabric::has(flags, fabric::SendFlags::Fence)) out |= IBV_SEND_FENCE;
  if (fabric::has(flags, fabric::SendFlags::Solicited)) out |= IBV_SEND_SOLICITED;
  return out;
}

// WcStatus is declared in ibv_wc_status order; these pin the correspondence.
static_assert(static_cast<int>(fabric::WcStatus::Success) == IBV_WC_SUCCESS);
static_assert(static_cast<int>(fabric::WcStatus::WrFlushError) == IBV_WC_WR_FLUSH_ERR);
static_assert(static_cast<int>(fabric::WcStatus::RemoteAccessError) == IBV_WC_REM_ACCESS_ERR);
static_assert(static_cast<int>(fabric::WcStatus::RetryExceededError) == IBV_WC_RETRY_EXC_ERR);
static_assert(static_cast<int>(fabric::WcStatus::RnrRetryExceededError) == IBV_WC_RNR_RETRY_EXC_ERR);
static_assert(static_cast<int>(fabric::WcStatus::GeneralError) == IBV_WC_GENERAL_ERR);

inline fabric::WcStatus to_fabric_status(ibv_wc_status status) noexcept {
  if (status >= IBV_WC_SUCCESS && status <= IBV_WC_GENERAL_ERR) return static_cast<fabric::WcStatus>(status);
  // Tag-matching statuses have no contract counterpart.
  return fabric::WcStatus::GeneralError;
}

namespace detail {

inline fabric::WcOpcode to_fabric_opcode(ibv_wc_opcode opcode) noexcept {
  switch (opcode) {
    case IBV_WC_SEND: return fabric::WcOpcode::Send;
    case IBV_WC_RDMA_WRITE: return fabric::WcOpcode::RdmaWrite;
    case IBV_WC_RDMA_READ: return fabric::WcOpcode::RdmaRead;
    case IBV_WC_COMP_SWAP: return fabric::WcOpcode::CompareSwap;
    case IBV_WC_FETCH_ADD: return fabric::WcOpcode::FetchAdd;
    case IBV_WC_RECV: return fabric::WcOpcode::Recv;
    case IBV_WC_RECV_RDMA_WITH_IMM: return fabric::WcOpcode::RecvRdmaWithImm;
    default: return fabric::WcOpcode::Send;
  }
}

}  // namespace detail

/// A work completion; for error completions verbs defines only wr_id, status, qp_num
/// (and vendor_err), so opcode and lengths are whatever the provider left there.
inline fabric::WorkCompletion to_fabric_completion(const ibv_wc& wc) noexcept {
  fabric::WorkCompletion out;
  out.wr_id = wc.wr_id;
  out.status = to_fabric_status(wc.status);
  out.qp_num = wc.qp_num;
  // Undefined by verbs on errors, but providers usually fill it; better than a guess.
  out.opcode = detail::to_fabric_opcode(wc.opcode);
  if (wc.status != IBV_WC_SUCCESS) return out;
  out.byte_len = wc.byte_len;
  out.has_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
  // Verbs carries immediate data in network order; the contract's value is the
  // number the sender put in SendWr::imm_data.
  out.imm_data = out.has_imm ? ntohl(wc.imm_data) : 0;
  out.src_qp = wc.src_qp;
  out.src_node = wc.slid;
  return out;
}

/// ibv_post_recv / ibv_post_srq_recv of one contract WR (translated here, for QPs and
/// SRQs alike); returns 0 or a positive errno (providers disagree on the sign). A WR
/// without SGEs, which verbs allows but libsiw refuses with EINVAL before queueing
/// anything, is posted again with one zero-length SGE: a receive that takes
/// zero-length messages only, exactly what was asked for.
namespace detail {

template <typename Queue, typename Post>
inline int post_recv_retrying_empty(Queue* queue, const fabric::RecvWr& contract_wr, Post post) {
  IbvSgeList sges(contract_wr.sg_list);
  ibv_recv_wr wr{};
  wr.wr_id = contract_wr.wr_id;
  wr.sg_list = sges.data();
  wr.num_sge = sges.size();
  ibv_recv_wr* bad = nullptr;
  int rc = std::abs(post(queue, &wr, &bad));
  if (rc == EINVAL && wr.num_sge == 0) {
    ibv_sge empty{};  // length 0: the lkey is never used
    wr.sg_list = &empty;
    wr.num_sge = 1;
    rc = std::abs(post(queue, &wr, &bad));
  }
  return rc;
}

}  // namespace detail

inline int post_one_recv(ibv_qp* qp, const fabric::RecvWr& wr) {
  return detail::post_recv_retrying_empty(qp, wr, [](ibv_qp* q, ibv_recv_wr* w, ibv_recv_wr** b) { return ibv_post_recv(q, w, b); });
}

inline int post_one_srq_recv(ibv_srq* srq, const fabric::RecvWr& wr) {
  return detail::post_recv_retrying_empty(
      srq, wr, [](ibv_srq* q, ibv_recv_wr* w, ibv_recv_wr** b) { return ibv_post_srq_recv(q, w, b); });
}

}  // namespace twinfab::verbs
