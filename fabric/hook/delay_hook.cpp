#include "fabric/hook/delay_hook.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::fabric::hook {

/// The inner runtime, with waits cut at the next held WR's time (see the header).
class DelayHook::DelayRuntime final : public Runtime {
 public:
  DelayRuntime(DelayHook& hook, Runtime& inner) : hook_(hook), inner_(inner) {}

  double now() const override { return inner_.now(); }
  Status wait(std::span<CompletionQueue* const> sources, double deadline) override {
    return cut(deadline, [&](double until) { return inner_.wait(sources, until); });
  }
  Status wait_for_completion(std::span<CompletionQueue* const> sources, double deadline) override {
    return cut(deadline, [&](double until) { return inner_.wait_for_completion(sources, until); });
  }
  Status wait_for_event(std::span<CompletionQueue* const> sources, double deadline) override {
    return cut(deadline, [&](double until) { return inner_.wait_for_event(sources, until); });
  }
  void sleep_for(double seconds) override {
    check_time(seconds, "sleep_for");
    sliced(seconds, [&](double slice) { inner_.sleep_for(slice); });
  }
  void idle_for(double seconds) override {
    check_time(seconds, "idle_for");
    sliced(seconds, [&](double slice) { inner_.idle_for(slice); });
  }
  void charge_cpu(double seconds) override { inner_.charge_cpu(seconds); }
  void yield() override {
    inner_.yield();
    hook_.release_due();
  }
  std::unique_ptr<Agent> spawn(const std::string& name, std::function<void()> body) override {
    return inner_.spawn(name, std::move(body));
  }
  bool on_agent() const override { return inner_.on_agent(); }

 private:
  /// Spends `seconds` through `spend` in slices that end when a held WR is due: the
  /// WR leaves on time, the computation (or idling) takes as long as it would have.
  template <class Spend>
  void sliced(double seconds, Spend spend) {
    while (seconds > 0) {
      hook_.release_due();
      const double until_due = hook_.next_due() - inner_.now();
      const double slice = until_due > 0 ? std::min(seconds, until_due) : seconds;
      spend(slice);
      seconds -= slice;
    }
    hook_.release_due();
  }
  template <class Wait>
  Status cut(double deadline, Wait wait) {
    check_time(deadline, "wait");
    // Something handed on now may complete at once: let the caller poll first.
    if (hook_.release_due() > 0) return Status::Ok;
    const double due = hook_.next_due();
    if (!(due < deadline)) return wait(deadline);
    const Status s = wait(due);
    hook_.release_due();
    // Woken for the held WR, not for the caller: a spurious return, which the
    // contract allows; the caller polls and waits again.
    return s == Status::Timeout ? Status::Ok : s;
  }

  DelayHook& hook_;
  Runtime& inner_;
};

DelayHook::DelayHook(std::unique_ptr<Device> inner, double mean, double jitter, uint64_t seed)
    : DeviceDecorator(std::move(inner)), mean_(mean), jitter_(jitter), rng_(seed) {
  check_parameters(mean, jitter);
  runtime_ = std::make_unique<DelayRuntime>(*this, DeviceDecorator::runtime());
}

DelayHook::DelayHook(Device& inner, double mean, double jitter, uint64_t seed)
    : DeviceDecorator(inner), mean_(mean), jitter_(jitter), rng_(seed) {
  check_parameters(mean, jitter);
  runtime_ = std::make_unique<DelayRuntime>(*this, DeviceDecorator::runtime());
}

DelayHook::~DelayHook() = default;

void DelayHook::check_parameters(double mean, double jitter) {
  constexpr double kMaxSeconds = 3600;
  if (!std::isfinite(mean) || mean < 0 || mean > kMaxSeconds)
    throw Error(Status::InvalidArgument,
                fmt::format("delay hook: mean delay {} s must be a number of seconds in [0, {}]", mean, kMaxSeconds));
  if (!std::isfinite(jitter) || jitter < 0)
    throw Error(Status::InvalidArgument,
                fmt::format("delay hook: jitter {} s must be a non-negative number of seconds", jitter));
  if (jitter > mean)
    throw Error(Status::InvalidArgument,
                fmt::format("delay hook: jitter {} s is larger than the mean delay {} s; delays are drawn from "
                            "[mean - jitter, mean + jitter] and cannot be negative, so jitter must be <= mean",
                            jitter, mean));
}

Runtime& DelayHook::runtime() noexcept { return *runtime_; }

std::unique_ptr<QueuePair> DelayHook::create_qp(const QpConfig& config) {
  auto qp = DeviceDecorator::create_qp(config);
  std::lock_guard lock(state_mutex_);
  QpLine& line = lines_[qp->qp_num()];
  line = QpLine{};
  line.capacity = config.max_send_wr;
  return qp;
}

DelayHook::Counters DelayHook::counters() const {
  std::lock_guard lock(state_mutex_);
  return counters_;
}

size_t DelayHook::held() const {
  std::lock_guard lock(state_mutex_);
  return held_count_;
}

double DelayHook::draw() {
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  return mean_ + jitter_ * (2 * u - 1);
}

Status DelayHook::on_post_send(QueuePairDecorator& qp, const SendWr& wr) {
  release_due();  // older WRs first
  const double now = DeviceDecorator::runtime().now();
  const QpState state = qp.state();
  {
    std::lock_guard lock(state_mutex_);
    QpLine& line = lines_[qp.qp_num()];
    const bool line_empty = line.held.empty() && line.in_release == 0;
    // Straight on when there is nothing to delay and nothing ahead of it, and when the
    // QP cannot send (before RTS: the inner QP's refusal and error; in ERR with nothing
    // held: its flush) (below, unlocked).
    const bool forward = line_empty && ((mean_ == 0 && jitter_ == 0) || state != QpState::ReadyToSend);
    if (!forward) {
      if (line.held.size() >= line.capacity) {
        qp.set_hook_error(fmt::format("send queue full: {} WRs held by the delay hook (max_send_wr {})",
                                      line.held.size(), line.capacity));
        return Status::NoResource;
      }
      const double delay = draw();
      Held h;
      h.posted = now;
      h.due = std::max(now + delay, line_empty ? now : line.last_due);
      h.order = next_order_++;
      h.wr = wr;
      if (has(wr.flags, SendFlags::Inline)) {
        // The caller may reuse an inline payload at once: keep a copy, as one SGE.
        for (const Sge& s : wr.sg_list) {
          const auto* p = reinterpret_cast<const std::byte*>(static_cast<uintptr_t>(s.addr));
          h.inline_data.insert(h.inline_data.end(), p, p + s.length);
        }
        h.sges.push_back(Sge{reinterpret_cast<uint64_t>(h.inline_data.data()),
                             static_cast<uint32_t>(h.inline_data.size()), 0});
      } else {
        h.sges.assign(wr.sg_list.begin(), wr.sg_list.end());
      }
      line.last_due = h.due;
      line.held.push_back(std::move(h));
      ++held_count_;
      ++counters_.delayed;
      return Status::Ok;
    }
  }
  return qp.forward_post_send(wr);
}

void DelayHook::on_poll(CompletionQueueDecorator&) {
  {
    // A poll may have freed room in a full inner send queue: try blocked lines again.
    std::lock_guard lock(state_mutex_);
    if (blocked_count_ > 0) {
      for (auto& [num, line] : lines_) line.blocked = false;
      blocked_count_ = 0;
    }
  }
  release_due();
}

double DelayHook::next_due() const {
  std::lock_guard lock(state_mutex_);
  double due = std::numeric_limits<double>::infinity();
  if (held_count_ == 0) return due;
  for (const auto& [num, line] : lines_)
    if (!line.held.empty() && !line.blocked) due = std::min(due, line.held.front().due);
  return due;
}

size_t DelayHook::release_due() {
  size_t released = 0;
  {
    std::lock_guard lock(state_mutex_);
    if (releasing_ || held_count_ == 0) return 0;
    releasing_ = true;
  }
  for (;;) {
    const double now = DeviceDecorator::runtime().now();
    uint32_t qp_num = 0;
    Held h;
    {
      std::lock_guard lock(state_mutex_);
      // The earliest due WR at the head of a line, ties by posting order.
      QpLine* best = nullptr;
      for (auto& [num, line] : lines_) {
        if (line.held.empty() || line.blocked || line.held.front().due > now) continue;
        if (best == nullptr || line.held.front().due < best->held.front().due ||
            (line.held.front().due == best->held.front().due && line.held.front().order < best->held.front().order)) {
          best = &line;
          qp_num = num;
        }
      }
      if (best == nullptr) {
        releasing_ = false;
        return released;
      }
      h = std::move(best->held.front());
      best->held.pop_front();
      ++best->in_release;
      --held_count_;
    }
    QueuePairDecorator* qp = find_qp(qp_num);
    Status s = Status::InvalidState;
    if (qp != nullptr) {
      SendWr wr = h.wr;
      wr.sg_list = std::span<const Sge>(h.sges);
      s = qp->forward_post_send(wr);
    }
    std::lock_guard lock(state_mutex_);
    auto line = lines_.find(qp_num);
    if (line != lines_.end()) --line->second.in_release;
    if (s == Status::NoResource && line != lines_.end()) {
      // The inner send queue is full: first in line again, tried after the next poll.
      line->second.held.push_front(std::move(h));
      if (!line->second.blocked) ++blocked_count_;
      line->second.blocked = true;
      ++held_count_;
      continue;
    }
    if (s == Status::Ok) {
      ++counters_.released;
      counters_.total_delay += now - h.posted;
      ++released;
    } else {
      ++counters_.release_failures;
      if (qp != nullptr)
        log().warn("delay hook: QP {} refused a held WR (wr_id {}) when it was due: {} ({}); it is lost",
                   qp_num, h.wr.wr_id, to_string(s), qp->last_error());
    }
  }
}

void DelayHook::discard(uint32_t qp_num) {
  std::lock_guard lock(state_mutex_);
  auto line = lines_.find(qp_num);
  if (line == lines_.end()) return;
  counters_.discarded += line->second.held.size();
  held_count_ -= line->second.held.size();
  line->second.held.clear();
  if (line->second.blocked) --blocked_count_;
  line->second.blocked = false;
}

void DelayHook::on_qp_destroyed(QueuePairDecorator& qp) {
  discard(qp.qp_num());
  std::lock_guard lock(state_mutex_);
  auto line = lines_.find(qp.qp_num());
  if (line != lines_.end() && line->second.in_release == 0) lines_.erase(line);
}

void DelayHook::on_transition(QueuePairDecorator& qp, QpState requested, Status result) {
  if (requested == QpState::Reset && result == Status::Ok) discard(qp.qp_num());
}

}  // namespace twinfab::fabric::hook
