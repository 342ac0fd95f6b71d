#include "mpi/channels/ud_reliability.hpp"

#include <algorithm>

namespace twinfab::mpi {

std::uint32_t UdSendWindow::sent(std::uint32_t slot, double now) {
  const std::uint32_t seq = next_seq_++;
  in_flight_.push_back(InFlight{seq, slot, now, -1, 0});
  return seq;
}

std::size_t UdSendWindow::acknowledged(std::uint32_t ack, std::vector<std::uint32_t>& freed) {
  // Valid: oldest in flight <= ack <= next_seq. An ACK beyond next_seq acknowledges
  // packets never sent (a stale or forged datagram); one before the oldest is old news.
  if (in_flight_.empty() || seq_before(next_seq_, ack) || !seq_before(in_flight_.front().seq, ack)) return 0;
  std::size_t n = 0;
  while (!in_flight_.empty() && seq_before(in_flight_.front().seq, ack)) {
    freed.push_back(in_flight_.front().slot);
    in_flight_.pop_front();
    ++n;
  }
  if (in_flight_.empty()) probing_ = false;  // nothing left to ask about
  return n;
}

std::optional<std::uint32_t> UdSendWindow::nacked(std::uint32_t seq, double now, double holdoff) {
  if (in_flight_.empty() || seq_before(seq, in_flight_.front().seq) || !seq_before(seq, next_seq_)) return std::nullopt;
  InFlight& f = in_flight_[seq - in_flight_.front().seq];  // consecutive numbers: direct index
  if (f.nacked_at >= 0 && now - f.nacked_at < holdoff) return std::nullopt;
  f.nacked_at = now;
  f.sent_at = now;
  return f.slot;
}

bool UdSendWindow::expired(double now, const UdReliabilityParameters& p, std::vector<std::uint32_t>& slots) {
  // Re-sent packets move their sent_at forward, so the queue is not sorted by it:
  // look at all of them (at most `window`, and only when the oldest timer ran out).
  if (in_flight_.empty() || deadline(p.retransmit_timeout, UdSendWindow::kNever) > now) return true;
  for (InFlight& f : in_flight_) {
    if (f.sent_at + p.retransmit_timeout > now) continue;
    if (f.retries >= p.max_retries) return false;
    ++f.retries;
    f.sent_at = now;
    slots.push_back(f.slot);
  }
  probing_ = false;  // an unanswered Probe is given up: the re-sends may be probed anew
  return true;
}

void UdSendWindow::probe_answered(double now, std::vector<std::uint32_t>& slots) {
  if (!probing_) return;
  probing_ = false;
  for (InFlight& f : in_flight_) {
    if (!seq_before(f.seq, probe_seq_)) break;
    f.sent_at = now;
    slots.push_back(f.slot);
  }
}

void UdSendWindow::overrun(double now, double holdoff, std::vector<std::uint32_t>& slots) {
  const std::size_t before = slots.size();
  for (InFlight& f : in_flight_) {
    if (now - f.sent_at < holdoff) continue;
    f.sent_at = now;
    slots.push_back(f.slot);
  }
  // An outstanding Probe most likely found no receive either: the re-sends may be
  // probed anew (as after a timeout).
  if (slots.size() > before) probing_ = false;
}

double UdSendWindow::deadline(double timeout, double probe_delay) const noexcept {
  double earliest = kNever;
  for (const InFlight& f : in_flight_) earliest = std::min(earliest, f.sent_at + timeout);
  if (!in_flight_.empty() && !probing_) earliest = std::min(earliest, in_flight_.back().sent_at + probe_delay);
  return earliest;
}

UdReceiveWindow::Verdict UdReceiveWindow::classify(std::uint32_t seq, std::uint32_t window) const noexcept {
  if (seq == expected_) return Verdict::Deliver;
  if (seq_before(seq, expected_)) return Verdict::Duplicate;
  if (seq - expected_ >= window) return Verdict::OutOfWindow;
  return held_.count(seq) != 0 ? Verdict::Duplicate : Verdict::Hold;
}

void UdReceiveWindow::delivered(double now) {
  ++expected_;
  if (!held_.empty() && held_.count(expected_) == 0) gap_since_ = now;  // the next gap opens
  if (owed_++ == 0) ack_due_ = now + ack_delay_;
}

std::optional<std::vector<std::byte>> UdReceiveWindow::take_next_held() {
  const auto it = held_.find(expected_);
  if (it == held_.end()) return std::nullopt;
  std::vector<std::byte> datagram = std::move(it->second);
  held_.erase(it);
  return datagram;
}

bool UdReceiveWindow::nack_due(double now, double holdoff) noexcept {
  if (held_.empty()) return false;
  if (nacked_at_ >= 0 && nacked_seq_ == expected_) {
    if (now - nacked_at_ < holdoff) return false;  // NACKed recently: the re-send may be on its way
  } else if (held_.size() < kNackThreshold && now - gap_since_ < holdoff) {
    return false;  // may be a reordering, not a loss
  }
  nacked_seq_ = expected_;
  nacked_at_ = now;
  return true;
}

double UdReceiveWindow::nack_deadline(double holdoff) const noexcept {
  if (held_.empty()) return kNever;
  return (nacked_at_ >= 0 && nacked_seq_ == expected_ ? nacked_at_ : gap_since_) + holdoff;
}

}  // namespace twinfab::mpi
