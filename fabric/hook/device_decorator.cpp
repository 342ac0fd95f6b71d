#include "fabric/hook/device_decorator.hpp"

#include <fmt/format.h>

#include <utility>

#include "fabric/error.hpp"

namespace twinfab::fabric::hook {

// ---------------------------------------------------------------- completion queue

CompletionQueueDecorator::CompletionQueueDecorator(DeviceDecorator& device, std::unique_ptr<CompletionQueue> inner)
    : device_(device), inner_(std::move(inner)) {}

size_t CompletionQueueDecorator::poll(std::span<WorkCompletion> out) {
  device_.on_poll(*this);
  size_t kept = 0;
  while (kept < out.size()) {
    const size_t room = out.size() - kept;
    const size_t got = inner_->poll(out.subspan(kept, room));
    if (got == 0) break;
    size_t write = kept;
    for (size_t i = kept; i < kept + got; ++i) {
      if (device_.on_poll_completion(*this, out[i]) == CompletionVerdict::Keep) {
        if (write != i) out[write] = out[i];
        ++write;
      }
    }
    kept = write;
    // A short batch means the inner CQ was empty; only a drop makes another poll useful.
    if (got < room) break;
  }
  return kept;
}

// ---------------------------------------------------------------- shared receive queue

SharedReceiveQueueDecorator::SharedReceiveQueueDecorator(DeviceDecorator& device,
                                                         std::unique_ptr<SharedReceiveQueue> inner)
    : device_(device), inner_(std::move(inner)) {}

SharedReceiveQueueDecorator::~SharedReceiveQueueDecorator() { device_.on_srq_destroyed(*this); }

Status SharedReceiveQueueDecorator::post_recv(const RecvWr& wr) { return device_.on_srq_post_recv(*this, wr); }

// ---------------------------------------------------------------- queue pair

QueuePairDecorator::QueuePairDecorator(DeviceDecorator& device, std::unique_ptr<QueuePair> inner,
                                       CompletionQueueDecorator* send_cq, CompletionQueueDecorator* recv_cq,
                                       SharedReceiveQueueDecorator* srq)
    : device_(device),
      inner_(std::move(inner)),
      send_cq_(send_cq),
      recv_cq_(recv_cq),
      srq_(srq),
      qp_num_(inner_->qp_num()) {}

QueuePairDecorator::~QueuePairDecorator() {
  device_.on_qp_destroyed(*this);
  device_.forget_qp(*this);
}

Status QueuePairDecorator::track(Status s) noexcept {
  if (s != Status::Ok) hook_error_is_last_ = false;
  return s;
}

Status QueuePairDecorator::to_init() {
  Status s = track(inner_->to_init());
  device_.on_transition(*this, QpState::Init, s);
  return s;
}

Status QueuePairDecorator::to_rtr(const Address* remote) {
  Status s = track(inner_->to_rtr(remote));
  device_.on_transition(*this, QpState::ReadyToReceive, s);
  return s;
}

Status QueuePairDecorator::to_rts() {
  Status s = track(inner_->to_rts());
  device_.on_transition(*this, QpState::ReadyToSend, s);
  return s;
}

Status QueuePairDecorator::to_error() {
  Status s = track(inner_->to_error());
  device_.on_transition(*this, QpState::Error, s);
  return s;
}

Status QueuePairDecorator::to_reset() {
  Status s = track(inner_->to_reset());
  device_.on_transition(*this, QpState::Reset, s);
  return s;
}

Status QueuePairDecorator::connect(const Address* remote) {
  Status s = track(inner_->connect(remote));
  device_.on_transition(*this, QpState::ReadyToSend, s);
  return s;
}

Status QueuePairDecorator::post_send(const SendWr& wr) { return device_.on_post_send(*this, wr); }

Status QueuePairDecorator::post_recv(const RecvWr& wr) { return device_.on_post_recv(*this, wr); }

Status QueuePairDecorator::forward_post_send(const SendWr& wr) { return track(inner_->post_send(wr)); }

Status QueuePairDecorator::forward_post_recv(const RecvWr& wr) { return track(inner_->post_recv(wr)); }

void QueuePairDecorator::set_hook_error(std::string why) {
  hook_error_ = std::move(why);
  hook_error_is_last_ = true;
}

const std::string& QueuePairDecorator::last_error() const noexcept {
  return hook_error_is_last_ ? hook_error_ : inner_->last_error();
}

// ---------------------------------------------------------------- device

DeviceDecorator::DeviceDecorator(std::unique_ptr<Device> inner) : owned_(std::move(inner)), inner_(owned_.get()) {
  if (inner_ == nullptr) throw Error(Status::InvalidArgument, "DeviceDecorator needs a device to wrap, got nullptr");
}

DeviceDecorator::DeviceDecorator(Device& inner) : inner_(&inner) {}

DeviceDecorator::~DeviceDecorator() = default;

std::unique_ptr<MemoryRegion> DeviceDecorator::register_memory(void* addr, size_t length, Access access) {
  return inner_->register_memory(addr, length, access);
}

std::unique_ptr<CompletionQueue> DeviceDecorator::create_cq(uint32_t capacity) {
  return std::make_unique<CompletionQueueDecorator>(*this, inner_->create_cq(capacity));
}

std::unique_ptr<SharedReceiveQueue> DeviceDecorator::create_srq(uint32_t capacity, uint32_t max_sge) {
  return std::make_unique<SharedReceiveQueueDecorator>(*this, inner_->create_srq(capacity, max_sge));
}

CompletionQueueDecorator* DeviceDecorator::own_cq(CompletionQueue* cq, const char* which) const {
  if (cq == nullptr) return nullptr;  // the inner device reports a missing CQ itself
  auto* mine = dynamic_cast<CompletionQueueDecorator*>(cq);
  if (mine == nullptr || &mine->device() != this) {
    throw Error(Status::InvalidArgument,
                fmt::format("QpConfig::{} was not created by this hooked device: create the CQs through the "
                            "same DeviceDecorator as the QP",
                            which));
  }
  return mine;
}

SharedReceiveQueueDecorator* DeviceDecorator::own_srq(SharedReceiveQueue* srq) const {
  if (srq == nullptr) return nullptr;
  auto* mine = dynamic_cast<SharedReceiveQueueDecorator*>(srq);
  if (mine == nullptr || &mine->device() != this) {
    throw Error(Status::InvalidArgument,
                "QpConfig::srq was not created by this hooked device: create the SRQ through the same "
                "DeviceDecorator as the QP");
  }
  return mine;
}

std::unique_ptr<QueuePair> DeviceDecorator::create_qp(const QpConfig& config) {
  CompletionQueueDecorator* send_cq = own_cq(config.send_cq, "send_cq");
  CompletionQueueDecorator* recv_cq = own_cq(config.recv_cq, "recv_cq");
  SharedReceiveQueueDecorator* srq = own_srq(config.srq);

  QpConfig inner_config = config;
  inner_config.send_cq = send_cq ? &send_cq->inner() : nullptr;
  inner_config.recv_cq = recv_cq ? &recv_cq->inner() : nullptr;
  inner_config.srq = srq ? &srq->inner() : nullptr;

  auto qp = std::make_unique<QueuePairDecorator>(*this, inner_->create_qp(inner_config), send_cq, recv_cq, srq);
  {
    std::lock_guard lock(mutex_);
    qps_[qp->qp_num()] = qp.get();
  }
  on_qp_created(*qp);
  return qp;
}

std::unique_ptr<AddressHandle> DeviceDecorator::create_address_handle(const Address& remote_ud_qp) {
  return inner_->create_address_handle(remote_ud_qp);
}

QueuePairDecorator* DeviceDecorator::find_qp(uint32_t qp_num) const {
  std::lock_guard lock(mutex_);
  auto it = qps_.find(qp_num);
  return it == qps_.end() ? nullptr : it->second;
}

void DeviceDecorator::forget_qp(QueuePairDecorator& qp) {
  std::lock_guard lock(mutex_);
  auto it = qps_.find(qp.qp_num());
  if (it != qps_.end() && it->second == &qp) qps_.erase(it);
}

Status DeviceDecorator::on_post_send(QueuePairDecorator& qp, const SendWr& wr) { return qp.forward_post_send(wr); }

Status DeviceDecorator::on_post_recv(QueuePairDecorator& qp, const RecvWr& wr) { return qp.forward_post_recv(wr); }

Status DeviceDecorator::on_srq_post_recv(SharedReceiveQueueDecorator& srq, const RecvWr& wr) {
  return srq.inner().post_recv(wr);
}

CompletionVerdict DeviceDecorator::on_poll_completion(CompletionQueueDecorator&, const WorkCompletion&) {
  return CompletionVerdict::Keep;
}

void DeviceDecorator::on_poll(CompletionQueueDecorator&) {}

void DeviceDecorator::on_qp_created(QueuePairDecorator&) {}
void DeviceDecorator::on_qp_destroyed(QueuePairDecorator&) {}
void DeviceDecorator::on_srq_destroyed(SharedReceiveQueueDecorator&) {}
void DeviceDecorator::on_transition(QueuePairDecorator&, QpState, Status) {}

}  // namespace twinfab::fabric::hook
