#include "mpi/channels/ud_channel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>

#include "fabric/error.hpp"
#include "fabric/log.hpp"
#include "mpi/channels/head_slots.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

using fabric::Status;

// wr_id tags: receives carry kRecvTag | slot, control sends kControlTag | slot, the
// shutdown's Stop kStopTag; a data send carries its slot alone.
constexpr std::uint64_t kRecvTag = 1ull << 63;
constexpr std::uint64_t kControlTag = 1ull << 62;
constexpr std::uint64_t kStopTag = 1ull << 61;
constexpr std::uint32_t kControlSlots = 64;
// The Stop and Wake datagrams' buffers: the last two control buffers, kept out of the
// free list. Their sends are tagged kStopTag and not counted in send_wr_outstanding_.
constexpr std::uint32_t kStopSlot = kControlSlots;
constexpr std::uint32_t kWakeSlot = kControlSlots + 1;
constexpr std::uint32_t kSelfSlots = 2;
// Receive buffers of the reliability agent's QP: Stops to itself, and (hybrid) the
// peers' timed-out packets, which come one per timeout and peer.
constexpr std::uint32_t kInterruptBuffers = 32;
constexpr double kStopInterval = 20e-6;
// The agent's Wake to its rank is a datagram, and datagrams get lost (or find the send
// queue full): while what the agent took in still waits for the rank, the agent wakes
// and sends another after this long, doubling up to the retransmit timeout (a rank
// computing outside MPI costs the agent a wake-up per interval, not a spin).
constexpr double kWakeResend = 50e-6;
constexpr double kTimerSlack = 1e-6;
constexpr std::uint32_t kLazyReap = 8;
constexpr double kBlockedRetry = 10e-6;

UdReliabilityParameters parameters_from(const Config& config) {
  UdReliabilityParameters p;
  p.window = config.ud_window;
  p.ack_after = config.ud_ack_after == 0 ? std::max<std::uint32_t>(1, config.ud_window / 4) : config.ud_ack_after;
  p.ack_delay = config.ud_ack_delay_us * 1e-6;
  p.retransmit_timeout = config.ud_retransmit_timeout_us * 1e-6;
  p.nack_holdoff = std::min(p.retransmit_timeout / 2, p.ack_delay);
  p.max_retries = config.ud_max_retries;
  p.probe_delay = 2 * p.ack_delay;
  return p;
}

}  // namespace

UdChannel::UdChannel(fabric::Device& device, fabric::OobExchange& oob, const Config& config, PacketSink& sink)
    : device_(device),
      work_(device),
      oob_(oob),
      sink_(sink),
      runtime_(device.runtime()),
      rank_(oob.rank()),
      size_(oob.size()),
      params_(parameters_from(config)),
      recv_buffers_(config.ud_recv_buffers),
      send_buffers_(config.ud_send_buffers),
      reliability_(config.ud_reliability),
      thread_wake_(config.ud_thread_wake_us * 1e-6),
      mutex_(device.runtime()) {
  const fabric::DeviceCapabilities& caps = device_.capabilities();
  const std::string where = fmt::format("TWINFAB_TRANSPORT={}", to_string(config.transport));
  if (!caps.ud)
    throw Error(ErrorClass::MPI_ERR_UNSUPPORTED_OPERATION, where,
                fmt::format("device {} ({}) has no UD queue pairs; use TWINFAB_TRANSPORT=rc", caps.device_name,
                            fabric::to_string(caps.link)));
  datagram_bytes_ = caps.mtu;
  if (datagram_bytes_ <= kUdHeaderBytes + kPacketHeaderBytes)
    throw Error(ErrorClass::MPI_ERR_ARG, where,
                fmt::format("device {} has an MTU of {} bytes, no room for a datagram's {} bytes of headers",
                            caps.device_name, caps.mtu, kUdHeaderBytes + kPacketHeaderBytes));
  capabilities_.max_payload = datagram_bytes_ - kUdHeaderBytes - kPacketHeaderBytes;

  // The send queue holds every data buffer posted (a buffer may be posted twice: a
  // re-send before the first send completed is refused below, so at most once),
  // the control buffers, a Stop and a Wake.
  send_wr_limit_ = std::min<std::uint32_t>(send_buffers_ + kControlSlots + kSelfSlots, caps.max_qp_wr);
  // Head slots (see kHeadSlotBytes) where the device scatters into two SGEs and a
  // buffer is well over two heads; one SGE per receive otherwise.
  const std::uint32_t buffer = fabric::kUdGrhBytes + datagram_bytes_;
  head_bytes_ = caps.max_sge >= 2 && buffer > 2 * kHeadSlotBytes ? kHeadSlotBytes : 0;
  recv_cq_ = device_.create_cq(recv_buffers_);
  send_cq_ = device_.create_cq(send_wr_limit_);
  cqs_ = {recv_cq_.get(), send_cq_.get()};
  fabric::QpConfig qp_config = fabric::ud_qp_config(send_cq_.get(), recv_cq_.get(), send_wr_limit_, recv_buffers_);
  qp_config.max_recv_sge = head_bytes_ > 0 ? 2 : 1;
  // Datagrams that fit a send head slot (headers and up to 64 bytes of payload) go
  // inline, as the RC channel's small packets do and as perftest's ib_send_lat sends:
  // the device copies them at post and reads no memory region for them (on rxe the
  // kernel otherwise looks the region up and copies from it). The send buffer is still
  // kept, for retransmission.
  qp_config.max_inline = std::min<std::uint32_t>(caps.max_inline, kSendHeadBytes);
  max_inline_ = qp_config.max_inline;
  qp_ = device_.create_qp(qp_config);
  if (const Status s = qp_->connect(nullptr); s != Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, where,
                fmt::format("the UD queue pair did not start: {} ({})", fabric::to_string(s), qp_->last_error()));

  // One block, not initialised (buffer_storage.hpp): receive head slots and buffers,
  // send head slots and buffers, control datagrams. Receives are posted from the last
  // buffer down and send buffers handed out from 0 up, and small datagrams go through
  // the packed head slots, so a rank that exchanges small packets touches a page of
  // each per ~20 packets in flight, not a page per packet.
  recv_body_base_ = std::size_t{recv_buffers_} * head_bytes_;
  const std::size_t recv_bytes = recv_body_base_ + std::size_t{recv_buffers_} * buffer;
  send_base_ = recv_bytes;
  send_body_base_ = send_base_ + std::size_t{send_buffers_} * kSendHeadBytes;
  control_base_ = send_body_base_ + std::size_t{send_buffers_} * datagram_bytes_;
  const std::size_t total = control_base_ + std::size_t{kControlSlots + kSelfSlots} * kUdHeaderBytes;
  storage_ = BufferStorage(total);
  region_ = device_.register_memory(storage_.get(), total, fabric::Access::LocalWrite);
  base_sge_ = region_->sge(0, 0);
  // A rank posts a few receive buffers and more as bursts come (grow_receives): a
  // rank with few peers, the common case at scale, then holds a few head slots and
  // posted receives (seed 004's UD prototype likewise grew its pool above a base
  // for the applications that needed it).
  recv_depth_ = std::min(config.ud_recv_initial, recv_buffers_);
  recv_posted_after_look_ = recv_depth_;
  for (std::uint32_t i = recv_buffers_; i-- > recv_buffers_ - recv_depth_;) post_receive(i);
  slots_.resize(send_buffers_);
  for (std::uint32_t i = send_buffers_; i-- > 0;) free_slots_.push_back(i);
  for (std::uint32_t i = kControlSlots; i-- > 0;) free_controls_.push_back(i);

  if (reliability_ != UdReliability::Progress) start_agent_qp();

  // Published: the QP's address, then the interrupt QP's (hybrid) or nothing, after
  // a 2-byte length of the first.
  const fabric::Address address = qp_->local_address();
  const fabric::Address interrupt =
      reliability_ == UdReliability::Hybrid ? interrupt_qp_->local_address() : fabric::Address{};
  std::vector<std::byte> blob(2 + address.bytes().size() + interrupt.bytes().size());
  const auto first = static_cast<std::uint16_t>(address.bytes().size());
  std::memcpy(blob.data(), &first, 2);
  std::memcpy(blob.data() + 2, address.bytes().data(), address.bytes().size());
  if (!interrupt.empty())
    std::memcpy(blob.data() + 2 + first, interrupt.bytes().data(), interrupt.bytes().size());
  oob_.put(blob);
  oob_.fence();
  if (reliability_ != UdReliability::Progress)
    agent_ = runtime_.spawn(fmt::format("ud-reliability-{}", rank_), [this] { agent_body(); });
}

std::pair<fabric::Address, fabric::Address> UdChannel::addresses_of(int peer) const {
  const std::vector<std::byte> blob = oob_.get(peer);
  std::uint16_t first = 0;
  if (blob.size() >= 2) std::memcpy(&first, blob.data(), 2);
  if (blob.size() < 2 || blob.size() < 2u + first)
    throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                fmt::format("rank {} published {} bytes of address, not a UD channel's", peer, blob.size()));
  const std::span<const std::byte> bytes(blob);
  return {fabric::Address::from_bytes(bytes.subspan(2, first)), fabric::Address::from_bytes(bytes.subspan(2 + first))};
}

UdChannel::~UdChannel() {
  try {
    stop_agent();
    if (!abandoned()) shutdown();
  } catch (const std::exception& e) {
    // A destructor cannot throw; the job is ending anyway, but say why it may hang
    // or lose a peer's last message.
    fabric::log().error("rank {}: UD channel shutdown failed: {}", rank_, e.what());
  }
}

void UdChannel::post_receive(std::uint32_t slot) {
  // [head slot][buffer after its headroom] (head_slots.hpp): the GRH and the
  // datagram's first bytes land in the head slot.
  const std::uint32_t buffer = fabric::kUdGrhBytes + datagram_bytes_;
  fabric::Sge sges[2];
  const std::size_t n = head_slot_sges(sges, base_sge_.addr + std::uint64_t{slot} * head_bytes_,
                                       base_sge_.addr + recv_body_base_ + std::uint64_t{slot} * buffer, head_bytes_,
                                       buffer, base_sge_.lkey);
  const fabric::RecvWr wr{kRecvTag | slot, std::span(sges, n)};
  if (const Status s = qp_->post_recv(wr); s != Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                fmt::format("posting a receive failed: {} ({})", fabric::to_string(s), qp_->last_error()));
}

UdChannel::Peer& UdChannel::peer_state(int peer) {
  if (peer == cached_peer_) return *cached_;
  auto it = peers_.find(peer);
  if (it == peers_.end()) {
    it = peers_.emplace(std::piecewise_construct, std::forward_as_tuple(peer), std::forward_as_tuple()).first;
    it->second.receive.set_ack_delay(params_.ack_delay);
  }
  cached_peer_ = peer;
  cached_ = &it->second;
  return it->second;
}

const fabric::AddressHandle& UdChannel::handle_for(int peer, Peer& p) {
  if (!p.handle) p.handle = device_.create_address_handle(addresses_of(peer).first);
  return *p.handle;
}

const fabric::AddressHandle& UdChannel::interrupt_handle_for(int peer, Peer& p) {
  if (!p.interrupt_handle) {
    const fabric::Address interrupt = addresses_of(peer).second;
    // A peer without an interrupt QP (not run with hybrid) gets the re-send as usual.
    if (interrupt.empty()) return handle_for(peer, p);
    p.interrupt_handle = device_.create_address_handle(interrupt);
  }
  return *p.interrupt_handle;
}

UdChannel::RankHold::RankHold(const UdChannel& channel)
    : channel_(channel), held_(channel.reliability_ != UdReliability::Progress) {
  if (held_ && channel_.rank_depth_++ == 0) channel_.mutex_.lock();
}

UdChannel::RankHold::~RankHold() {
  if (held_ && --channel_.rank_depth_ == 0) channel_.mutex_.unlock();
}

void UdChannel::mark_timed(int peer, Peer& p) {
  if (p.timed) return;
  p.timed = true;
  timed_peers_.push_back(peer);
}

void UdChannel::send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) {
  const RankHold hold(*this);
  if (payload_bytes > capabilities_.max_payload)
    throw Error(ErrorClass::MPI_ERR_INTERN, "UD channel",
                fmt::format("a packet of {} bytes of payload to rank {}; at most {} fit a datagram", payload_bytes,
                            peer, capabilities_.max_payload));
  Peer& p = peer_state(peer);
  if (p.pending.empty() && p.send.open(params_.window) && slot_available() && send_wr_outstanding_ < send_wr_limit_) {
    send_now(peer, p, header, payload_bytes, fill);
    return;
  }
  p.pending.push_back(DeferredOperation::packet(header, payload_bytes, fill));
  ++pending_total_;
  ++counters_.packets_deferred;
  counters_.pending_peak = std::max(counters_.pending_peak, pending_total_);
  if (!p.flushing) {
    p.flushing = true;
    flush_list_.push_back(peer);
  }
}

void UdChannel::send_now(int peer, Peer& p, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) {
  const std::uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  const auto length = static_cast<std::uint32_t>(kUdHeaderBytes + kPacketHeaderBytes + payload_bytes);
  slots_[slot].length = length;
  std::byte* at = send_buffer(slot);
  const double now = runtime_.now();
  UdHeader h;
  h.kind = UdKind::Data;
  h.source = rank_;
  // Ask for an ACK at once when this packet half fills the window, or fills it: the
  // ACK then arrives before the window stops the sender.
  const std::size_t after = p.send.in_flight() + 1;
  if (after == params_.window || after == std::max<std::uint32_t>(1, params_.window / 2)) h.flags |= kUdFlagAckRequest;
  h.seq = p.send.sent(slot, now);
  h.ack = p.receive.ack_value();
  std::memcpy(at, &h, sizeof h);
  std::memcpy(at + kUdHeaderBytes, &header, sizeof header);
  fill(std::span(at + kUdHeaderBytes + kPacketHeaderBytes, payload_bytes));
  work_.copied(payload_bytes);
  slots_[slot].held = true;
  p.receive.ack_sent();
  post_slot(peer, p, slot);
  ++counters_.packets_sent;
  if (!reposts_.empty()) repost_consumed();
  mark_timed(peer, p);
  next_timer_ = std::min(next_timer_, now + std::min(params_.retransmit_timeout, params_.probe_delay));
}

void UdChannel::post_slot(int peer, Peer& p, std::uint32_t slot, bool to_interrupt_qp) {
  fabric::Sge sge = base_sge_;
  sge.addr += static_cast<std::uint64_t>(send_buffer(slot) - storage_.get());
  sge.length = slots_[slot].length;
  fabric::SendWr wr;
  wr.wr_id = slot;
  wr.opcode = fabric::Opcode::Send;
  wr.sg_list = std::span(&sge, 1);
  wr.ah = to_interrupt_qp ? &interrupt_handle_for(peer, p) : &handle_for(peer, p);
  if (sge.length <= max_inline_) wr.flags = fabric::SendFlags::Signaled | fabric::SendFlags::Inline;
  if (const Status s = qp_->post_send(wr); s != Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                fmt::format("sending to rank {} failed: {} ({})", peer, fabric::to_string(s), qp_->last_error()));
  ++slots_[slot].posted;
  ++send_wr_outstanding_;
}

void UdChannel::resend(int peer, Peer& p, std::uint32_t slot, bool to_interrupt_qp) {
  // The datagram goes again as it was, with the ACK brought up to date.
  const std::uint32_t ack = p.receive.ack_value();
  std::memcpy(send_buffer(slot) + offsetof(UdHeader, ack), &ack, sizeof ack);
  p.receive.ack_sent();
  post_slot(peer, p, slot, to_interrupt_qp);
}

fabric::SendWr UdChannel::control_datagram(std::uint32_t index, const UdHeader& header, std::uint64_t wr_id,
                                           fabric::Sge& sge) {
  const std::size_t offset = control_base_ + std::size_t{index} * kUdHeaderBytes;
  std::memcpy(storage_.get() + offset, &header, sizeof header);
  sge = base_sge_;
  sge.addr += offset;
  sge.length = kUdHeaderBytes;
  fabric::SendWr wr;
  wr.wr_id = wr_id;
  wr.opcode = fabric::Opcode::Send;
  wr.sg_list = std::span(&sge, 1);
  if (sge.length <= max_inline_) wr.flags = fabric::SendFlags::Signaled | fabric::SendFlags::Inline;
  return wr;
}

bool UdChannel::send_control(int peer, Peer& p, UdKind kind, std::uint32_t seq, std::uint8_t flags) {
  // No buffer or queue room: skip it. An ACK stays owed (the timer sends it later), a
  // NACK is sent again by the next out-of-order packet or the timer; until a send
  // completion frees room, the waiter also waits for those (controls_blocked_).
  if (free_controls_.empty() || send_wr_outstanding_ >= send_wr_limit_) {
    controls_blocked_ = true;
    return false;
  }
  const std::uint32_t slot = free_controls_.back();
  free_controls_.pop_back();
  UdHeader h;
  h.kind = kind;
  h.flags = flags;
  h.source = rank_;
  h.seq = seq;
  h.ack = p.receive.ack_value();
  fabric::Sge sge;
  fabric::SendWr wr = control_datagram(slot, h, kControlTag | slot, sge);
  wr.ah = &handle_for(peer, p);
  const Status s = qp_->post_send(wr);
  if (s == Status::NoResource) {  // the send queue is full (the shutdown's Stops): as if lost
    free_controls_.push_back(slot);
    controls_blocked_ = true;
    return false;
  }
  if (s != Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                fmt::format("sending an {} to rank {} failed: {} ({})", to_string(kind), peer, fabric::to_string(s),
                            qp_->last_error()));
  ++send_wr_outstanding_;
  p.receive.ack_sent();
  if (kind == UdKind::Nack) ++counters_.nacks_sent;
  else if (kind == UdKind::Ack) ++counters_.acks_sent;
  else if (kind == UdKind::Probe) ++counters_.probes_sent;
  return true;
}

void UdChannel::post_rdma(int peer, const RdmaOp& op) {
  (void)op;
  throw Error(ErrorClass::MPI_ERR_INTERN, "UD channel",
              fmt::format("an RDMA operation for rank {} reached the UD channel, which has none (its capabilities "
                          "say so; the caller should not have asked)",
                          peer));
}

void UdChannel::release_slot(std::uint32_t slot) {
  SendSlot& s = slots_[slot];
  s.held = false;
  if (s.posted == 0) free_slots_.push_back(slot);
}

void UdChannel::take_ack(int peer, Peer& p, std::uint32_t ack) {
  scratch_slots_.clear();
  if (p.send.acknowledged(ack, scratch_slots_) == 0) return;
  for (const std::uint32_t slot : scratch_slots_) release_slot(slot);
  if (!p.pending.empty() && !p.flushing) {
    p.flushing = true;
    flush_list_.push_back(peer);
  }
}

void UdChannel::deliver(int peer, Peer& p, const UdDatagram& d, std::span<const std::byte> bytes, double now) {
  ++counters_.packets_received;
  p.receive.delivered(now);
  if (in_agent_pass_) {
    // The protocols belong to the rank: the packet waits for its next progress().
    taken_.push_back(Taken{peer, std::vector<std::byte>(bytes.begin(), bytes.end())});
    return;
  }
  work_.copied(d.payload.size());  // the sink copies it out (receive or unexpected buffer)
  sink_.on_packet(peer, d.packet, d.payload);
}

std::size_t UdChannel::deliver_taken() {
  std::size_t delivered = 0;
  while (!taken_.empty()) {
    const Taken t = std::move(taken_.front());
    taken_.pop_front();
    UdDatagram d;
    (void)parse_ud_datagram(t.datagram, size_, capabilities_.max_payload, d);  // checked when it arrived
    work_.copied(d.payload.size());
    sink_.on_packet(t.peer, d.packet, d.payload);
    ++delivered;
  }
  return delivered;
}

void UdChannel::handle_datagram(std::span<const std::byte> bytes, double now) {
  UdDatagram d;
  if (parse_ud_datagram(bytes, size_, capabilities_.max_payload, d) != UdParse::Ok) {
    ++counters_.datagrams_dropped;
    return;
  }
  const int peer = d.header.source;
  if (peer == rank_) {
    if (d.header.kind == UdKind::Stop) stop_.store(true, std::memory_order_release);
    else if (d.header.kind != UdKind::Wake) ++counters_.datagrams_dropped;  // the protocols never send to their own rank
    return;
  }
  Peer& p = peer_state(peer);
  if (p.look != looks_) {
    p.look = looks_;
    look_peers_.push_back(peer);
  }
  take_ack(peer, p, d.header.ack);
  switch (d.header.kind) {
    case UdKind::Ack:
      if ((d.header.flags & (kUdFlagProbeReply | kUdFlagOverrun)) != 0) {
        scratch_slots_.clear();
        if ((d.header.flags & kUdFlagOverrun) != 0)
          p.send.overrun(now, params_.nack_holdoff, scratch_slots_);
        else
          p.send.probe_answered(now, scratch_slots_);
        for (const std::uint32_t slot : scratch_slots_) {
          if (send_wr_outstanding_ >= send_wr_limit_) break;  // the timeout sends it
          resend(peer, p, slot);
          ++counters_.nack_retransmissions;
        }
      }
      return;
    case UdKind::Probe:
      send_control(peer, p, UdKind::Ack, 0, kUdFlagProbeReply);
      return;
    case UdKind::Nack:
      if (const auto slot = p.send.nacked(d.header.seq, now, params_.nack_holdoff)) {
        if (send_wr_outstanding_ < send_wr_limit_) {
          resend(peer, p, *slot);
          ++counters_.nack_retransmissions;
        }
      }
      return;
    case UdKind::Stop:  // only from this rank itself
    case UdKind::Wake:
      ++counters_.datagrams_dropped;
      return;
    case UdKind::Data:
      break;
  }
  switch (p.receive.classify(d.header.seq, params_.window)) {
    case UdReceiveWindow::Verdict::Deliver: {
      deliver(peer, p, d, bytes, now);
      // Packets held behind the gap this one filled follow it.
      while (auto held = p.receive.take_next_held()) {
        UdDatagram h;
        (void)parse_ud_datagram(*held, size_, capabilities_.max_payload, h);  // checked when it arrived
        deliver(peer, p, h, *held, now);
      }
      const bool asked = (d.header.flags & kUdFlagAckRequest) != 0;
      if (p.receive.has_held()) {
        // Another gap: ask for the packet at its start at once.
        if (p.receive.nack_due(now, params_.nack_holdoff)) send_control(peer, p, UdKind::Nack, p.receive.ack_value());
      } else if ((asked && p.receive.owed() > 0) || p.receive.ack_needed(now, params_)) {
        // (A reply the sink sent meanwhile carried the ACK already: owed is 0 then.)
        send_control(peer, p, UdKind::Ack, 0);
      }
      break;
    }
    case UdReceiveWindow::Verdict::Hold:
      ++counters_.held_out_of_order;
      p.receive.hold(d.header.seq, std::vector<std::byte>(bytes.begin(), bytes.end()), now);
      if (p.receive.nack_due(now, params_.nack_holdoff)) send_control(peer, p, UdKind::Nack, p.receive.ack_value());
      break;
    case UdReceiveWindow::Verdict::Duplicate:
      // The sender missed an ACK (or re-sent early): tell it where we are, once for
      // all the duplicates of this progress pass (the timers run at its end).
      ++counters_.duplicates_received;
      p.receive.ack_now(now);
      break;
    case UdReceiveWindow::Verdict::OutOfWindow:
      ++counters_.datagrams_dropped;
      break;
  }
  if (p.receive.owed() > 0 || p.receive.has_held()) {
    mark_timed(peer, p);
    if (p.receive.owed() > 0) next_timer_ = std::min(next_timer_, p.receive.ack_deadline());
    if (p.receive.has_held()) next_timer_ = std::min(next_timer_, p.receive.nack_deadline(params_.nack_holdoff));
  }
}

void UdChannel::reap_sends() {
  for (;;) {
    const std::size_t n = send_cq_->poll(completions_);
    for (std::size_t i = 0; i < n; ++i) {
      const fabric::WorkCompletion& wc = completions_[i];
      if ((wc.wr_id & kStopTag) != 0) continue;  // the shutdown's; not counted in send_wr_outstanding_
      --send_wr_outstanding_;
      if (wc.status != fabric::WcStatus::Success && wc.status != fabric::WcStatus::WrFlushError)
        throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                    fmt::format("a datagram send failed: {}", fabric::to_string(wc.status)));
      if ((wc.wr_id & kControlTag) != 0) {
        free_controls_.push_back(static_cast<std::uint32_t>(wc.wr_id & ~kControlTag));
        controls_blocked_ = false;
        continue;
      }
      const auto slot = static_cast<std::uint32_t>(wc.wr_id);
      SendSlot& s = slots_[slot];
      if (--s.posted == 0 && !s.held) free_slots_.push_back(slot);
    }
    if (n < completions_.size()) break;
  }
}

std::size_t UdChannel::flush_pending() {
  if (flush_list_.empty()) return 0;
  std::size_t moved = 0;
  scratch_peers_.clear();
  scratch_peers_.swap(flush_list_);
  for (const int peer : scratch_peers_) {
    Peer& p = peer_state(peer);
    p.flushing = false;
    while (!p.pending.empty() && p.send.open(params_.window) && slot_available() &&
           send_wr_outstanding_ < send_wr_limit_) {
      const DeferredOperation& out = p.pending.front();
      send_now(peer, p, out.header, out.payload.size(), [&out](std::span<std::byte> to) { out.fill(to); });
      p.pending.pop_front();
      --pending_total_;
      ++moved;
    }
    // Waiting for buffers or queue room: try again at the next progress. Waiting for
    // the window: take_ack puts it back.
    if (!p.pending.empty() && p.send.open(params_.window) && !p.flushing) {
      p.flushing = true;
      flush_list_.push_back(peer);
    }
  }
  return moved;
}

std::size_t UdChannel::run_timers(double now) {
  std::size_t events = 0;
  next_timer_ = UdSendWindow::kNever;
  scratch_peers_.clear();
  scratch_peers_.swap(timed_peers_);
  for (const int peer : scratch_peers_) {
    Peer& p = peer_state(peer);
    scratch_slots_.clear();
    if (!p.send.expired(now, params_, scratch_slots_))
      throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                  fmt::format("rank {} did not acknowledge a packet re-sent {} times over {:.1f} s "
                              "(TWINFAB_UD_MAX_RETRIES, TWINFAB_UD_RETRANSMIT_TIMEOUT): has it stopped?",
                              peer, p.send.oldest_retries(), p.send.oldest_retries() * params_.retransmit_timeout));
    for (const std::uint32_t slot : scratch_slots_) {
      if (send_wr_outstanding_ >= send_wr_limit_) break;  // the next timer tries again
      // Hybrid: to the peer's interrupt-driven QP, whose agent ACKs even while the
      // peer computes (seed 004 §4.1).
      resend(peer, p, slot, reliability_ == UdReliability::Hybrid);
      ++counters_.retransmissions;
      ++events;
    }
    // Only what left counts as an event: counting a control that found no room made
    // the caller poll again at once, forever, while the send completions that would
    // free room needed simulated time to pass (MPICH's coll/nonblocking3 over lossy UD).
    if (p.send.probe_due(now, params_.probe_delay)) {
      if (send_control(peer, p, UdKind::Probe, 0)) ++events;
      p.send.probe_sent();
    }
    if (p.receive.has_held() && p.receive.nack_due(now, params_.nack_holdoff)) {
      if (send_control(peer, p, UdKind::Nack, p.receive.ack_value())) ++events;
    } else if (p.receive.ack_needed(now, params_)) {
      if (send_control(peer, p, UdKind::Ack, 0)) ++events;
    }
    if (p.send.empty() && p.receive.owed() == 0 && !p.receive.has_held()) {
      p.timed = false;
      continue;
    }
    timed_peers_.push_back(peer);
    double due = p.send.deadline(params_.retransmit_timeout, params_.probe_delay);
    if (p.receive.owed() > 0) due = std::min(due, p.receive.ack_deadline());
    if (p.receive.has_held()) due = std::min(due, p.receive.nack_deadline(params_.nack_holdoff));
    next_timer_ = std::min(next_timer_, due);
  }
  // A control that found no room is retried after a send completion (in the wait set
  // then) or a short while, never at a deadline already past: that wait would return at
  // once and no time would pass for the completions to come.
  if (controls_blocked_) next_timer_ = std::max(next_timer_, now + kBlockedRetry);
  return events;
}

std::span<const std::byte> UdChannel::received_datagram(std::uint32_t slot, std::uint32_t byte_len) {
  const std::size_t buffer = fabric::kUdGrhBytes + datagram_bytes_;
  const std::byte* const at =
      head_slot_received(storage_.get() + std::size_t{slot} * head_bytes_,
                         storage_.get() + recv_body_base_ + std::size_t{slot} * buffer, head_bytes_, byte_len);
  return std::span(at + fabric::kUdGrhBytes, byte_len - fabric::kUdGrhBytes);
}

void UdChannel::grow_receives() {
  // reposts_ holds the buffers taken since the last re-post: what the look found gone.
  if (recv_depth_ >= recv_buffers_ || reposts_.size() < recv_depth_ / 2) return;
  const std::uint32_t from = recv_buffers_ - recv_depth_;
  recv_depth_ = std::min(recv_buffers_, recv_depth_ * 2);
  for (std::uint32_t i = from; i-- > recv_buffers_ - recv_depth_;) post_receive(i);
  ++counters_.ud_receive_growths;
}

void UdChannel::repost_consumed() {
  for (const std::uint32_t slot : reposts_) post_receive(slot);
  reposts_.clear();
}

std::size_t UdChannel::poll_receives(double& now) {
  std::size_t events = 0;
  ++looks_;
  look_peers_.clear();
  for (;;) {
    const std::size_t n = recv_cq_->poll(completions_);
    if (n == 0) break;
    if (now < 0) now = runtime_.now();
    for (std::size_t i = 0; i < n; ++i) {
      const fabric::WorkCompletion& wc = completions_[i];
      const auto slot = static_cast<std::uint32_t>(wc.wr_id & ~kRecvTag);
      if (wc.status == fabric::WcStatus::WrFlushError) continue;  // the QP is being destroyed
      work_.packet_from_queue();  // the completion polled, the buffer to re-post
      if (wc.status == fabric::WcStatus::Success && wc.byte_len >= fabric::kUdGrhBytes &&
          wc.byte_len <= fabric::kUdGrhBytes + datagram_bytes_) {
        handle_datagram(received_datagram(slot, wc.byte_len), now);
      } else {
        ++counters_.datagrams_dropped;
      }
      // Posted again at the next progress() or packet sent, as the RC channel does: the
      // reply to this packet leaves first, and the re-post is off the latency path.
      reposts_.push_back(slot);
    }
    events += n;
    if (n < completions_.size()) break;
  }
  if (events > 0) {
    // This look took as many buffers as were posted when the last one ended (the
    // re-posts since may have come after the datagrams): one more would have found
    // none and been dropped, silently, as UD does.
    const bool overrun = reposts_.size() >= recv_posted_after_look_;
    grow_receives();
    if (overrun) report_overrun();
  }
  recv_posted_after_look_ = recv_depth_ - static_cast<std::uint32_t>(reposts_.size());
  return events;
}

void UdChannel::report_overrun() {
  ++counters_.ud_receive_overruns;
  // The new buffers first (the re-sends must find them), then the peers, in the order
  // their datagrams came.
  repost_consumed();
  for (const int peer : look_peers_) send_control(peer, peer_state(peer), UdKind::Ack, 0, kUdFlagOverrun);
}

std::size_t UdChannel::progress() {
  const RankHold hold(*this);
  if (agent_error_) std::rethrow_exception(std::exchange(agent_error_, nullptr));
  // What the reliability agent took in first: it arrived before anything still queued.
  std::size_t events = taken_.empty() ? 0 : deliver_taken();
  if (!reposts_.empty()) repost_consumed();
  double now = -1;
  events += poll_receives(now);
  // Send completions only return buffers: reaped lazily, when a few are outstanding
  // or something waits for a buffer (one poll of the send CQ less per progress pass).
  if (send_wr_outstanding_ >= kLazyReap ||
      (send_wr_outstanding_ > 0 && (pending_total_ > 0 || free_controls_.empty() || controls_blocked_)))
    reap_sends();
  events += flush_pending();
  if (!timed_peers_.empty()) {
    if (now < 0) now = runtime_.now();
    // A timer a hair in the future counts as due: a runtime may wake a waiter at its
    // deadline up to its time precision early (SimGrid's clock steps are ~1e-9 s),
    // and a timer never found due would make the next wait return at once, forever.
    if (now + kTimerSlack >= next_timer_) events += run_timers(now + kTimerSlack);
  }
  return events;
}

Channel::WaitSet UdChannel::wait_set() const {
  const RankHold hold(*this);
  // Send completions matter only when a pending packet or a control datagram waits
  // for the buffer or queue room they free, and only counted ones free any: a Wake's
  // or a Stop's (not counted, reaped with the others) would end every wait at once
  // while progress() has nothing to reap, and the rank would spin at one date.
  const std::size_t n = (pending_total_ > 0 || controls_blocked_) && send_wr_outstanding_ > 0 ? 2 : 1;
  // Packets the agent took in are ready now: no wait.
  if (!taken_.empty()) return {std::span<fabric::CompletionQueue* const>(cqs_.data(), n), 0};
  return {std::span<fabric::CompletionQueue* const>(cqs_.data(), n),
          next_timer_ >= UdSendWindow::kNever ? fabric::Runtime::kForever : next_timer_};
}

bool UdChannel::drained() const {
  const RankHold hold(*this);
  if (pending_total_ > 0) return false;
  return std::all_of(timed_peers_.begin(), timed_peers_.end(),
                     [this](int peer) { return peers_.at(peer).send.empty(); });
}

void UdChannel::wait_once() {
  const WaitSet w = wait_set();
  runtime_.wait(w.sources, w.deadline);
}

void UdChannel::shutdown() {
  // 1. Everything this rank sent arrives: keep going until it is all acknowledged.
  //    Owed ACKs leave now rather than after their delay: peers wait for them too.
  for (const int peer : std::vector<int>(timed_peers_)) {
    Peer& p = peer_state(peer);
    if (p.receive.owed() > 0) send_control(peer, p, UdKind::Ack, 0);
  }
  while (!drained()) {
    if (progress() == 0 && !drained()) wait_once();
  }
  // 2. Meet the others, answering meanwhile peers whose last ACK from this rank was
  //    lost (they re-send, and must hear from us to finish step 1): by polling a
  //    barrier where the exchange offers one (the simulator: no agent, whose stack and
  //    actor were 14 of a UD rank's 66 KB at 2,048 ranks, docs/channels.md), else in a
  //    fence while an agent answers. Every rank takes the same kind of step, as both
  //    are collective.
  if (const std::unique_ptr<fabric::PendingBarrier> barrier = oob_.start_barrier()) {
    while (!barrier->done()) {
      if (progress() == 0 && !barrier->done()) wait_once();
    }
    return;
  }
  if (peers_.empty()) {
    // Nobody sent this rank anything, so nobody waits for an ACK from it.
    oob_.fence();
    return;
  }
  stop_.store(false, std::memory_order_relaxed);
  std::unique_ptr<fabric::Agent> agent = runtime_.spawn("ud-shutdown", [this] {
    while (!stop_.load(std::memory_order_acquire)) {
      if (progress() == 0 && !stop_.load(std::memory_order_acquire)) wait_once();
    }
  });
  oob_.fence();
  // 3. Wake the agent with a Stop datagram to this rank's own QP.
  stop_until_seen(stop_, false);
  agent->join();
}

void UdChannel::stop_until_seen(const std::atomic<bool>& seen, bool to_interrupt_qp) {
  // UD may drop the Stop too: send it again until the agent has seen it, every
  // kStopInterval: long enough for a datagram to reach this rank's own QP (a few
  // microseconds; on software RDMA tens), short enough to add little to the job's end.
  // No hold of the mutex: a Stop touches nothing an agent does (its own buffer, this
  // rank's own address handle, a post on a thread-safe QP), and the shutdown agent
  // holds the rank's side of it meanwhile.
  while (!seen.load(std::memory_order_acquire)) {
    send_to_self(UdKind::Stop, to_interrupt_qp);
    runtime_.idle_for(kStopInterval);  // waiting for the agent, not computing: no CPU
  }
}

void UdChannel::send_to_self(UdKind kind, bool to_interrupt_qp) {
  std::unique_ptr<fabric::AddressHandle>& handle = to_interrupt_qp ? self_interrupt_handle_ : self_handle_;
  if (!handle)
    handle = device_.create_address_handle(to_interrupt_qp ? interrupt_qp_->local_address() : qp_->local_address());
  UdHeader h;
  h.kind = kind;
  h.source = rank_;
  fabric::Sge sge;
  fabric::SendWr wr = control_datagram(kind == UdKind::Wake ? kWakeSlot : kStopSlot, h, kStopTag, sge);
  wr.ah = handle.get();
  // A full send queue is as if the datagram was lost: the callers send again.
  if (const Status s = qp_->post_send(wr); s != Status::Ok && s != Status::NoResource)
    throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                fmt::format("a {} datagram to this rank could not be sent: {} ({})", to_string(kind),
                            fabric::to_string(s), qp_->last_error()));
}

void UdChannel::start_agent_qp() {
  // The agent's own UD QP: it sleeps on this QP's completion events. Under hybrid,
  // peers send their timed-out packets here; under thread, only the Stop comes.
  interrupt_cq_ = device_.create_cq(kInterruptBuffers);
  // It never sends: the channel's send CQ, one send WR.
  interrupt_qp_ = device_.create_qp(fabric::ud_qp_config(send_cq_.get(), interrupt_cq_.get(), 1, kInterruptBuffers));
  if (const Status s = interrupt_qp_->connect(nullptr); s != Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, "MPI_Init (TWINFAB_UD_RELIABILITY)",
                fmt::format("the reliability agent's UD queue pair did not start: {} ({})", fabric::to_string(s),
                            interrupt_qp_->last_error()));
  const std::size_t buffer = fabric::kUdGrhBytes + datagram_bytes_;
  interrupt_storage_ = BufferStorage(buffer * kInterruptBuffers);
  interrupt_region_ =
      device_.register_memory(interrupt_storage_.get(), buffer * kInterruptBuffers, fabric::Access::LocalWrite);
  for (std::uint32_t i = 0; i < kInterruptBuffers; ++i) {
    fabric::Sge sge = interrupt_region_->sge(buffer * i, buffer);
    if (const Status s = interrupt_qp_->post_recv(fabric::RecvWr{kRecvTag | i, std::span(&sge, 1)}); s != Status::Ok)
      throw Error(ErrorClass::MPI_ERR_OTHER, "MPI_Init (TWINFAB_UD_RELIABILITY)",
                  fmt::format("posting a receive of the agent's QP failed: {} ({})", fabric::to_string(s),
                              interrupt_qp_->last_error()));
  }
}

void UdChannel::agent_body() {
  fabric::CompletionQueue* const sources[] = {interrupt_cq_.get()};
  // Thread: a watchdog waking every thread_wake_ (and for its Stop). Hybrid: asleep
  // until a packet reaches the interrupt QP; each wake-up pays the completion
  // event's interrupt and scheduling (the simulator's hca.event_latency).
  const bool watchdog = reliability_ == UdReliability::Thread;
  double wake_resend = 0;  // > 0: taken_ still waits for the rank, the Wake goes again then
  for (;;) {
    double deadline = watchdog ? runtime_.now() + thread_wake_ : fabric::Runtime::kForever;
    if (wake_resend > 0) deadline = std::min(deadline, runtime_.now() + wake_resend);
    runtime_.wait_for_event(sources, deadline);
    bool stop = false;
    {
      const std::lock_guard<fabric::AgentMutex> hold(mutex_);
      in_agent_pass_ = true;
      try {
        stop = agent_pass();
        wake_resend = taken_.empty() ? 0
                      : wake_resend > 0 ? std::min(2 * wake_resend, params_.retransmit_timeout)
                                        : kWakeResend;
      } catch (...) {
        // A peer declared dead, a failed post: the rank's next progress() raises it.
        in_agent_pass_ = false;
        agent_error_ = std::current_exception();
        stop = true;
        try {
          send_to_self(UdKind::Wake, false);
        } catch (...) {
        }
      }
      in_agent_pass_ = false;
    }
    if (stop) break;
  }
  agent_stopped_.store(true, std::memory_order_release);
}

bool UdChannel::agent_pass() {
  ++counters_.agent_wakeups;
  bool stop = false;
  double now = runtime_.now();
  const std::size_t buffer = fabric::kUdGrhBytes + datagram_bytes_;
  // 1. The interrupt QP: the Stop, and (hybrid) peers' timed-out packets.
  for (;;) {
    const std::size_t n = interrupt_cq_->poll(completions_);
    for (std::size_t i = 0; i < n; ++i) {
      const fabric::WorkCompletion& wc = completions_[i];
      if (wc.status == fabric::WcStatus::WrFlushError) continue;
      const auto slot = static_cast<std::uint32_t>(wc.wr_id & ~kRecvTag);
      if (wc.status == fabric::WcStatus::Success && wc.byte_len >= fabric::kUdGrhBytes) {
        const auto bytes = std::span<const std::byte>(interrupt_storage_.get() + buffer * slot + fabric::kUdGrhBytes,
                                                      wc.byte_len - fabric::kUdGrhBytes);
        UdDatagram d;
        if (parse_ud_datagram(bytes, size_, capabilities_.max_payload, d) == UdParse::Ok && d.header.source == rank_ &&
            d.header.kind == UdKind::Stop) {
          stop = true;
        } else {
          ++counters_.agent_packets;
          handle_datagram(bytes, now);  // a copy is kept of what is delivered
        }
      } else {
        ++counters_.datagrams_dropped;
      }
      fabric::Sge sge = interrupt_region_->sge(buffer * slot, buffer);
      if (const Status s = interrupt_qp_->post_recv(fabric::RecvWr{kRecvTag | slot, std::span(&sge, 1)});
          s != Status::Ok)
        throw Error(ErrorClass::MPI_ERR_OTHER, "UD channel",
                    fmt::format("posting a receive of the agent's QP failed: {} ({})", fabric::to_string(s),
                                interrupt_qp_->last_error()));
    }
    if (n < completions_.size()) break;
  }
  if (stop) return true;
  // 2. Everything waiting on the channel's own QP: taken in and acknowledged.
  counters_.agent_packets += poll_receives(now);
  if (!reposts_.empty()) repost_consumed();
  if (send_wr_outstanding_ > 0) reap_sends();
  flush_pending();
  if (reliability_ == UdReliability::Hybrid) {
    // Acknowledge all other waiting messages at once (seed 004): a peer that re-sent
    // to the interrupt QP must hear within a round trip, not after the ACK delay.
    for (const int peer : std::vector<int>(timed_peers_)) {
      Peer& p = peer_state(peer);
      if (p.receive.owed() > 0 && !p.receive.has_held()) send_control(peer, p, UdKind::Ack, 0);
    }
  }
  // The watchdog also re-sends what timed out, and sends owed ACKs and NACKs.
  if (reliability_ == UdReliability::Thread && !timed_peers_.empty() && now + kTimerSlack >= next_timer_)
    run_timers(now + kTimerSlack);
  // A rank waiting in MPI may have been woken for a completion this pass consumed:
  // wake it again, for the packets it will find in taken_. Also when they were taken
  // in an earlier pass and are still there: that Wake may have been lost (agent_body
  // comes back for it).
  if (!taken_.empty()) send_to_self(UdKind::Wake, false);
  return false;
}

void UdChannel::stop_agent() {
  if (!agent_) return;
  stop_until_seen(agent_stopped_, true);
  agent_->join();
  agent_.reset();
  // What it took in last goes to the protocols before the shutdown.
  const RankHold hold(*this);
  if (!taken_.empty()) deliver_taken();
}

}  // namespace twinfab::mpi
