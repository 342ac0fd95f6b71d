#include "mpi/channels/hybrid_channel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "fabric/log.hpp"
#include "mpi/channels/rc_channel.hpp"
#include "mpi/channels/ud_channel.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

// How often the shutdown's agent looks whether the fence is over.
constexpr double kStopCheckInterval = 20e-6;

/// The RC half connects on demand, whatever TWINFAB_CONNECT says: connecting every
/// pair at start-up would be RC alone.
Config rc_config(const Config& config) {
  Config c = config;
  c.connect = ConnectMode::OnDemand;
  return c;
}


}  // namespace

HybridChannel::HybridChannel(fabric::Device& device, fabric::OobExchange& oob, const Config& config,
                             PacketSink& sink)
    : oob_(oob),
      runtime_(device.runtime()),
      sink_(sink),
      threshold_(config.hybrid_rc_threshold),
      max_rc_(config.hybrid_max_rc),
      ud_side_(*this, false),
      rc_side_(*this, true),
      oob_keys_(oob) {
  // UD first: on a device without UD it refuses, naming TWINFAB_TRANSPORT.
  ud_ = std::make_unique<UdChannel>(device, oob_keys_.view(0), config, ud_side_);
  rc_ = std::make_unique<RcChannel>(device, oob_keys_.view(1), rc_config(config), rc_side_);
  caps_ = ud_->capabilities();
  caps_.varies_by_peer = max_rc_ > 0;
  rc_caps_ = rc_->capabilities();
  rc_caps_.max_payload = std::min(rc_caps_.max_payload, caps_.max_payload);
  rc_caps_.varies_by_peer = true;
}

HybridChannel::~HybridChannel() {
  try {
    if (!abandoned()) shutdown();
  } catch (const std::exception& e) {
    fabric::log().error("rank {}: hybrid channel shutdown failed: {}", oob_.rank(), e.what());
  }
  // Now nothing is in flight either way: RC's Byes, then UD's final fence (both
  // collective, in this order on every rank).
  rc_.reset();
  ud_.reset();
}

void HybridChannel::abandon() noexcept {
  Channel::abandon();
  if (rc_) rc_->abandon();
  if (ud_) ud_->abandon();
}

void HybridChannel::shutdown() {
  // Each sub-channel's own shutdown waits on itself alone, and a peer may still need
  // the other one: a Switch still queued over UD keeps the RC packets behind it held,
  // a packet queued over RC needs credits that only the peer's RC progress returns.
  // So: 1. both drain together (all UD sent is acknowledged, nothing waits over RC)...
  while (!(ud_->drained() && rc_->nothing_pending())) {
    if (progress() == 0) {
      const WaitSet w = wait_set();
      runtime_.wait_for_completion(w.sources, w.deadline);
    }
  }
  // 2. ...then every rank meets the others while it keeps both channels going for those
  // still draining (they need this rank's ACKs and credits): by polling a barrier where
  // the exchange offers one (the simulator), else in a fence while an agent does it.
  if (const std::unique_ptr<fabric::PendingBarrier> barrier = oob_.start_barrier()) {
    while (!barrier->done()) {
      if (progress() == 0 && !barrier->done()) {
        const WaitSet w = wait_set();
        runtime_.wait(w.sources, w.deadline);  // wait(): the barrier's end wakes it
      }
    }
    return;
  }
  // The agent looks at its stop flag every kStopCheckInterval: the rank must not touch
  // the channels while the agent uses them (a wake-up datagram from here would, on
  // hardware, from a second thread).
  std::atomic<bool> stop{false};
  std::unique_ptr<fabric::Agent> agent = runtime_.spawn("hybrid-shutdown", [&] {
    while (!stop.load(std::memory_order_acquire)) {
      if (progress() == 0 && !stop.load(std::memory_order_acquire)) {
        const WaitSet w = wait_set();
        runtime_.wait_for_completion(w.sources, std::min(w.deadline, runtime_.now() + kStopCheckInterval));
      }
    }
  });
  oob_.fence();
  stop.store(true, std::memory_order_release);
  agent->join();
}

const ChannelCapabilities& HybridChannel::capabilities() const noexcept { return caps_; }

const ChannelCapabilities& HybridChannel::capabilities(int peer) const noexcept {
  // Also when the next message will make the switch (send_packet's rule, at a message's
  // first packet, which is what follows this question): so the message that crosses
  // the threshold is already a rendezvous over RC, not a last segmented one over UD.
  const auto it = peers_.find(peer);
  const std::uint64_t sent = it != peers_.end() ? it->second.packets_sent : 0;
  const bool over_rc = it != peers_.end() && it->second.sends_over_rc;
  return over_rc || (sent >= threshold_ && rc_peers_ < max_rc_) ? rc_caps_ : caps_;
}

void HybridChannel::send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) {
  Peer& p = peer_state(peer);
  if (!p.sends_over_rc) {
    // Switch only between messages: an EagerData continues the message before it.
    if (header.type != PacketType::EagerData && p.packets_sent >= threshold_ && rc_peers_ < max_rc_) {
      PacketHeader marker;
      marker.type = PacketType::Switch;
      ud_->send_packet(peer, marker, std::span<const std::byte>{});
      p.sends_over_rc = true;
      ++rc_peers_;
    } else {
      ++p.packets_sent;
      ud_->send_packet(peer, header, payload_bytes, fill);
      return;
    }
  }
  rc_->send_packet(peer, header, payload_bytes, fill);
}

void HybridChannel::post_rdma(int peer, const RdmaOp& op) {
  const auto it = peers_.find(peer);
  // switch_received: the peer sends over RC, so the connection is made on both sides.
  if (it == peers_.end() || !(it->second.sends_over_rc || it->second.switch_received)) {
    throw Error(ErrorClass::MPI_ERR_INTERN, "hybrid channel",
                fmt::format("an RDMA operation for rank {} reached the hybrid channel, which has no RC "
                            "connection to it (capabilities({}) offered none; the caller should not have asked)",
                            peer, peer));
  }
  rc_->post_rdma(peer, op);
}

std::size_t HybridChannel::progress() { return ud_->progress() + rc_->progress(); }

Channel::WaitSet HybridChannel::wait_set() const {
  const WaitSet ud = ud_->wait_set();
  const WaitSet rc = rc_->wait_set();
  sources_.assign(ud.sources.begin(), ud.sources.end());
  sources_.insert(sources_.end(), rc.sources.begin(), rc.sources.end());
  return {std::span<fabric::CompletionQueue* const>(sources_), std::min(ud.deadline, rc.deadline),
          ud.memory || rc.memory};
}

const ChannelCounters& HybridChannel::counters() const noexcept {
  counters_ = ud_->counters();
  counters_ += rc_->counters();
  return counters_;
}

void HybridChannel::on_ud_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) {
  if (header.type != PacketType::Switch) {
    sink_.on_packet(peer, header, payload);
    return;
  }
  // Every UD packet of the peer's has been delivered: what it sent over RC is next.
  Peer& p = peer_state(peer);
  p.switch_received = true;
  while (!p.held.empty()) {
    const Held h = std::move(p.held.front());
    p.held.pop_front();
    sink_.on_packet(peer, h.header, h.payload);
  }
}

void HybridChannel::on_rc_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) {
  Peer& p = peer_state(peer);
  if (p.switch_received) {
    sink_.on_packet(peer, header, payload);
    return;
  }
  // Ahead of the peer's last UD packets: kept until its Switch arrives.
  p.held.push_back(Held{header, std::vector<std::byte>(payload.begin(), payload.end())});
}

void HybridChannel::Side::on_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) {
  if (rc_) owner_.on_rc_packet(peer, header, payload);
  else owner_.on_ud_packet(peer, header, payload);
}

void HybridChannel::Side::on_write_immediate(int peer, std::uint32_t imm) {
  owner_.sink_.on_write_immediate(peer, imm);
}

void HybridChannel::Side::on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) {
  owner_.sink_.on_rdma_done(cookie, status);
}

}  // namespace twinfab::mpi
