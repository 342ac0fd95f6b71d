// twinfab MPI channels: user-level reliability over unreliable datagrams, one peer's
// two directions (seed 004 §4.1). Pure logic: no device, no clock of its own (times
// are passed in), no buffers (a packet is named by the caller's slot number), so that
// it is unit-tested with synthetic packets (tests/unit/mpi_ud_reliability_test.cpp)
// and the UD channel (ud_channel.hpp) only moves bytes.
//
// Sending side: a **sliding window** of `window` unacknowledged packets. Each packet
// gets the next sequence number and is kept (its slot, when it was last sent, how
// often) until a cumulative acknowledgement covers it. A packet unacknowledged for
// `retransmit_timeout` is sent again; after `max_retries` re-sends the peer is
// declared dead. A NACK re-sends the one packet it names at once (selective
// retransmission), at most once per `nack_holdoff`: a burst of NACKs for one gap
// costs one re-send.
//
// Tail loss: a lost packet is NACKed when a later one arrives, but the last packets
// of a burst have no later one, and the timeout (the seed's 0.4 s) would stall the
// sender that long. So, as TCP's tail-loss probe (RFC 8985), when the newest packet
// in flight is `probe_delay` old and still unacknowledged (the receiver's delayed
// ACK would have come by then), the sender asks for the receiver's ACK with a Probe;
// the answer names every packet sent before the Probe that did not arrive (a
// datagram path delivers in order), and those are sent again at once.
//
// Receiving side: packets are delivered **in order**, exactly once. A packet below
// the expected number is a duplicate (answered by an immediate ACK: the sender
// evidently missed ours); one ahead of it, within the window, is held until the gap
// is filled, and the gap is NACKed (once per `nack_holdoff`); one beyond the window is
// dropped. A gap is not NACKed at once: datagrams may arrive out of order without
// being lost (the IB specification promises UD no order; the simulator's fluid
// network lets a small datagram overtake a large one), so, as TCP's duplicate-ACK
// threshold, a gap is NACKed once kNackThreshold packets wait behind it or it has
// lasted `nack_holdoff`. **ACK coalescing** (as TCP's delayed ACK): the receiver owes an ACK for
// each packet delivered; the owed ACK rides on the next datagram to the peer, or goes
// alone once `ack_after` are owed, when the sender asks (its window is half full),
// or `ack_delay` after the first owed one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "mpi/channels/ud_wire.hpp"
#include "mpi/core/lazy_fifo.hpp"

namespace twinfab::mpi {

struct UdReliabilityParameters {
  std::uint32_t window = 128;            ///< unacknowledged packets per peer
  std::uint32_t ack_after = 32;          ///< owed ACKs that are sent at once
  double ack_delay = 1e-3;               ///< seconds an owed ACK may wait for a datagram to ride on
  double retransmit_timeout = 0.4;       ///< seconds without ACK before a re-send (seed 004 §5: 0.4 s)
  double nack_holdoff = 1e-3;            ///< seconds between two NACKs, or NACK re-sends, of one packet
  double probe_delay = 2e-3;             ///< seconds the newest packet waits unacknowledged before a Probe
  std::uint32_t max_retries = 25;        ///< re-sends of one packet before the peer is declared dead
};

/// The sending half towards one peer.
class UdSendWindow {
 public:
  struct InFlight {
    std::uint32_t seq = 0;
    std::uint32_t slot = 0;      ///< the caller's buffer holding the datagram
    double sent_at = 0;          ///< last (re-)send
    double nacked_at = -1;       ///< last re-send for a NACK (-1: none)
    std::uint32_t retries = 0;
  };

  /// Whether another packet may leave now.
  bool open(std::uint32_t window) const noexcept { return in_flight_.size() < window; }
  std::size_t in_flight() const noexcept { return in_flight_.size(); }
  bool empty() const noexcept { return in_flight_.empty(); }
  std::uint32_t next_seq() const noexcept { return next_seq_; }

  /// Records a packet sent now in `slot`; returns its sequence number.
  std::uint32_t sent(std::uint32_t slot, double now);
  /// A cumulative ACK: every packet before `ack` arrived. Appends the slots now free
  /// to `freed`; returns how many packets it acknowledged. An ACK for packets never
  /// sent (ahead of next_seq) or older than the window is ignored.
  std::size_t acknowledged(std::uint32_t ack, std::vector<std::uint32_t>& freed);
  /// A NACK for `seq`: the slot to send again now, or nothing (not in flight any more,
  /// or re-sent for a NACK within `holdoff`).
  std::optional<std::uint32_t> nacked(std::uint32_t seq, double now, double holdoff);
  /// The packets whose timeout expired at `now`, oldest first; each is marked re-sent
  /// (sent_at = now, retries + 1). Returns false, appending nothing more, when one of
  /// them has been re-sent `max_retries` times already: the peer is gone.
  bool expired(double now, const UdReliabilityParameters& p, std::vector<std::uint32_t>& slots);
  /// Whether a tail-loss Probe should leave now: the newest packet is `delay` old and
  /// no Probe is outstanding. One at a time, as TCP's (RFC 8985): an unanswered Probe
  /// (lost, or a receiver busy outside MPI) is left to the timeout, which re-sends and
  /// allows a new Probe. Probing again every `delay` flooded a computing receiver with
  /// thousands of Probes a second, which took every receive buffer it had.
  bool probe_due(double now, double delay) const noexcept {
    return !probing_ && !in_flight_.empty() && in_flight_.back().sent_at + delay <= now;
  }
  /// A Probe left: packets sent before it that its answer does not acknowledge were
  /// lost.
  void probe_sent() noexcept {
    probing_ = true;
    probe_seq_ = next_seq_;
  }
  /// The answer to the Probe (its ACK already applied): appends the packets sent
  /// before the Probe and still in flight, marked re-sent at `now`. Nothing without an
  /// outstanding Probe.
  void probe_answered(double now, std::vector<std::uint32_t>& slots);
  /// The receiver's receive queue ran out (an Ack flagged kUdFlagOverrun, its ACK
  /// already applied): appends the packets still in flight that were not sent in the
  /// last `holdoff` seconds (those may still be on their way, and a receiver that
  /// keeps running out must not draw a re-send of everything at each look), marked
  /// re-sent at `now`.
  void overrun(double now, double holdoff, std::vector<std::uint32_t>& slots);
  /// When the oldest packet's timeout expires, or a Probe is due, whichever is first
  /// (kNever: nothing in flight).
  double deadline(double timeout, double probe_delay) const noexcept;
  /// The retries of the oldest packet (for the error message of a dead peer).
  std::uint32_t oldest_retries() const noexcept { return in_flight_.empty() ? 0 : in_flight_.front().retries; }

  static constexpr double kNever = 1e300;

 private:
  std::uint32_t next_seq_ = 0;
  bool probing_ = false;
  std::uint32_t probe_seq_ = 0;  ///< next_seq_ when the outstanding Probe left
  LazyFifo<InFlight> in_flight_;  ///< consecutive sequence numbers, oldest first (nothing allocated while empty)
};

/// The receiving half from one peer.
class UdReceiveWindow {
 public:
  enum class Verdict : std::uint8_t {
    Deliver,    ///< the expected packet: hand it up now, then drain held()
    Hold,       ///< ahead of a gap, within the window: keep a copy
    Duplicate,  ///< already delivered (or already held): drop, ACK at once
    OutOfWindow,  ///< too far ahead: drop
  };
  /// Classifies Data packet `seq` (does not change state for Hold: call hold()).
  Verdict classify(std::uint32_t seq, std::uint32_t window) const noexcept;
  /// The expected packet was handed up: the next one is expected, one more ACK owed.
  void delivered(double now);
  /// A packet classified Hold is kept by the caller under `seq`.
  void hold(std::uint32_t seq, std::vector<std::byte> datagram, double now) {
    if (held_.empty()) gap_since_ = now;
    held_.emplace(seq, std::move(datagram));
  }
  /// The held packet that is expected now, if any (moved out; deliver it, then call
  /// delivered()).
  std::optional<std::vector<std::byte>> take_next_held();
  bool has_held() const noexcept { return !held_.empty(); }

  /// The ACK value every datagram to the peer carries.
  std::uint32_t ack_value() const noexcept { return expected_; }
  /// A datagram carrying ack_value() went to the peer.
  void ack_sent() noexcept {
    owed_ = 0;
    ack_due_ = kNever;
  }
  /// Whether an explicit ACK should leave now (owed ones reached ack_after, or their
  /// delay ran out).
  bool ack_needed(double now, const UdReliabilityParameters& p) const noexcept {
    return owed_ > 0 && (owed_ >= p.ack_after || now >= ack_due_);
  }
  std::uint32_t owed() const noexcept { return owed_; }
  /// An ACK is due now even if nothing new was delivered (a duplicate arrived: the
  /// sender missed an ACK). Several in one progress pass make one ACK.
  void ack_now(double now) noexcept {
    if (owed_ == 0) owed_ = 1;
    ack_due_ = now;
  }
  /// When an owed ACK must leave at the latest (kNever: none owed).
  double ack_deadline() const noexcept { return ack_due_; }
  /// Whether the gap at ack_value() should be NACKed now; if so, records it.
  bool nack_due(double now, double holdoff) noexcept;
  /// When the current gap may be NACKed at the latest (kNever: no gap).
  double nack_deadline(double holdoff) const noexcept;
  /// Packets held behind a gap that make it a loss rather than a reordering.
  static constexpr std::size_t kNackThreshold = 3;

  void set_ack_delay(double delay) noexcept { ack_delay_ = delay; }

  static constexpr double kNever = UdSendWindow::kNever;

 private:
  std::uint32_t expected_ = 0;
  std::uint32_t owed_ = 0;
  double ack_due_ = kNever;
  double ack_delay_ = 1e-3;
  std::uint32_t nacked_seq_ = 0;
  double nacked_at_ = -1;
  double gap_since_ = 0;  ///< when the current gap (at expected_) opened
  std::map<std::uint32_t, std::vector<std::byte>> held_;  ///< keyed by seq; at most `window` entries
};

}  // namespace twinfab::mpi
