#include "backends/sim/sim_queue_pair.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "backends/sim/sim_device.hpp"
#include "backends/sim/sim_runtime.hpp"
#include "fabric/completion_queue.hpp"

namespace twinfab::sim {

using fabric::Opcode;
using fabric::QpState;
using fabric::Status;
using fabric::Transport;
using fabric::WcOpcode;
using fabric::WcStatus;

namespace {

struct AddressPayload {
  uint32_t host;
  uint32_t qpn;
  uint32_t qkey;
};

WcOpcode completion_opcode(Opcode op) {
  switch (op) {
    case Opcode::Send:
    case Opcode::SendWithImm: return WcOpcode::Send;
    case Opcode::RdmaWrite:
    case Opcode::RdmaWriteWithImm: return WcOpcode::RdmaWrite;
    case Opcode::RdmaRead: return WcOpcode::RdmaRead;
    case Opcode::AtomicCompareSwap: return WcOpcode::CompareSwap;
    case Opcode::AtomicFetchAdd: return WcOpcode::FetchAdd;
  }
  return WcOpcode::Send;
}

WireKind wire_kind(Opcode op) {
  switch (op) {
    case Opcode::Send:
    case Opcode::SendWithImm: return WireKind::Send;
    case Opcode::RdmaWrite:
    case Opcode::RdmaWriteWithImm: return WireKind::Write;
    case Opcode::RdmaRead: return WireKind::ReadRequest;
    case Opcode::AtomicCompareSwap:
    case Opcode::AtomicFetchAdd: return WireKind::AtomicRequest;
  }
  return WireKind::Send;
}

/// The platform's [hca] reliability keys: what a QP gets for the fields its QpConfig
/// leaves unset.
fabric::RcReliability platform_reliability(const HcaParams& hca) {
  return fabric::RcReliability{hca.ack_timeout, hca.retry_count, hca.rnr_retry, hca.min_rnr_timer};
}

}  // namespace

// Shared with sim_device.cpp (address handles parse the same payload).
bool parse_sim_address(const fabric::Address& a, Transport t, uint32_t hosts, uint32_t& host, uint32_t& qpn,
                       uint32_t& qkey, std::string& why) {
  std::span<const std::byte> payload;
  if (a.parse("sim", t, payload, why) != Status::Ok) return false;
  if (payload.size() != sizeof(AddressPayload)) {
    why = fmt::format("sim address payload has {} bytes, expected {}", payload.size(), sizeof(AddressPayload));
    return false;
  }
  AddressPayload p;
  std::memcpy(&p, payload.data(), sizeof p);
  if (p.host >= hosts) {
    why = fmt::format("sim address names host {} but the platform has {} hosts", p.host, hosts);
    return false;
  }
  host = p.host;
  qpn = p.qpn;
  qkey = p.qkey;
  return true;
}

SimQueuePair::SimQueuePair(SimDevice& device, const fabric::QpConfig& config)
    : device_(device),
      runtime_(device.sim_runtime()),
      device_id_(device.id()),
      config_(config),
      reliability_(fabric::resolve_reliability(config, platform_reliability(device.fabric().platform().hca))),
      send_cq_(&static_cast<SimCompletionQueue&>(config.send_cq->underlying())),
      recv_cq_(&static_cast<SimCompletionQueue&>(config.recv_cq->underlying())),
      srq_(config.srq != nullptr ? &static_cast<SimSharedReceiveQueue&>(config.srq->underlying()) : nullptr),
      qpn_(device.hca().add_qp(this)),
      live_id_(device.fabric().add_qp_id()),
      sq_(config.max_send_wr),
      rq_(config.max_recv_wr) {
  send_cq_->attach();
  recv_cq_->attach();
  if (srq_ != nullptr) srq_->attach();
}

bool SimQueuePair::forget(const SimCompletionQueue* cq, const SimSharedReceiveQueue* srq) noexcept {
  bool held = false;
  if (cq != nullptr && send_cq_ == cq) {
    send_cq_ = nullptr;
    config_.send_cq = nullptr;
    held = true;
  }
  if (cq != nullptr && recv_cq_ == cq) {
    recv_cq_ = nullptr;
    config_.recv_cq = nullptr;
    held = true;
  }
  if (srq != nullptr && srq_ == srq) {
    srq_ = nullptr;  // config_.srq stays set: the QP still takes no receives of its own
    held = true;
  }
  return held;
}

SimQueuePair::~SimQueuePair() {
  if (send_cq_ != nullptr) send_cq_->detach();
  if (recv_cq_ != nullptr) recv_cq_->detach();
  if (srq_ != nullptr) srq_->detach();
  for (const HeldSend& h : fenced_) device_.fabric().free_message(h.message);
  for (WireMessage* m = held; m != nullptr;) {
    WireMessage* next = m->next_held;
    device_.fabric().free_message(m);
    m = next;
  }
  if (ud_paths_) {
    for (auto& [id, path] : *ud_paths_) {
      for (WireMessage* m = path.held; m != nullptr;) {
        WireMessage* next = m->next_held;
        device_.fabric().free_message(m);
        m = next;
      }
    }
  }
  device_.hca().remove_qp(*this);
  device_.fabric().remove_qp_id(live_id_);
}

fabric::Address SimQueuePair::local_address() const {
  AddressPayload p{device_.hca().index(), qpn_, config_.qkey};
  return fabric::Address::make("sim", config_.transport, std::as_bytes(std::span(&p, 1)));
}

Status SimQueuePair::fail(Status s, std::string why) {
  last_error_ = std::move(why);
  return s;
}

Status SimQueuePair::to_init() {
  if (state_ != QpState::Reset)
    return fail(Status::InvalidState, fmt::format("INIT is reachable only from RESET; QP {} is in {}", qpn_,
                                                  fabric::to_string(state_)));
  state_ = QpState::Init;
  return Status::Ok;
}

Status SimQueuePair::to_rtr(const fabric::Address* remote) {
  if (state_ != QpState::Init)
    return fail(Status::InvalidState,
                fmt::format("RTR is reachable only from INIT; QP {} is in {}", qpn_, fabric::to_string(state_)));
  if (config_.transport != Transport::UD) {
    if (remote == nullptr) return fail(Status::InvalidArgument, "RC/UC QPs need the peer's address to reach RTR");
    uint32_t host, qpn, qkey;
    std::string why;
    if (!parse_sim_address(*remote, config_.transport, device_.fabric().host_count(), host, qpn, qkey, why))
      return fail(Status::InvalidArgument, "cannot connect: " + why);
    remote_host_ = host;
    remote_qpn_ = qpn;
  }
  state_ = QpState::ReadyToReceive;
  return Status::Ok;
}

Status SimQueuePair::to_rts() {
  if (state_ != QpState::ReadyToReceive)
    return fail(Status::InvalidState,
                fmt::format("RTS is reachable only from RTR; QP {} is in {}", qpn_, fabric::to_string(state_)));
  state_ = QpState::ReadyToSend;
  return Status::Ok;
}

Status SimQueuePair::to_error() {
  enter_error();
  return Status::Ok;
}

Status SimQueuePair::to_reset() {
  // RESET discards everything without completions, as verbs does.
  SimFabric& f = device_.fabric();
  for (const HeldSend& h : fenced_) f.free_message(h.message);
  fenced_.clear();
  held_reads_ = 0;
  for (WireMessage* m = held; m != nullptr;) {
    WireMessage* next = m->next_held;
    f.free_message(m);
    m = next;
  }
  held = nullptr;
  if (ud_paths_) {
    for (auto& [id, path] : *ud_paths_) {
      for (WireMessage* m = path.held; m != nullptr;) {
        WireMessage* next = m->next_held;
        f.free_message(m);
        m = next;
      }
    }
  }
  ud_paths_.reset();
  sq_.clear();
  rq_ = RecvQueue(config_.max_recv_wr);
  reads_in_flight_ = 0;
  expected_psn = 0;
  next_psn_ = 0;
  state_ = QpState::Reset;
  return Status::Ok;
}

Status SimQueuePair::validate_send(const fabric::SendWr& wr, uint64_t& length) {
  const auto& caps = device_.capabilities();
  const Transport t = config_.transport;
  switch (wr.opcode) {
    case Opcode::Send: break;
    case Opcode::SendWithImm:
      if (!caps.send_with_imm) return fail(Status::Unsupported, "device lacks send with immediate");
      break;
    case Opcode::RdmaWrite:
      if (t == Transport::UD) return fail(Status::InvalidArgument, "RDMA write is not available on UD QPs");
      break;
    case Opcode::RdmaWriteWithImm:
      if (t == Transport::UD) return fail(Status::InvalidArgument, "RDMA write is not available on UD QPs");
      if (!caps.write_with_imm) return fail(Status::Unsupported, "device lacks RDMA write with immediate");
      break;
    case Opcode::RdmaRead:
      if (t != Transport::RC) return fail(Status::InvalidArgument, "RDMA read needs an RC QP");
      break;
    case Opcode::AtomicCompareSwap:
    case Opcode::AtomicFetchAdd:
      if (!caps.atomics) return fail(Status::Unsupported, "device lacks remote atomics (8-byte CAS/FAA)");
      if (t != Transport::RC) return fail(Status::InvalidArgument, "atomics need an RC QP");
      if (wr.sg_list.size() != 1 || wr.sg_list[0].length != 8)
        return fail(Status::InvalidArgument, "an atomic takes exactly one 8-byte SGE for the old value");
      if (wr.remote_addr % 8 != 0)
        return fail(Status::InvalidArgument,
                    fmt::format("atomic target address {:#x} is not 8-byte aligned", wr.remote_addr));
      break;
    default:  // a value cast to Opcode that names none (it was posted as a Send)
      return fail(Status::InvalidArgument,
                  fmt::format("opcode {} is not a fabric::Opcode", static_cast<int>(wr.opcode)));
  }
  if (wr.sg_list.size() > config_.max_send_sge)
    return fail(Status::InvalidArgument,
                fmt::format("{} SGEs exceed the QP's max_send_sge of {}", wr.sg_list.size(), config_.max_send_sge));
  length = 0;
  for (const auto& s : wr.sg_list) length += s.length;
  if (length > 0x80000000ull) return fail(Status::InvalidArgument, "message longer than 2 GiB");
  if (fabric::has(wr.flags, fabric::SendFlags::Inline)) {
    if (wr.opcode == Opcode::RdmaRead || wr.opcode == Opcode::AtomicCompareSwap || wr.opcode == Opcode::AtomicFetchAdd)
      return fail(Status::InvalidArgument, "inline applies to sends and writes only");
    if (length > config_.max_inline)
      return fail(Status::InvalidArgument,
                  fmt::format("inline payload of {} bytes exceeds the QP's max_inline of {}", length, config_.max_inline));
  }
  if (t == Transport::UD) {
    if (wr.ah == nullptr) return fail(Status::InvalidArgument, "a UD send needs an address handle (wr.ah)");
    if (length > device_.capabilities().mtu)
      return fail(Status::InvalidArgument,
                  fmt::format("UD message of {} bytes exceeds the path MTU of {} bytes", length, caps.mtu));
  }
  return Status::Ok;
}

Status SimQueuePair::post_send(const fabric::SendWr& wr) {
  if (state_ != QpState::ReadyToSend && state_ != QpState::Error)
    return fail(Status::InvalidState,
                fmt::format("post_send needs RTS; QP {} is in {}", qpn_, fabric::to_string(state_)));
  uint64_t length = 0;
  if (Status s = validate_send(wr, length); s != Status::Ok) return s;
  if (sq_.size() >= config_.max_send_wr)
    return fail(Status::NoResource, fmt::format("send queue full ({} WRs outstanding)", config_.max_send_wr));

  const bool is_read_or_atomic = wr.opcode == Opcode::RdmaRead || wr.opcode == Opcode::AtomicCompareSwap ||
                                 wr.opcode == Opcode::AtomicFetchAdd;
  SqEntry e;
  e.wr_id = wr.wr_id;
  e.seq = next_seq_++;
  e.opcode = completion_opcode(wr.opcode);
  e.signaled = fabric::has(wr.flags, fabric::SendFlags::Signaled);
  e.read_or_atomic = is_read_or_atomic;
  e.byte_len = static_cast<uint32_t>(length);
  sq_.push_back(e);
  if (is_read_or_atomic) ++reads_in_flight_;

  if (state_ == QpState::Error) {  // verbs: the post succeeds, the WR is flushed
    complete_send(e.seq, WcStatus::WrFlushError, 0);
    return Status::Ok;
  }
  // Local keys are checked when the HCA reads the WQE: a bad one is a completion error.
  if (!fabric::has(wr.flags, fabric::SendFlags::Inline)) {
    const fabric::Access need = is_read_or_atomic ? fabric::Access::LocalWrite : fabric::Access::None;
    for (const auto& sge : wr.sg_list) {
      if (sge.length == 0) continue;
      SimMemoryRegion* mr = device_.hca().find_mr(sge.lkey);
      if (mr == nullptr || mr->owner() != &device_ || !mr->covers(sge.addr, sge.length) ||
          !fabric::has(mr->access(), need)) {
        complete_send(e.seq, WcStatus::LocalProtectionError, 0);
        return Status::Ok;
      }
    }
  }
  WireMessage* m = build_message(wr, length, e.seq);
  const bool fence = fabric::has(wr.flags, fabric::SendFlags::Fence);
  if (!fenced_.empty() || !may_leave(*m, fence)) {
    fenced_.push_back(HeldSend{m, fence});
    if (is_read_or_atomic) ++held_reads_;
    return Status::Ok;
  }
  device_.dispatch(*this, m);
  return Status::Ok;
}

WireMessage* SimQueuePair::build_message(const fabric::SendWr& wr, uint64_t length, uint64_t seq) {
  WireMessage* m = device_.fabric().new_message();
  m->kind = wire_kind(wr.opcode);
  m->opcode = wr.opcode;
  m->transport = config_.transport;
  m->has_imm = wr.opcode == Opcode::SendWithImm || wr.opcode == Opcode::RdmaWriteWithImm;
  m->imm = wr.imm_data;
  m->src_host = device_.hca().index();
  m->src_qpn = qpn_;
  m->src_qp = ref();
  if (config_.transport == Transport::UD) {
    const auto* ah = static_cast<const SimAddressHandle*>(wr.ah);
    m->dst_host = ah->host();
    m->dst_qpn = ah->remote_qp_num();
    m->qkey = ah->qkey();
  } else {
    m->dst_host = remote_host_;
    m->dst_qpn = remote_qpn_;
  }
  m->length = static_cast<uint32_t>(length);
  m->sq_seq = seq;
  m->remote_addr = wr.remote_addr;
  m->rkey = wr.rkey;
  m->compare_add = wr.compare_add;
  m->swap = wr.swap;
  m->from = &device_;
  m->from_id = device_.id();
  if (m->kind == WireKind::ReadRequest || m->kind == WireKind::AtomicRequest) {
    m->local.assign(wr.sg_list.begin(), wr.sg_list.end());
  } else if (fabric::has(wr.flags, fabric::SendFlags::Inline) || config_.transport != Transport::RC) {
    // Inline data is copied at post; UC/UD complete before the data lands, so their
    // payload is snapshotted too (the application may reuse the buffer at completion).
    m->data.resize(length);
    std::byte* out = m->data.data();
    for (const auto& s : wr.sg_list) {
      if (s.length) std::memcpy(out, reinterpret_cast<const void*>(s.addr), s.length);
      out += s.length;
    }
  } else {
    // RC: the HCA reads the sender's memory when it sends; the buffer belongs to the
    // HCA until the completion, so reading it at delivery is what hardware does.
    m->source.assign(wr.sg_list.begin(), wr.sg_list.end());
  }
  return m;
}

Status SimQueuePair::post_recv(const fabric::RecvWr& wr) {
  if (state_ == QpState::Reset)
    return fail(Status::InvalidState, fmt::format("post_recv needs INIT or later; QP {} is in RESET", qpn_));
  if (config_.srq != nullptr)
    return fail(Status::InvalidArgument, "this QP takes its receives from an SRQ: post to the SRQ");
  if (wr.sg_list.size() > config_.max_recv_sge)
    return fail(Status::InvalidArgument,
                fmt::format("{} SGEs exceed the QP's max_recv_sge of {}", wr.sg_list.size(), config_.max_recv_sge));
  if (rq_.size() >= config_.max_recv_wr)
    return fail(Status::NoResource, fmt::format("receive queue full ({} WRs)", config_.max_recv_wr));
  if (state_ == QpState::Error) {
    fabric::WorkCompletion wc;
    wc.wr_id = wr.wr_id;
    wc.status = WcStatus::WrFlushError;
    wc.opcode = WcOpcode::Recv;
    wc.qp_num = qpn_;
    push_recv_completion(wc);
    return Status::Ok;
  }
  rq_.push(RecvEntry{wr.wr_id, SgeList(wr.sg_list)});
  return Status::Ok;
}

bool SimQueuePair::take_receive(RecvEntry& out) {
  if (config_.srq != nullptr && srq_ == nullptr) return false;  // its SRQ was destroyed under it
  RecvQueue& q = srq_ != nullptr ? srq_->queue() : rq_;
  if (q.empty()) return false;
  out = q.pop();
  return true;
}

void SimQueuePair::push_recv_completion(const fabric::WorkCompletion& wc) {
  if (recv_cq_ != nullptr) recv_cq_->push(wc);
}

void SimQueuePair::complete_send(uint64_t seq, WcStatus status, uint32_t byte_len) {
  if (sq_.empty() || seq < sq_.front().seq) return;  // flushed or reset already
  const size_t idx = static_cast<size_t>(seq - sq_.front().seq);
  if (idx >= sq_.size()) return;
  SqEntry& e = sq_[idx];
  if (e.done) return;
  e.done = true;
  e.status = status;
  if (status == WcStatus::Success && (e.opcode == WcOpcode::RdmaRead)) e.byte_len = byte_len;
  if (e.read_or_atomic) {
    --reads_in_flight_;
    release_fenced();
  }
  if (status != WcStatus::Success && state_ != QpState::Error)
    enter_error();
  else
    drain_send_queue();
}

bool SimQueuePair::awaits(uint64_t seq) const noexcept {
  if (state_ == QpState::Error || state_ == QpState::Reset) return false;
  if (sq_.empty() || seq < sq_.front().seq) return false;
  const size_t idx = static_cast<size_t>(seq - sq_.front().seq);
  return idx < sq_.size() && !sq_[idx].done;
}

void SimQueuePair::drain_send_queue() {
  while (!sq_.empty() && sq_.front().done) {
    const SqEntry e = sq_.pop_front();
    if (e.signaled || e.status != WcStatus::Success) {
      fabric::WorkCompletion wc;
      wc.wr_id = e.wr_id;
      wc.status = e.status;
      wc.opcode = e.opcode;
      wc.byte_len = e.status == WcStatus::Success ? e.byte_len : 0;
      wc.qp_num = qpn_;
      if (send_cq_ != nullptr) send_cq_->push(wc);
    }
  }
}

void SimQueuePair::enter_error() {
  state_ = QpState::Error;
  for (const HeldSend& h : fenced_) device_.fabric().free_message(h.message);
  fenced_.clear();
  held_reads_ = 0;
  for (size_t i = 0; i < sq_.size(); ++i) {
    if (!sq_[i].done) {
      sq_[i].done = true;
      sq_[i].status = WcStatus::WrFlushError;
    }
  }
  reads_in_flight_ = 0;
  drain_send_queue();
  rq_.drain([&](RecvEntry r) {
    fabric::WorkCompletion wc;
    wc.wr_id = r.wr_id;
    wc.status = WcStatus::WrFlushError;
    wc.opcode = WcOpcode::Recv;
    wc.qp_num = qpn_;
    push_recv_completion(wc);
  });
}

bool SimQueuePair::may_leave(const WireMessage& m, bool fence) const noexcept {
  const bool read = m.kind == WireKind::ReadRequest || m.kind == WireKind::AtomicRequest;
  // reads_in_flight_ counts this one when it is a read, and every held one.
  const uint32_t on_wire = reads_in_flight_ - held_reads_ - (read ? 1u : 0u);
  if (fence && on_wire > 0) return false;
  // ibv_qp_attr::max_rd_atomic: the responder's resources for outstanding reads and
  // atomics; the requester holds further ones back (0 would allow none: taken as 1).
  const uint32_t limit = std::max<uint32_t>(1, device_.capabilities().max_rd_atomic);
  return !read || on_wire < limit;
}

void SimQueuePair::release_fenced() {
  while (!fenced_.empty() && state_ != QpState::Error) {
    const HeldSend h = fenced_.front();
    const bool read = h.message->kind == WireKind::ReadRequest || h.message->kind == WireKind::AtomicRequest;
    if (read) --held_reads_;  // may_leave counts the head as about to leave
    if (!may_leave(*h.message, h.fence)) {
      if (read) ++held_reads_;
      return;
    }
    fenced_.erase(fenced_.begin());
    device_.dispatch(*this, h.message);
  }
}

}  // namespace twinfab::sim
