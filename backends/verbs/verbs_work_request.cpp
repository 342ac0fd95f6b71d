#include "backends/verbs/verbs_work_request.hpp"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdlib>

namespace twinfab::verbs {

using fabric::Opcode;
using fabric::SendFlags;
using fabric::WcOpcode;
using fabric::WcStatus;

IbvSgeList::IbvSgeList(std::span<const fabric::Sge> sges) : size_(static_cast<int>(sges.size())) {
  if (sges.size() > inline_.size()) heap_.resize(sges.size());
  ibv_sge* out = data();
  for (size_t i = 0; i < sges.size(); ++i) {
    out[i].addr = sges[i].addr;
    out[i].length = sges[i].length;
    out[i].lkey = sges[i].lkey;
    total_ += sges[i].length;
  }
}

namespace {

template <typename Queue, typename Post>
int post_recv_retrying_empty(Queue* queue, const fabric::RecvWr& contract_wr, Post post) {
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

}  // namespace

int post_one_recv(ibv_qp* qp, const fabric::RecvWr& wr) {
  return post_recv_retrying_empty(qp, wr, [](ibv_qp* q, ibv_recv_wr* w, ibv_recv_wr** b) { return ibv_post_recv(q, w, b); });
}

int post_one_srq_recv(ibv_srq* srq, const fabric::RecvWr& wr) {
  return post_recv_retrying_empty(
      srq, wr, [](ibv_srq* q, ibv_recv_wr* w, ibv_recv_wr** b) { return ibv_post_srq_recv(q, w, b); });
}

ibv_wr_opcode to_ibv_opcode(Opcode opcode) noexcept {
  switch (opcode) {
    case Opcode::Send: return IBV_WR_SEND;
    case Opcode::SendWithImm: return IBV_WR_SEND_WITH_IMM;
    case Opcode::RdmaWrite: return IBV_WR_RDMA_WRITE;
    case Opcode::RdmaWriteWithImm: return IBV_WR_RDMA_WRITE_WITH_IMM;
    case Opcode::RdmaRead: return IBV_WR_RDMA_READ;
    case Opcode::AtomicCompareSwap: return IBV_WR_ATOMIC_CMP_AND_SWP;
    case Opcode::AtomicFetchAdd: return IBV_WR_ATOMIC_FETCH_AND_ADD;
  }
  return IBV_WR_SEND;
}

unsigned to_ibv_send_flags(SendFlags flags) noexcept {
  unsigned out = 0;
  if (fabric::has(flags, SendFlags::Signaled)) out |= IBV_SEND_SIGNALED;
  if (fabric::has(flags, SendFlags::Inline)) out |= IBV_SEND_INLINE;
  if (fabric::has(flags, SendFlags::Fence)) out |= IBV_SEND_FENCE;
  if (fabric::has(flags, SendFlags::Solicited)) out |= IBV_SEND_SOLICITED;
  return out;
}

// WcStatus is declared in ibv_wc_status order; these pin the correspondence.
static_assert(static_cast<int>(WcStatus::Success) == IBV_WC_SUCCESS);
static_assert(static_cast<int>(WcStatus::WrFlushError) == IBV_WC_WR_FLUSH_ERR);
static_assert(static_cast<int>(WcStatus::RemoteAccessError) == IBV_WC_REM_ACCESS_ERR);
static_assert(static_cast<int>(WcStatus::RetryExceededError) == IBV_WC_RETRY_EXC_ERR);
static_assert(static_cast<int>(WcStatus::RnrRetryExceededError) == IBV_WC_RNR_RETRY_EXC_ERR);
static_assert(static_cast<int>(WcStatus::GeneralError) == IBV_WC_GENERAL_ERR);

WcStatus to_fabric_status(ibv_wc_status status) noexcept {
  if (status >= IBV_WC_SUCCESS && status <= IBV_WC_GENERAL_ERR) return static_cast<WcStatus>(status);
  // Tag-matching statuses have no contract counterpart.
  return WcStatus::GeneralError;
}

namespace {

WcOpcode to_fabric_opcode(ibv_wc_opcode opcode) noexcept {
  switch (opcode) {
    case IBV_WC_SEND: return WcOpcode::Send;
    case IBV_WC_RDMA_WRITE: return WcOpcode::RdmaWrite;
    case IBV_WC_RDMA_READ: return WcOpcode::RdmaRead;
    case IBV_WC_COMP_SWAP: return WcOpcode::CompareSwap;
    case IBV_WC_FETCH_ADD: return WcOpcode::FetchAdd;
    case IBV_WC_RECV: return WcOpcode::Recv;
    case IBV_WC_RECV_RDMA_WITH_IMM: return WcOpcode::RecvRdmaWithImm;
    default: return WcOpcode::Send;
  }
}

}  // namespace

fabric::WorkCompletion to_fabric_completion(const ibv_wc& wc) noexcept {
  fabric::WorkCompletion out;
  out.wr_id = wc.wr_id;
  out.status = to_fabric_status(wc.status);
  out.qp_num = wc.qp_num;
  // Undefined by verbs on errors, but providers usually fill it; better than a guess.
  out.opcode = to_fabric_opcode(wc.opcode);
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

}  // namespace twinfab::verbs
