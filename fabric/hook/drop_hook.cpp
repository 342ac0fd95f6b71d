#include "fabric/hook/drop_hook.hpp"

#include <fmt/format.h>

#include <utility>

#include "fabric/error.hpp"

namespace twinfab::fabric::hook {

DropHook::DropHook(std::unique_ptr<Device> inner, double probability, uint64_t seed)
    : DeviceDecorator(std::move(inner)), probability_(probability), rng_(seed) {
  check_probability(probability);
}

DropHook::DropHook(Device& inner, double probability, uint64_t seed)
    : DeviceDecorator(inner), probability_(probability), rng_(seed) {
  check_probability(probability);
}

void DropHook::check_probability(double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw Error(Status::InvalidArgument, fmt::format("drop probability {} is outside [0, 1]", p));
  }
}

void DropHook::set_probability(double probability) {
  check_probability(probability);
  std::lock_guard lock(state_mutex_);
  probability_ = probability;
}

double DropHook::probability() const {
  std::lock_guard lock(state_mutex_);
  return probability_;
}

DropHook::Counters DropHook::counters() const {
  std::lock_guard lock(state_mutex_);
  return counters_;
}

void DropHook::remember(const void* queue, const RecvWr& wr) {
  std::lock_guard lock(state_mutex_);
  ledgers_[queue][wr.wr_id].emplace_back(wr.sg_list.begin(), wr.sg_list.end());
}

void DropHook::forget_last(const void* queue, uint64_t wr_id) {
  std::lock_guard lock(state_mutex_);
  forget_last_locked(queue, wr_id);
}

void DropHook::forget_last_locked(const void* queue, uint64_t wr_id) {
  auto ledger = ledgers_.find(queue);
  if (ledger == ledgers_.end()) return;
  auto records = ledger->second.find(wr_id);
  if (records == ledger->second.end()) return;
  records->second.pop_back();
  if (records->second.empty()) ledger->second.erase(records);
}

Status DropHook::on_post_recv(QueuePairDecorator& qp, const RecvWr& wr) {
  if (!droppable(qp.transport())) return DeviceDecorator::on_post_recv(qp, wr);
  // Recorded before posting: on hardware another thread may poll the completion
  // before post_recv returns.
  remember(&qp, wr);
  Status s = DeviceDecorator::on_post_recv(qp, wr);
  if (s != Status::Ok) forget_last(&qp, wr.wr_id);
  return s;
}

Status DropHook::on_srq_post_recv(SharedReceiveQueueDecorator& srq, const RecvWr& wr) {
  // An SRQ may serve QPs of any transport; which one consumes a receive is known only
  // at completion time, so every SRQ receive is recorded.
  remember(&srq, wr);
  Status s = DeviceDecorator::on_srq_post_recv(srq, wr);
  if (s != Status::Ok) forget_last(&srq, wr.wr_id);
  return s;
}

CompletionVerdict DropHook::on_poll_completion(CompletionQueueDecorator&, const WorkCompletion& wc) {
  if (wc.opcode != WcOpcode::Recv && wc.opcode != WcOpcode::RecvRdmaWithImm) return CompletionVerdict::Keep;
  QueuePairDecorator* qp = find_qp(wc.qp_num);
  if (qp == nullptr) return CompletionVerdict::Keep;
  SharedReceiveQueueDecorator* srq = qp->srq();
  const void* queue = srq != nullptr ? static_cast<const void*>(srq) : static_cast<const void*>(qp);
  if (srq == nullptr && !droppable(qp->transport())) return CompletionVerdict::Keep;  // RC: never recorded

  SgeList sges;
  {
    std::lock_guard lock(state_mutex_);
    auto ledger = ledgers_.find(queue);
    if (ledger == ledgers_.end()) return CompletionVerdict::Keep;
    auto records = ledger->second.find(wc.wr_id);
    if (records == ledger->second.end()) return CompletionVerdict::Keep;  // not posted through us
    sges = std::move(records->second.front());
    records->second.pop_front();
    if (records->second.empty()) ledger->second.erase(records);

    if (wc.status != WcStatus::Success || !droppable(qp->transport())) return CompletionVerdict::Keep;
    ++counters_.seen;
    // 53 random bits -> [0, 1): the same on every standard library, unlike
    // std::uniform_real_distribution, so drop sequences are portable.
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    if (!(u < probability_)) return CompletionVerdict::Keep;
    // Outstanding again: record before re-posting (see on_post_recv).
    ledger->second[wc.wr_id].push_back(sges);
  }

  const RecvWr again{wc.wr_id, std::span<const Sge>(sges)};
  // Straight to the inner queue: the receive is already recorded, and a refusal must
  // not overwrite the application-visible last_error().
  Status s = srq != nullptr ? srq->inner().post_recv(again) : qp->inner().post_recv(again);
  std::lock_guard lock(state_mutex_);
  if (s != Status::Ok) {
    // The buffer could not be handed back to the device: deliver the message instead
    // of losing the buffer.
    ++counters_.repost_failures;
    forget_last_locked(queue, wc.wr_id);
    return CompletionVerdict::Keep;
  }
  ++counters_.dropped;
  return CompletionVerdict::Drop;
}

void DropHook::on_qp_destroyed(QueuePairDecorator& qp) {
  std::lock_guard lock(state_mutex_);
  ledgers_.erase(&qp);
}

void DropHook::on_srq_destroyed(SharedReceiveQueueDecorator& srq) {
  std::lock_guard lock(state_mutex_);
  ledgers_.erase(&srq);
}

void DropHook::on_transition(QueuePairDecorator& qp, QpState requested, Status result) {
  // RESET discards every outstanding receive of the QP's own queue.
  if (requested == QpState::Reset && result == Status::Ok) {
    std::lock_guard lock(state_mutex_);
    ledgers_.erase(&qp);
  }
}

}  // namespace twinfab::fabric::hook
