#include "backends/verbs/verbs_queue_pair.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <typeinfo>

#include "backends/verbs/host_runtime.hpp"
#include "backends/verbs/verbs_address_handle.hpp"
#include "backends/verbs/verbs_cm_connection.hpp"
#include "backends/verbs/verbs_completion_queue.hpp"
#include "backends/verbs/verbs_device.hpp"
#include "backends/verbs/verbs_discovery.hpp"
#include "backends/verbs/verbs_errno.hpp"
#include "backends/verbs/verbs_shared_receive_queue.hpp"
#include "backends/verbs/verbs_work_request.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::verbs {

using fabric::Error;
using fabric::Opcode;
using fabric::QpState;
using fabric::Status;
using fabric::Transport;

namespace {

ibv_qp_type to_ibv_qp_type(Transport t) noexcept {
  switch (t) {
    case Transport::RC: return IBV_QPT_RC;
    case Transport::UC: return IBV_QPT_UC;
    case Transport::UD: return IBV_QPT_UD;
  }
  return IBV_QPT_RC;
}

QpState from_ibv_state(ibv_qp_state s) noexcept {
  switch (s) {
    case IBV_QPS_RESET: return QpState::Reset;
    case IBV_QPS_INIT: return QpState::Init;
    case IBV_QPS_RTR: return QpState::ReadyToReceive;
    case IBV_QPS_RTS: return QpState::ReadyToSend;
    // twinfab never drains a send queue on purpose; iWARP providers report a closing
    // connection as SQD and a terminated one as SQE. Neither can send any more.
    default: return QpState::Error;
  }
}

// siw in Linux 6.1 (Debian 12's kernel) leaves qp_state out of its ibv_query_qp
// answer, which then reads as RESET. A QP this object did not reset cannot be in
// RESET, so that answer says nothing and the caller keeps what it knew.
std::optional<QpState> query_state(ibv_qp* qp) noexcept {
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) != 0 || attr.qp_state == IBV_QPS_RESET) return std::nullopt;
  return from_ibv_state(attr.qp_state);
}

ibv_qp_state to_ibv_state(QpState s) noexcept {
  switch (s) {
    case QpState::Reset: return IBV_QPS_RESET;
    case QpState::Init: return IBV_QPS_INIT;
    case QpState::ReadyToReceive: return IBV_QPS_RTR;
    case QpState::ReadyToSend: return IBV_QPS_RTS;
    case QpState::Error: return IBV_QPS_ERR;
  }
  return IBV_QPS_ERR;
}

uint8_t clamp_u8(int v) noexcept { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }

bool is_atomic(Opcode op) noexcept { return op == Opcode::AtomicCompareSwap || op == Opcode::AtomicFetchAdd; }

// Starting PSNs only have to differ between incarnations of a connection; deriving
// them from the QP number keeps runs reproducible.
uint32_t initial_psn(uint32_t qp_num) noexcept { return (qp_num * 2654435761u) & 0xffffffu; }

}  // namespace

VerbsQueuePair::VerbsQueuePair(VerbsDevice& device, const fabric::QpConfig& config)
    : device_(device),
      transport_(config.transport),
      config_(config),
      reliability_(fabric::resolve_reliability(config, fabric::RcReliability{})) {
  const fabric::DeviceCapabilities& caps = device.capabilities();
  const bool supported = (transport_ == Transport::RC && caps.rc) || (transport_ == Transport::UC && caps.uc) ||
                         (transport_ == Transport::UD && caps.ud);
  if (!supported) {
    throw Error(Status::Unsupported,
                fmt::format("create_qp: {} has no {} transport (capabilities().{} is false{})", caps.device_name,
                            fabric::to_string(transport_), transport_ == Transport::UC ? "uc" : "ud",
                            caps.link == fabric::LinkKind::IWarp ? "; iWARP devices are RC only" : ""));
  }
  if (config.send_cq == nullptr || config.recv_cq == nullptr) {
    throw Error(Status::InvalidArgument, "create_qp: send_cq and recv_cq are required");
  }
  auto* send_cq = dynamic_cast<VerbsCompletionQueue*>(&config.send_cq->underlying());
  auto* recv_cq = dynamic_cast<VerbsCompletionQueue*>(&config.recv_cq->underlying());
  if (send_cq == nullptr || recv_cq == nullptr) {
    throw Error(Status::InvalidArgument, "create_qp: the CQs were not made by a verbs device");
  }
  VerbsSharedReceiveQueue* srq = nullptr;
  if (config.srq != nullptr) {
    srq = dynamic_cast<VerbsSharedReceiveQueue*>(&config.srq->underlying());
    if (srq == nullptr) throw Error(Status::InvalidArgument, "create_qp: the SRQ was not made by a verbs device");
  }
  // The kernel looks CQs and SRQs up by handle within the caller's context, so one of
  // another context could be taken for an unrelated object of this one.
  auto check_context = [&](ibv_context* theirs, const char* field) {
    if (theirs != device.context()) {
      throw Error(Status::InvalidArgument,
                  fmt::format("create_qp: QpConfig::{} was made by another device context; a QP's CQs and SRQ must "
                              "be made by the device that creates it",
                              field));
    }
  };
  check_context(send_cq->handle()->context, "send_cq");
  check_context(recv_cq->handle()->context, "recv_cq");
  if (srq != nullptr) check_context(srq->handle()->context, "srq");
  auto check_limit = [&](const char* what, uint32_t value, uint32_t limit, const char* cap) {
    if (value > limit) {
      throw Error(Status::InvalidArgument, fmt::format("create_qp: {} {} is more than {} allows ({}, {})", what, value,
                                                       caps.device_name, limit, cap));
    }
  };
  check_limit("max_send_wr", config.max_send_wr, caps.max_qp_wr, "max_qp_wr");
  check_limit("max_send_sge", config.max_send_sge, caps.max_sge, "max_sge");
  check_limit("max_inline", config.max_inline, caps.max_inline, "max_inline");
  if (srq == nullptr) {
    check_limit("max_recv_wr", config.max_recv_wr, caps.max_qp_wr, "max_qp_wr");
    check_limit("max_recv_sge", config.max_recv_sge, caps.max_sge, "max_sge");
  }
  if (config.max_send_wr == 0) throw Error(Status::InvalidArgument, "create_qp: max_send_wr is 0");

  ibv_qp_init_attr attr{};
  attr.send_cq = send_cq->handle();
  attr.recv_cq = recv_cq->handle();
  attr.srq = srq != nullptr ? srq->handle() : nullptr;
  attr.qp_type = to_ibv_qp_type(transport_);
  attr.sq_sig_all = 0;
  attr.cap.max_send_wr = config.max_send_wr;
  attr.cap.max_send_sge = std::max(config.max_send_sge, 1u);
  attr.cap.max_inline_data = config.max_inline;
  attr.cap.max_recv_wr = srq != nullptr ? 0 : config.max_recv_wr;
  attr.cap.max_recv_sge = srq != nullptr ? 0 : std::max(config.max_recv_sge, 1u);
  qp_ = ibv_create_qp(device.pd(), &attr);
  if (qp_ == nullptr) {
    throw_errno(fmt::format("ibv_create_qp({} on {})", fabric::to_string(transport_), caps.device_name), errno,
                "lower the queue sizes or check the device limits with `ibv_devinfo -v`");
  }
  psn_ = initial_psn(qp_->qp_num);

  if (caps.requires_connection_manager) {
    try {
      const ibv_device_attr& dev = device.device_attr();
      cm_ = std::make_unique<CmConnection>(
          device.iwarp_ipv4(), CmConnection::Limits{clamp_u8(dev.max_qp_rd_atom), clamp_u8(dev.max_qp_init_rd_atom),
                                                     reliability_.retry_count, reliability_.rnr_retry});
    } catch (...) {
      ibv_destroy_qp(qp_);
      throw;
    }
  }
}

VerbsQueuePair::~VerbsQueuePair() {
  // The connection goes first: rdma_cm still refers to the QP by number.
  cm_.reset();
  if (int rc = ibv_destroy_qp(qp_); rc != 0) fabric::log().warn("verbs: {}", errno_message("ibv_destroy_qp", rc));
}

IwarpEndpoint VerbsQueuePair::cm_endpoint() const {
  return IwarpEndpoint{device_.connection_rank(), device_.iwarp_ipv4(), cm_->listen_port(), qp_->qp_num};
}

std::string VerbsQueuePair::name() const {
  return fmt::format("{} {} QP {}", device_.capabilities().device_name, fabric::to_string(transport_), qp_->qp_num);
}

Status VerbsQueuePair::fail(Status status, std::string message) {
  last_error_ = std::move(message);
  return status;
}

QpState VerbsQueuePair::state() const noexcept {
  if (state_ == QpState::ReadyToReceive || state_ == QpState::ReadyToSend) {
    if (std::optional<QpState> s = query_state(qp_)) state_ = *s;
    // iWARP providers close the connection when an error moves the QP to ERR.
    if (cm_ && state_ == QpState::ReadyToSend && !cm_->alive()) state_ = QpState::Error;
  }
  return state_;
}

fabric::Address VerbsQueuePair::local_address() const {
  if (cm_) return encode_address(transport_, cm_endpoint());
  RoutedEndpoint self;
  self.link = device_.capabilities().link;
  self.qp_num = qp_->qp_num;
  self.psn = psn_;
  self.lid = device_.lid();
  self.gid = device_.gid();
  self.gid_index = device_.gid_index();
  self.port = device_.port();
  self.mtu = device_.active_mtu();
  self.responder_resources = clamp_u8(device_.device_attr().max_qp_rd_atom);
  self.qkey = config_.qkey;
  return encode_address(transport_, self);
}

Status VerbsQueuePair::modify(ibv_qp_attr& attr, int mask, QpState target, const char* step) {
  attr.qp_state = to_ibv_state(target);
  if (int rc = std::abs(ibv_modify_qp(qp_, &attr, mask | IBV_QP_STATE)); rc != 0) {
    return fail(errno_status(rc), fmt::format("{}: {}", name(), errno_message(fmt::format("ibv_modify_qp({})", step), rc)));
  }
  state_ = target;
  return Status::Ok;
}

Status VerbsQueuePair::to_init() {
  if (QpState s = state(); s != QpState::Reset) {
    return fail(Status::InvalidState, fmt::format("to_init: {} is in {}; INIT is reached from RESET", name(),
                                                  fabric::to_string(s)));
  }
  ibv_qp_attr attr{};
  attr.pkey_index = 0;
  attr.port_num = device_.port();
  int mask = IBV_QP_PKEY_INDEX | IBV_QP_PORT;
  if (transport_ == Transport::UD) {
    attr.qkey = config_.qkey;
    mask |= IBV_QP_QKEY;
  } else {
    attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
    if (transport_ == Transport::RC) {
      attr.qp_access_flags |= IBV_ACCESS_REMOTE_READ;
      if (device_.capabilities().atomics) attr.qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC;
    }
    mask |= IBV_QP_ACCESS_FLAGS;
  }
  return modify(attr, mask, QpState::Init, "INIT");
}

Status VerbsQueuePair::to_rtr(const fabric::Address* remote) {
  if (QpState s = state(); s != QpState::Init) {
    return fail(Status::InvalidState,
                fmt::format("to_rtr: {} is in {}; RTR is reached from INIT", name(), fabric::to_string(s)));
  }
  if (cm_) {
    return fail(Status::Unsupported,
                fmt::format("to_rtr: {} is an iWARP device: its QPs are connected by rdma_cm inside connect()",
                            device_.capabilities().device_name));
  }
  ibv_qp_attr attr{};
  if (transport_ == Transport::UD) {
    if (remote != nullptr) {
      return fail(Status::InvalidArgument, "to_rtr: a UD QP has no peer; pass nullptr (UD destinations are "
                                           "address handles, see Device::create_address_handle)");
    }
    return modify(attr, 0, QpState::ReadyToReceive, "RTR");
  }
  if (remote == nullptr) {
    return fail(Status::InvalidArgument,
                fmt::format("to_rtr: a {} QP needs the peer's address blob", fabric::to_string(transport_)));
  }
  RoutedEndpoint peer;
  std::string why;
  if (decode_address(*remote, transport_, device_.capabilities().link, peer, why) != Status::Ok) {
    return fail(Status::InvalidArgument, "to_rtr: " + why);
  }
  attr.path_mtu = std::min(device_.active_mtu(), peer.mtu);
  attr.dest_qp_num = peer.qp_num;
  attr.rq_psn = peer.psn;
  attr.ah_attr = device_.address_vector(peer);
  int mask = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
  if (transport_ == Transport::RC) {
    // What local_address() advertised as responder resources.
    attr.max_dest_rd_atomic = clamp_u8(device_.device_attr().max_qp_rd_atom);
    attr.min_rnr_timer = reliability_.min_rnr_timer;
    mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  }
  Status s = modify(attr, mask, QpState::ReadyToReceive, "RTR");
  if (s == Status::Ok) remote_ = peer;
  return s;
}

Status VerbsQueuePair::to_rts() {
  if (QpState s = state(); s != QpState::ReadyToReceive) {
    return fail(Status::InvalidState,
                fmt::format("to_rts: {} is in {}; RTS is reached from RTR", name(), fabric::to_string(s)));
  }
  if (cm_) {
    return fail(Status::Unsupported,
                fmt::format("to_rts: {} is an iWARP device: its QPs are connected by rdma_cm inside connect()",
                            device_.capabilities().device_name));
  }
  ibv_qp_attr attr{};
  attr.sq_psn = psn_;
  int mask = IBV_QP_SQ_PSN;
  if (transport_ == Transport::RC) {
    attr.timeout = reliability_.ack_timeout;
    attr.retry_cnt = reliability_.retry_count;
    attr.rnr_retry = reliability_.rnr_retry;
    // Never more reads in flight than the peer said it can serve.
    const uint8_t peer_resources = remote_ ? remote_->responder_resources : 1;
    attr.max_rd_atomic = std::min(clamp_u8(device_.device_attr().max_qp_init_rd_atom), peer_resources);
    mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
  }
  return modify(attr, mask, QpState::ReadyToSend, "RTS");
}

Status VerbsQueuePair::to_error() {
  ibv_qp_attr attr{};
  return modify(attr, 0, QpState::Error, "ERR");
}

Status VerbsQueuePair::to_reset() {
  ibv_qp_attr attr{};
  if (cm_) {
    cm_->reset();
    // iWARP providers only return to RESET (their IDLE) from ERR, not from RTS.
    if (state() != QpState::Reset && state() != QpState::Error) {
      if (Status s = modify(attr, 0, QpState::Error, "ERR"); s != Status::Ok) return s;
    }
  }
  Status s = modify(attr, 0, QpState::Reset, "RESET");
  if (s == Status::Ok) remote_.reset();
  return s;
}

Status VerbsQueuePair::connect(const fabric::Address* remote) {
  if (cm_) return connect_through_cm(remote);
  QpState s = state();
  if (s == QpState::Error) {
    return fail(Status::InvalidState, fmt::format("connect: {} is in ERR; reset it before connecting again", name()));
  }
  Status st = s == QpState::Reset ? to_init() : Status::Ok;
  if (st == Status::Ok && state_ == QpState::Init) st = to_rtr(remote);
  if (st == Status::Ok && state_ == QpState::ReadyToReceive) st = to_rts();
  return st;
}

Status VerbsQueuePair::connect_through_cm(const fabric::Address* remote) {
  QpState s = state();
  if (s == QpState::ReadyToSend) return Status::Ok;
  if (s == QpState::Error || s == QpState::ReadyToReceive) {
    return fail(Status::InvalidState,
                fmt::format("connect: {} is in {}; reset it before connecting again", name(), fabric::to_string(s)));
  }
  if (s == QpState::Reset) {
    if (Status st = to_init(); st != Status::Ok) return st;
  }
  if (remote == nullptr) return fail(Status::InvalidArgument, "connect: an RC QP needs the peer's address blob");
  IwarpEndpoint peer;
  std::string why;
  if (decode_address(*remote, transport_, peer, why) != Status::Ok) return fail(Status::InvalidArgument, "connect: " + why);

  Status st = cm_->advance(cm_endpoint(), peer, why);
  if (st == Status::InProgress) {
    return fail(st, fmt::format("connect: rdma_cm handshake of {} with {} in progress; call connect() again", name(),
                                to_string(peer)));
  }
  if (st != Status::Ok) return fail(st, fmt::format("connect: {}: {}", name(), why));

  // The provider moved the QP to RTS when the connection was established.
  state_ = query_state(qp_).value_or(QpState::ReadyToSend);
  if (state_ != QpState::ReadyToSend) {
    return fail(Status::IoError, fmt::format("connect: rdma_cm established {} with {}, but the QP is in {}", name(),
                                             to_string(peer), fabric::to_string(state_)));
  }
  return Status::Ok;
}

Status VerbsQueuePair::check_send_fully(const fabric::SendWr& wr, uint64_t total_bytes) {
  const Opcode op = wr.opcode;
  const fabric::DeviceCapabilities& caps = device_.capabilities();
  // Named only in refusals: not looked up on every post.
  const auto op_name = [op] { return fabric::to_string(op); };

  if (!fabric::is_valid(op)) {  // to_ibv_opcode would have posted it as a send
    return fail(Status::InvalidArgument,
                fmt::format("post_send: opcode {} is not a fabric::Opcode", static_cast<int>(op)));
  }

  if (transport_ == Transport::UD && op != Opcode::Send && op != Opcode::SendWithImm) {
    return fail(Status::Unsupported, fmt::format("post_send: {} is not available on UD QPs (UD carries sends only)", op_name()));
  }
  if (transport_ == Transport::UC && (op == Opcode::RdmaRead || is_atomic(op))) {
    return fail(Status::Unsupported,
                fmt::format("post_send: {} is not available on UC QPs (UC has sends and RDMA writes only)", op_name()));
  }
  if (is_atomic(op) && !caps.atomics) {
    return fail(Status::Unsupported, fmt::format("post_send: {} has no 8-byte remote atomics "
                                                 "(capabilities().atomics is false), {} is refused",
                                                 caps.device_name, op_name()));
  }
  if (op == Opcode::SendWithImm && !caps.send_with_imm) {
    return fail(Status::Unsupported, fmt::format("post_send: {} cannot send with immediate data "
                                                 "(capabilities().send_with_imm is false)",
                                                 caps.device_name));
  }
  if (op == Opcode::RdmaWriteWithImm && !caps.write_with_imm) {
    return fail(Status::Unsupported, fmt::format("post_send: {} cannot RDMA-write with immediate data "
                                                 "(capabilities().write_with_imm is false)",
                                                 caps.device_name));
  }

  if (wr.sg_list.size() > config_.max_send_sge) {
    return fail(Status::InvalidArgument, fmt::format("post_send: {} SGEs, but {} was created with max_send_sge {}",
                                                     wr.sg_list.size(), name(), config_.max_send_sge));
  }
  if (fabric::has(wr.flags, fabric::SendFlags::Inline)) {
    if (op == Opcode::RdmaRead || is_atomic(op)) {
      return fail(Status::InvalidArgument,
                  fmt::format("post_send: Inline applies to sends and RDMA writes, not to {}", op_name()));
    }
    if (total_bytes > config_.max_inline) {
      return fail(Status::InvalidArgument, fmt::format("post_send: inline payload of {} bytes exceeds {}'s max_inline {}",
                                                       total_bytes, name(), config_.max_inline));
    }
  }
  if (is_atomic(op)) {
    if (wr.sg_list.size() != 1 || wr.sg_list[0].length != 8) {
      return fail(Status::InvalidArgument,
                  fmt::format("post_send: {} needs exactly one 8-byte SGE (it receives the old value)", op_name()));
    }
    if (wr.remote_addr % 8 != 0) {
      return fail(Status::InvalidArgument,
                  fmt::format("post_send: {} remote_addr {:#x} is not 8-byte aligned", op_name(), wr.remote_addr));
    }
  }
  if (transport_ == Transport::UD) {
    if (wr.ah == nullptr) return fail(Status::InvalidArgument, "post_send: a UD send needs SendWr::ah");
    // VerbsAddressHandle is final: comparing the dynamic type is the whole dynamic_cast,
    // at a fraction of its cost on every UD send.
    if (typeid(*wr.ah) != typeid(VerbsAddressHandle)) {
      return fail(Status::InvalidArgument, "post_send: SendWr::ah was not made by a verbs device");
    }
    if (total_bytes > caps.mtu) {
      return fail(Status::InvalidArgument,
                  fmt::format("post_send: UD message of {} bytes exceeds the path MTU of {} bytes "
                              "(capabilities().mtu); segment it",
                              total_bytes, caps.mtu));
    }
  }
  return Status::Ok;
}

std::string VerbsQueuePair::closed_connection_message(const char* call) const {
  // An iWARP QP in ERR has no connection left, and iWARP providers do not flush WRs
  // posted after that: siw leaves them in its user-mapped queue forever (its doorbell
  // is ignored in ERR), cxgb4 refuses them. Refusing here, instead of accepting a WR
  // that would never complete, is the only honest answer.
  return fmt::format("{}: {} is in ERR (its iWARP connection is closed); iWARP devices do not flush work requests "
                     "posted after that, so it is refused; reset the QP and connect it again",
                     call, name());
}

Status VerbsQueuePair::post_send(const fabric::SendWr& wr) {
  // ERR is allowed on purpose: InfiniBand/RoCE providers complete WRs posted there with
  // a flush error (iWARP ones do not; see closed_connection_message).
  if (state_ != QpState::ReadyToSend && state_ != QpState::Error) {
    return fail(Status::InvalidState,
                fmt::format("post_send: {} is in {}; sends need RTS", name(), fabric::to_string(state_)));
  }
  if (state_ == QpState::Error && cm_) return fail(Status::InvalidState, closed_connection_message("post_send"));
  IbvSgeList sges(wr.sg_list);
  if (Status s = check_send(wr, sges.total_bytes()); s != Status::Ok) return s;

  ibv_send_wr ibv_wr{};
  ibv_wr.wr_id = wr.wr_id;
  ibv_wr.sg_list = sges.data();
  ibv_wr.num_sge = sges.size();
  ibv_wr.opcode = to_ibv_opcode(wr.opcode);
  ibv_wr.send_flags = to_ibv_send_flags(wr.flags);
  switch (wr.opcode) {
    case Opcode::SendWithImm:
    case Opcode::RdmaWriteWithImm:
      ibv_wr.imm_data = htonl(wr.imm_data);
      break;
    default:
      break;
  }
  switch (wr.opcode) {
    case Opcode::RdmaWrite:
    case Opcode::RdmaWriteWithImm:
    case Opcode::RdmaRead:
      ibv_wr.wr.rdma.remote_addr = wr.remote_addr;
      ibv_wr.wr.rdma.rkey = wr.rkey;
      break;
    case Opcode::AtomicCompareSwap:
    case Opcode::AtomicFetchAdd:
      ibv_wr.wr.atomic.remote_addr = wr.remote_addr;
      ibv_wr.wr.atomic.rkey = wr.rkey;
      ibv_wr.wr.atomic.compare_add = wr.compare_add;
      ibv_wr.wr.atomic.swap = wr.swap;
      break;
    default:
      break;
  }
  if (transport_ == Transport::UD) {
    const auto* ah = static_cast<const VerbsAddressHandle*>(wr.ah);
    ibv_wr.wr.ud.ah = ah->handle();
    ibv_wr.wr.ud.remote_qpn = ah->remote_qp_num();
    ibv_wr.wr.ud.remote_qkey = ah->remote_qkey();
  }
  ibv_send_wr* bad = nullptr;
  // Providers disagree on the sign of the errno they return (siw: -ENOMEM).
  const int rc = std::abs(ibv_post_send(qp_, &ibv_wr, &bad));
  note_device_activity();
  if (rc == 0) return Status::Ok;
  if (rc == ENOMEM) {
    return fail(Status::NoResource, fmt::format("post_send: the send queue of {} is full ({} WRs); poll the send CQ "
                                                "and retry",
                                                name(), config_.max_send_wr));
  }
  return fail(errno_status(rc), fmt::format("post_send: {}: {}", name(), errno_message("ibv_post_send", rc)));
}

Status VerbsQueuePair::post_recv(const fabric::RecvWr& wr) {
  if (state_ == QpState::Reset) {
    return fail(Status::InvalidState, fmt::format("post_recv: {} is in RESET; receives need INIT or later", name()));
  }
  if (state_ == QpState::Error && cm_) return fail(Status::InvalidState, closed_connection_message("post_recv"));
  if (config_.srq != nullptr) {
    return fail(Status::InvalidArgument,
                fmt::format("post_recv: {} takes its receives from its SRQ; post them to the SRQ", name()));
  }
  if (wr.sg_list.size() > config_.max_recv_sge) {
    return fail(Status::InvalidArgument, fmt::format("post_recv: {} SGEs, but {} was created with max_recv_sge {}",
                                                     wr.sg_list.size(), name(), config_.max_recv_sge));
  }
  const int rc = post_one_recv(qp_, wr);
  note_device_activity();
  if (rc == 0) return Status::Ok;
  if (rc == ENOMEM) {
    return fail(Status::NoResource, fmt::format("post_recv: the receive queue of {} is full ({} WRs)", name(),
                                                config_.max_recv_wr));
  }
  return fail(errno_status(rc), fmt::format("post_recv: {}: {}", name(), errno_message("ibv_post_recv", rc)));
}

}  // namespace twinfab::verbs
