#include "backends/sim/sim_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/sim/sim_queue_pair.hpp"
#include "backends/sim/sim_runtime.hpp"
#include "backends/sim/sim_shared_memory.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::sim {

namespace s4u = simgrid::s4u;
using fabric::Access;
using fabric::Error;
using fabric::Status;
using fabric::Transport;
using fabric::WcOpcode;
using fabric::WcStatus;

bool parse_sim_address(const fabric::Address& a, Transport t, uint32_t hosts, uint32_t& host, uint32_t& qpn,
                       uint32_t& qkey, std::string& why);

namespace {

/// Checks that a QP's CQ or SRQ (`field` of QpConfig) is the simulator's and belongs to
/// `self`: a verbs QP can only use objects of its own context, and the simulator
/// used to push completions into whichever rank's CQ it was given.
template <class SimObject, class Object>
void check_own(Object* object, const char* field, const SimDevice& self) {
  const auto* own = dynamic_cast<const SimObject*>(&object->underlying());
  if (own == nullptr)
    throw Error(Status::InvalidArgument, fmt::format("create_qp: QpConfig::{} was not made by a simulated device", field));
  if (&own->device() != &self)
    throw Error(Status::InvalidArgument,
                fmt::format("create_qp: QpConfig::{} belongs to another device context ({}, not {}); a QP's CQs and SRQ "
                            "must be made by the device that creates it",
                            field, own->device().name(), self.name()));
}

/// The verbs encoding of the minimum RNR NAK timer (IB spec table 45), in seconds.
double rnr_timer_seconds(uint8_t code) {
  static constexpr double kMs[32] = {655.36, 0.01,  0.02,  0.03,  0.04,   0.06,   0.08,   0.12,
                                     0.16,   0.24,  0.32,  0.48,  0.64,   0.96,   1.28,   1.92,
                                     2.56,   3.84,  5.12,  7.68,  10.24,  15.36,  20.48,  30.72,
                                     40.96,  61.44, 81.92, 122.88, 163.84, 245.76, 327.68, 491.52};
  return kMs[code & 31] * 1e-3;
}

/// Local ACK timeout: 4.096 us * 2^code; 0 means "wait forever" in verbs.
double ack_timeout_seconds(uint8_t code) {
  return code == 0 ? std::numeric_limits<double>::infinity() : 4.096e-6 * std::ldexp(1.0, code);
}

/// Copies the payload of `m` (its snapshot, or the sender's SGEs) into `dst` SGEs,
/// skipping the first `skip` bytes of the destination (the UD GRH area).
void scatter_payload(const WireMessage& m, std::span<const fabric::Sge> dst, uint64_t skip) {
  size_t di = 0;
  uint64_t doff = 0;
  auto advance_skip = [&](uint64_t n) {
    while (n > 0 && di < dst.size()) {
      uint64_t room = dst[di].length - doff;
      uint64_t k = std::min(room, n);
      doff += k;
      n -= k;
      if (doff == dst[di].length) {
        ++di;
        doff = 0;
      }
    }
  };
  advance_skip(skip);
  auto put = [&](const std::byte* src, uint64_t n) {
    while (n > 0 && di < dst.size()) {
      uint64_t room = dst[di].length - doff;
      uint64_t k = std::min(room, n);
      if (k) std::memcpy(reinterpret_cast<std::byte*>(dst[di].addr) + doff, src, k);
      src += k;
      n -= k;
      doff += k;
      if (doff == dst[di].length) {
        ++di;
        doff = 0;
      }
    }
  };
  if (!m.source.empty()) {
    for (const auto& s : m.source) put(reinterpret_cast<const std::byte*>(s.addr), s.length);
  } else {
    put(m.data.data(), m.data.size());
  }
}

void copy_payload_to(const WireMessage& m, std::byte* dst) {
  if (!m.source.empty()) {
    for (const auto& s : m.source) {
      if (s.length) std::memcpy(dst, reinterpret_cast<const void*>(s.addr), s.length);
      dst += s.length;
    }
  } else if (!m.data.empty()) {
    std::memcpy(dst, m.data.data(), m.data.size());
  }
}

}  // namespace

SimDevice::SimDevice(SimFabric& fabric, uint32_t host)
    : fabric_(fabric), hca_(fabric.hca(host)), runtime_(fabric.runtime_of_self()), id_(fabric.add_device()) {
  runtime_.add_device(this);
}

SimDevice::~SimDevice() {
  // Packets this context sent are on the wire and still arrive (on an HCA they have
  // left the host); packets to it that arrive from now on are dropped (the fabric
  // forgets it), and those queued but not yet processed go with it.
  runtime_.remove_device(this);
  fabric_.remove_device(id_);
}

fabric::Runtime& SimDevice::runtime() noexcept { return runtime_; }

std::unique_ptr<fabric::MemoryRegion> SimDevice::register_memory(void* addr, size_t length, Access access) {
  if (addr == nullptr || length == 0)
    throw Error(Status::InvalidArgument,
                fmt::format("register_memory: {} (address {}, length {})",
                            addr == nullptr ? "null address" : "zero length", addr, length));
  auto base = reinterpret_cast<uintptr_t>(addr);
  if (base + length < base)
    throw Error(Status::InvalidArgument, fmt::format("register_memory: range at {} of {} bytes wraps the address space",
                                                     addr, length));
  if (length > capabilities().max_mr_size)
    throw Error(Status::InvalidArgument, fmt::format("register_memory: {} bytes exceed the device's max_mr_size of {}",
                                                     length, capabilities().max_mr_size));
  fabric::check_access(access);
  const auto& cost = fabric_.platform().registration;
  uint64_t page = cost.page_size ? cost.page_size : 4096;
  // Counted as if the range began on a page boundary: the pages a real range spans
  // depend on where malloc placed it, which changes with the build directory's path,
  // the environment and the allocations before it, and a run's simulated time must be
  // the same on every machine (the whole-vs-cut fat tree of tests/mpi/model_size_test
  // differed by 2 us between two checkouts). A registration cache registers whole
  // pages anyway, so its registrations cost the same either way.
  const uint64_t pages = (length + page - 1) / page;
  auto mr = std::make_unique<SimMemoryRegion>(*this, hca_, addr, length, access);
  Counters& c = hca_.counters();
  ++c.registrations;
  c.registered_bytes += length;
  // Registration is CPU time in the kernel (pinning, translation tables): the rank
  // pays it, the HCA keeps serving meanwhile.
  double t = cost.base + static_cast<double>(pages) * cost.per_page;
  if (t > 0) runtime_.sleep_for(t);
  return mr;
}

std::unique_ptr<fabric::CompletionQueue> SimDevice::create_cq(uint32_t capacity) {
  if (capacity == 0 || capacity > capabilities().max_cqe)
    throw Error(Status::InvalidArgument,
                fmt::format("create_cq: capacity {} outside 1..{}", capacity, capabilities().max_cqe));
  return std::make_unique<SimCompletionQueue>(*this, runtime_, capacity);
}

std::unique_ptr<fabric::SharedReceiveQueue> SimDevice::create_srq(uint32_t capacity, uint32_t max_sge) {
  if (!capabilities().srq) throw Error(Status::Unsupported, "create_srq: device lacks shared receive queues");
  if (capacity == 0 || capacity > capabilities().max_qp_wr || max_sge == 0 || max_sge > capabilities().max_sge)
    throw Error(Status::InvalidArgument, fmt::format("create_srq: capacity {} (1..{}) / max_sge {} (1..{})", capacity,
                                                     capabilities().max_qp_wr, max_sge, capabilities().max_sge));
  return std::make_unique<SimSharedReceiveQueue>(*this, capacity, max_sge);
}

std::unique_ptr<fabric::QueuePair> SimDevice::create_qp(const fabric::QpConfig& config) {
  fabric::check_qp_config(config);
  const auto& caps = capabilities();
  if ((config.transport == Transport::UD && !caps.ud) || (config.transport == Transport::UC && !caps.uc))
    throw Error(Status::Unsupported, fmt::format("create_qp: device lacks the {} transport", to_string(config.transport)));
  if (config.send_cq == nullptr || config.recv_cq == nullptr)
    throw Error(Status::InvalidArgument, "create_qp: send_cq and recv_cq are required");
  check_own<SimCompletionQueue>(config.send_cq, "send_cq", *this);
  check_own<SimCompletionQueue>(config.recv_cq, "recv_cq", *this);
  if (config.srq != nullptr) check_own<SimSharedReceiveQueue>(config.srq, "srq", *this);
  if (config.max_send_sge > caps.max_sge || config.max_recv_sge > caps.max_sge)
    throw Error(Status::InvalidArgument,
                fmt::format("create_qp: max_send_sge/max_recv_sge {}/{} exceed the device's {}", config.max_send_sge,
                            config.max_recv_sge, caps.max_sge));
  if (config.max_inline > caps.max_inline)
    throw Error(Status::InvalidArgument,
                fmt::format("create_qp: max_inline {} exceeds the device's {}", config.max_inline, caps.max_inline));
  if (config.max_send_wr == 0 || config.max_send_wr > caps.max_qp_wr || config.max_recv_wr > caps.max_qp_wr)
    throw Error(Status::InvalidArgument, fmt::format("create_qp: max_send_wr/max_recv_wr must be in 1..{}", caps.max_qp_wr));
  const auto& mem = fabric_.platform().memory;
  Counters& c = hca_.counters();
  c.qp_context_bytes += mem.qp_context_bytes;
  c.communication_buffer_bytes += config.transport == Transport::RC   ? mem.rc_qp_bytes
                                  : config.transport == Transport::UC ? mem.uc_qp_bytes
                                                                      : mem.ud_qp_bytes;
  return std::make_unique<SimQueuePair>(*this, config);
}

std::string SimDevice::name() const { return fmt::format("host {}, context {}", hca_.index(), id_); }

void SimDevice::detach_from_qps(const SimCompletionQueue* cq, const SimSharedReceiveQueue* srq) {
  uint32_t detached = 0;
  hca_.for_each_qp([&](SimQueuePair& qp) {
    if (&qp.device() == this && qp.forget(cq, srq)) ++detached;
  });
  fabric::log().warn(
      "sim: {}: a {} was destroyed while {} queue pair(s) still used it; destroy QPs before their CQs and "
      "SRQs (verbs refuses with EBUSY). Those QPs {} from now on",
      name(), cq != nullptr ? "completion queue" : "shared receive queue", detached,
      cq != nullptr ? "lose their completions" : "find no receives");
}

fabric::SharedMemory* SimDevice::shared_memory() {
  if (!shared_memory_) shared_memory_ = std::make_unique<SimSharedMemory>(fabric_, runtime_, hca_.index());
  return shared_memory_.get();
}

std::unique_ptr<fabric::AddressHandle> SimDevice::create_address_handle(const fabric::Address& remote) {
  uint32_t host, qpn, qkey;
  std::string why;
  if (!parse_sim_address(remote, Transport::UD, fabric_.host_count(), host, qpn, qkey, why))
    throw Error(Status::InvalidArgument, "create_address_handle: " + why);
  return std::make_unique<SimAddressHandle>(host, qpn, qkey);
}

double SimDevice::book_cpu(double now, double cost) {
  double start = std::max(now, cpu_free_at_);
  cpu_free_at_ = start + cost;
  return start - now;
}

// ------------------------------------------------------------- requester

void SimDevice::dispatch(SimQueuePair& qp, WireMessage* m) {
  const Platform& p = fabric_.platform();
  Counters& c = hca_.counters();  // the sender's (counters.hpp)
  const double now = s4u::Engine::get_clock();
  // Queueing behind the poster's unspent CPU work (Runtime::charge_cpu: the MPI
  // library's, before it posted), earlier posts (CPU) and earlier WQEs (HCA); an
  // isolated message waits for none, its own post and WQE time being part of the route
  // latency.
  const double owed = runtime_.caller_debt();
  double extra = owed + book_cpu(now + owed, p.hca.post_overhead);
  extra = hca_.book_wqe(now + extra, p.hca.wqe_interval()) - now;
  if (hca_.icm().touch(qp.icm_entry())) {
    ++c.icm_hits;
  } else {
    ++c.icm_misses;
    extra += p.hca.icm_miss_penalty;
  }
  // The responder, as the QP last found it (looked up again when the destination
  // changed or that QP is gone): the peer's HCA, QP and context stay untouched here.
  SimQueuePair::Peer& peer = qp.peer;
  if (peer.host != m->dst_host || peer.qpn != m->dst_qpn || !fabric_.qp_alive(peer.qp.id)) {
    SimQueuePair* found = fabric_.hca(m->dst_host).find_qp(m->dst_qpn);
    peer = found != nullptr ? SimQueuePair::Peer{m->dst_host, m->dst_qpn, found->ref(),
                                                 Destination{&found->device(), found->device_id(), &found->runtime()}}
                            : SimQueuePair::Peer{};
  }
  const bool responder_alive = peer.qp.qp != nullptr && fabric_.device_alive(peer.destination.id);
  m->dst_qp = peer.qp;

  const bool request_only = m->kind == WireKind::ReadRequest || m->kind == WireKind::AtomicRequest;
  const uint64_t payload = request_only ? 0 : m->length;
  const uint64_t pkts = fabric_.packets(payload);
  uint64_t wire = fabric_.wire_bytes(payload);
  const double prob = fabric_.loss_probability(m->dst_host);
  ++c.messages;

  if (m->transport != Transport::RC) {
    // Unreliable: a lost packet loses the whole message, silently. The send completes
    // locally once the message has left.
    const bool lost = fabric_.loss().first_loss(pkts, prob) < pkts;
    c.packets += pkts;
    c.wire_bytes += wire;
    const Route& r = fabric_.route(hca_.index(), m->dst_host);
    runtime_.schedule_completion(now + extra + static_cast<double>(wire) / r.bottleneck_bw, qp, m->sq_seq,
                                 WcStatus::Success, m->length);
    if (lost || !responder_alive) {
      // Lost on the way to, or not taken by, the destination: its HCA counts it.
      Counters& dst = fabric_.hca(m->dst_host).counters();
      if (lost) ++dst.packets_dropped;
      ++dst.messages_dropped;
      fabric_.free_message(m);
      return;
    }
    m->extra_delay = extra;
    if (m->transport == Transport::UC) m->psn = qp.take_psn();
    if (m->transport == Transport::UD) m->psn = qp.take_ud_path_seq(peer.qp.id);
    transmit(m, wire, peer.destination);
    return;
  }

  // RC: each lost packet costs an ACK timeout and a go-back-N retransmission from it.
  // The retry counter counts losses without progress in between: packets that got
  // through before a loss were acknowledged, and hardware reloads its counter when an
  // ACK acknowledges new packets (rxe: reset_retry_counters). More than retry_count
  // losses in a row fail the WR with RETRY_EXC_ERR.
  const fabric::RcReliability& cfg = qp.reliability();
  const double timeout = ack_timeout_seconds(cfg.ack_timeout);
  uint64_t pos = 0, resent = 0;
  unsigned losses = 0, in_a_row = 0;
  bool exhausted = false;
  Counters* dst = nullptr;  // the destination HCA's, looked up on the first loss only
  for (;;) {
    uint64_t first = fabric_.loss().first_loss(pkts - pos, prob);
    if (first >= pkts - pos) break;
    if (dst == nullptr) dst = &fabric_.hca(m->dst_host).counters();
    ++dst->packets_dropped;
    ++losses;
    in_a_row = first > 0 ? 1 : in_a_row + 1;
    if (in_a_row > cfg.retry_count) {
      exhausted = true;
      break;
    }
    resent += pkts - (pos + first);
    pos += first;
  }
  c.packets += pkts + resent;
  c.retransmissions += resent;
  wire += resent * (wire / pkts);
  c.wire_bytes += wire;
  if (exhausted || !responder_alive) {
    // No responder (or too many losses in a row): the requester retries until it
    // gives up, one ACK timeout per try.
    const unsigned tries = exhausted ? losses : cfg.retry_count + 1u;
    double give_up = now + extra + tries * timeout;
    if (std::isfinite(give_up))
      runtime_.schedule_completion(give_up, qp, m->sq_seq, WcStatus::RetryExceededError, 0);
    fabric_.free_message(m);
    return;
  }
  m->extra_delay = extra + losses * timeout;
  m->psn = qp.take_psn();
  transmit(m, wire, peer.destination);
}

void SimDevice::transmit(WireMessage* m, uint64_t wire_bytes, const Destination& destination) {
  m->posted_at = s4u::Engine::get_clock();
  fabric_.send(*this, destination, m, wire_bytes);
}

void SimDevice::deliver_completion(QpRef requester_qp, uint64_t seq, WcStatus status, uint32_t byte_len,
                                   double when) {
  SimQueuePair* qp = fabric_.resolve(requester_qp);
  if (qp == nullptr) return;
  SimRuntime& rt = qp->runtime();
  if (&rt != &runtime_ && rt.blocked_on(qp->send_cq(), when)) {
    // The requester sleeps on this completion: the ACK must travel as a message to
    // wake it at the right time. Otherwise it is a timer it finds when it next looks.
    WireMessage* a = fabric_.new_message();
    a->kind = WireKind::Ack;
    a->src_host = hca_.index();
    SimDevice& requester = qp->device();
    a->dst_host = requester.hca().index();
    a->dst_qpn = qp->qp_num();
    a->dst_qp = requester_qp;
    a->sq_seq = seq;
    a->status = status;
    a->length = byte_len;
    const Route& r = fabric_.route(hca_.index(), requester.hca().index());
    const uint64_t ack_bytes = fabric_.wire_bytes(0);
    const double now = s4u::Engine::get_clock();
    // Only a real delay (an error reported after timeouts) is kept; rounding residue
    // of the subtraction would cost a second wake-up for nothing.
    const double delay = when - now - r.latency - static_cast<double>(ack_bytes) / r.bottleneck_bw;
    a->extra_delay = delay > 1e-12 ? delay : 0.0;
    transmit(a, ack_bytes, Destination{&requester, qp->device_id(), &rt});
    return;
  }
  rt.schedule_completion(when, *qp, seq, status, byte_len);
}

void SimDevice::ack(WireMessage* m, uint32_t byte_len) {
  if (fabric_.device_alive(m->from_id)) {
    // An ACK is a header-only packet back along the route.
    const Route& r = fabric_.route(hca_.index(), m->src_host);
    double when = s4u::Engine::get_clock() + r.latency + static_cast<double>(fabric_.wire_bytes(0)) / r.bottleneck_bw;
    deliver_completion(m->src_qp, m->sq_seq, WcStatus::Success, byte_len, when);
  }
  fabric_.free_message(m);
}

void SimDevice::nak(WireMessage* m, WcStatus status) {
  if (m->transport == Transport::RC && fabric_.device_alive(m->from_id)) {
    const Route& r = fabric_.route(hca_.index(), m->src_host);
    double when = s4u::Engine::get_clock() + r.latency + static_cast<double>(fabric_.wire_bytes(0)) / r.bottleneck_bw;
    deliver_completion(m->src_qp, m->sq_seq, status, 0, when);
  } else {
    ++hca_.counters().messages_dropped;
  }
  fabric_.free_message(m);
}

void SimDevice::requester_response(WireMessage* m) {
  // An RDMA read's or atomic's data lands in the requester's memory only while its
  // work request is outstanding (not flushed by an error, not reset away) and its local
  // MRs still cover the SGEs, as the HCA's DMA checks the lkeys when the response
  // arrives: the application may have freed the buffer after a flush or a
  // deregistration. A local key gone by then is LOC_PROT_ERR, and the QP goes to ERR.
  SimQueuePair* qp = fabric_.resolve(m->dst_qp);
  if (qp != nullptr && &qp->device() == this && qp->awaits(m->sq_seq)) {
    if (!local_sges_ok(m->local)) {
      qp->complete_send(m->sq_seq, WcStatus::LocalProtectionError, 0);
    } else {
      std::vector<fabric::Sge> local = std::move(m->local);
      scatter_payload(*m, local, 0);
      m->local = std::move(local);
      runtime_.note_memory_written();
      hca_.counters().bytes += m->length;
      qp->complete_send(m->sq_seq, WcStatus::Success, m->length);
    }
  }
  fabric_.free_message(m);
}

// ------------------------------------------------------------- responder

void SimDevice::process_arrival(WireMessage* m) {
  const double now = s4u::Engine::get_clock();

  if (m->extra_delay > 0) {
    double d = m->extra_delay;
    m->extra_delay = 0;
    runtime_.schedule_arrival(now + d, this, m);
    return;
  }
  switch (m->kind) {
    case WireKind::Ack: {
      SimQueuePair* qp = fabric_.resolve(m->dst_qp);
      if (qp != nullptr && &qp->device() == this) qp->complete_send(m->sq_seq, m->status, m->length);
      fabric_.free_message(m);
      return;
    }
    case WireKind::ReadResponse:
    case WireKind::AtomicResponse: requester_response(m); return;
    default: break;
  }
  if (!m->received) {
    // The host's port (a small packet: the packets before it are still coming in) and
    // its HCA's receive pipeline: requests that arrive together are taken in one per
    // wqe_processing (the message rate of an incast's target).
    m->received = true;
    double start = m->ingress_seconds > 0 ? hca_.book_ingress(now, m->ingress_seconds) : now;
    start = hca_.book_receive(start, fabric_.platform().hca.wqe_processing);
    if (start > now) {
      runtime_.schedule_arrival(start, this, m);
      return;
    }
  }
  SimQueuePair* qp = fabric_.resolve(m->dst_qp);
  if (qp == nullptr || &qp->device() != this || qp->transport() != m->transport) {
    // Nobody there: RC requesters time out and give up, datagrams vanish.
    if (m->transport == Transport::RC && fabric_.device_alive(m->from_id)) {
      // (A requester QP destroyed meanwhile has nothing left to complete.)
      if (SimQueuePair* rq = fabric_.resolve(m->src_qp)) {
        const double timeout = ack_timeout_seconds(rq->reliability().ack_timeout) * (rq->reliability().retry_count + 1);
        if (std::isfinite(timeout))
          rq->runtime().schedule_completion(now + timeout, *rq, m->sq_seq, WcStatus::RetryExceededError, 0);
      }
    } else {
      ++hca_.counters().messages_dropped;
    }
    fabric_.free_message(m);
    return;
  }
  if (!m->icm_charged) {
    m->icm_charged = true;
    Counters& c = hca_.counters();
    if (hca_.icm().touch(qp->icm_entry())) {
      ++c.icm_hits;
    } else {
      ++c.icm_misses;
      if (fabric_.platform().hca.icm_miss_penalty > 0) {
        runtime_.schedule_arrival(now + fabric_.platform().hca.icm_miss_penalty, this, m);
        return;
      }
    }
  }
  if (m->transport == Transport::UD) {
    handle_ud_in_order(*qp, m);
    return;
  }
  const auto st = qp->state();
  if (st != fabric::QpState::ReadyToReceive && st != fabric::QpState::ReadyToSend) {
    ++hca_.counters().messages_dropped;  // a responder outside RTR/RTS drops packets
    fabric_.free_message(m);
    return;
  }
  handle_in_order(*qp, m);
}

void SimDevice::handle_ud_in_order(SimQueuePair& qp, WireMessage* m) {
  // A datagram that overtook an earlier one from the same QP waits for it (see
  // SimQueuePair::take_ud_path_seq); a datagram lost on the way never took a number.
  SimQueuePair::UdPath& path = qp.ud_path(m->src_qp.id);
  if (m->psn != path.expected) {
    WireMessage** link = &path.held;
    while (*link != nullptr && (*link)->psn < m->psn) link = &(*link)->next_held;
    m->next_held = *link;
    *link = m;
    return;
  }
  for (;;) {
    ++path.expected;
    const auto st = qp.state();
    if ((st != fabric::QpState::ReadyToReceive && st != fabric::QpState::ReadyToSend) ||
        m->qkey != qp.config().qkey) {
      ++hca_.counters().messages_dropped;  // outside RTR/RTS, or the wrong Q_Key: dropped
      fabric_.free_message(m);
    } else {
      execute(qp, m);
    }
    m = path.held;
    if (m == nullptr || m->psn != path.expected) return;
    path.held = m->next_held;
    m->next_held = nullptr;
  }
}

void SimDevice::handle_in_order(SimQueuePair& qp, WireMessage* m) {
  if (m->psn != qp.expected_psn) {
    if (m->psn < qp.expected_psn) {  // duplicate
      fabric_.free_message(m);
      return;
    }
    // A later message overtook an earlier one on the fluid network model; RC/UC
    // deliver in order, so it waits for its predecessors.
    WireMessage** link = &qp.held;
    while (*link != nullptr && (*link)->psn < m->psn) link = &(*link)->next_held;
    m->next_held = *link;
    *link = m;
    return;
  }
  for (;;) {
    if (!execute(qp, m)) return;  // receiver not ready: it comes back after the RNR timer
    ++qp.expected_psn;
    m = qp.held;
    if (m == nullptr || m->psn != qp.expected_psn) return;
    qp.held = m->next_held;
    m->next_held = nullptr;
    const auto st = qp.state();
    if (st != fabric::QpState::ReadyToReceive && st != fabric::QpState::ReadyToSend) {
      fabric_.free_message(m);
      return;
    }
  }
}

bool SimDevice::execute(SimQueuePair& qp, WireMessage* m) {
  if (!source_ok(*m)) {
    nak(m, WcStatus::LocalProtectionError);
    return true;
  }
  switch (m->kind) {
    case WireKind::Send: responder_send(qp, m); break;
    case WireKind::Write: responder_write(qp, m); break;
    case WireKind::ReadRequest: responder_read(qp, m); break;
    case WireKind::AtomicRequest: responder_atomic(qp, m); break;
    default: fabric_.free_message(m); break;
  }
  if (rnr_pending_) {
    rnr_pending_ = false;
    return false;
  }
  return true;
}

bool SimDevice::wait_for_receive(SimQueuePair& qp, WireMessage* m) {
  if (m->transport != Transport::RC) {
    ++hca_.counters().messages_dropped;  // UC/UD: no receive posted, message lost
    fabric_.free_message(m);
    return false;
  }
  ++hca_.counters().rnr_naks;
  ++m->rnr_attempts;
  SimQueuePair* requester = fabric_.device_alive(m->from_id) ? fabric_.resolve(m->src_qp) : nullptr;
  if (requester == nullptr) {
    fabric_.free_message(m);
    return false;
  }
  const uint8_t retries = requester->reliability().rnr_retry;
  if (retries != 7 && m->rnr_attempts > retries) {
    nak(m, WcStatus::RnrRetryExceededError);
    return false;
  }
  // The requester gets an RNR NAK, waits the responder's RNR timer and sends again.
  const Route& r = fabric_.route(hca_.index(), m->src_host);
  double delay = rnr_timer_seconds(qp.reliability().min_rnr_timer) + 2 * r.latency;
  runtime_.schedule_arrival(s4u::Engine::get_clock() + delay, this, m);
  rnr_pending_ = true;
  return false;
}

SimMemoryRegion* SimDevice::check_remote(SimQueuePair& qp, WireMessage* m, uint64_t len, Access need) {
  SimMemoryRegion* mr = hca_.find_mr(m->rkey);
  if (mr == nullptr || mr->owner() != &qp.device() || !fabric::has(mr->access(), need) ||
      !mr->covers(m->remote_addr, len))
    return nullptr;
  return mr;
}

bool SimDevice::source_ok(const WireMessage& m) const {
  // RC payloads are read from the sender's memory when they arrive (as the HCA's DMA
  // would); if the sender deregistered or closed it meanwhile, nothing may be read.
  if (m.source.empty()) return true;
  if (!fabric_.device_alive(m.from_id)) return false;
  for (const auto& s : m.source) {
    if (s.length == 0) continue;
    SimMemoryRegion* mr = m.from->hca().find_mr(s.lkey);
    if (mr == nullptr || mr->owner() != m.from || !mr->covers(s.addr, s.length)) return false;
  }
  return true;
}

bool SimDevice::local_sges_ok(std::span<const fabric::Sge> sges) const {
  for (const auto& s : sges) {
    if (s.length == 0) continue;
    SimMemoryRegion* mr = hca_.find_mr(s.lkey);
    if (mr == nullptr || mr->owner() != this || !mr->covers(s.addr, s.length) ||
        !fabric::has(mr->access(), Access::LocalWrite))
      return false;
  }
  return true;
}

void SimDevice::responder_send(SimQueuePair& qp, WireMessage* m) {
  RecvEntry r;
  if (!qp.take_receive(r)) {
    wait_for_receive(qp, m);
    return;
  }
  const uint64_t offset = m->transport == Transport::UD ? fabric::kUdGrhBytes : 0;
  uint64_t capacity = 0;
  for (const auto& s : r.sges.view()) capacity += s.length;
  fabric::WorkCompletion wc;
  wc.wr_id = r.wr_id;
  wc.opcode = WcOpcode::Recv;
  wc.qp_num = qp.qp_num();
  wc.src_qp = m->src_qpn;
  wc.src_node = m->src_host;
  wc.imm_data = m->imm;
  wc.has_imm = m->has_imm;
  if (m->length + offset > capacity || !local_sges_ok(r.sges.view())) {
    const bool too_long = m->length + offset > capacity;
    wc.status = too_long ? WcStatus::LocalLengthError : WcStatus::LocalProtectionError;
    qp.push_recv_completion(wc);
    qp.enter_error();
    nak(m, too_long ? WcStatus::RemoteInvalidRequestError : WcStatus::RemoteOperationError);
    return;
  }
  scatter_payload(*m, r.sges.view(), offset);
  wc.byte_len = static_cast<uint32_t>(m->length + offset);
  qp.push_recv_completion(wc);
  runtime_.note_memory_written();
  hca_.counters().bytes += m->length;
  if (m->transport == Transport::RC)
    ack(m, m->length);
  else
    fabric_.free_message(m);
}

void SimDevice::responder_write(SimQueuePair& qp, WireMessage* m) {
  if (m->length > 0 && check_remote(qp, m, m->length, Access::RemoteWrite) == nullptr) {
    nak(m, WcStatus::RemoteAccessError);
    return;
  }
  RecvEntry r;
  if (m->has_imm && !qp.take_receive(r)) {
    wait_for_receive(qp, m);
    return;
  }
  copy_payload_to(*m, reinterpret_cast<std::byte*>(m->remote_addr));
  runtime_.note_memory_written();
  hca_.counters().bytes += m->length;
  if (m->has_imm) {
    fabric::WorkCompletion wc;
    wc.wr_id = r.wr_id;
    wc.opcode = WcOpcode::RecvRdmaWithImm;
    wc.byte_len = m->length;
    wc.imm_data = m->imm;
    wc.has_imm = true;
    wc.qp_num = qp.qp_num();
    wc.src_qp = m->src_qpn;
    wc.src_node = m->src_host;
    qp.push_recv_completion(wc);
  }
  if (m->transport == Transport::RC)
    ack(m, m->length);
  else
    fabric_.free_message(m);
}

void SimDevice::responder_read(SimQueuePair& qp, WireMessage* m) {
  if (m->length > 0 && check_remote(qp, m, m->length, Access::RemoteRead) == nullptr) {
    nak(m, WcStatus::RemoteAccessError);
    return;
  }
  if (!fabric_.device_alive(m->from_id)) {
    fabric_.free_message(m);
    return;
  }
  WireMessage* r = fabric_.new_message();
  r->kind = WireKind::ReadResponse;
  r->transport = Transport::RC;
  r->src_host = hca_.index();
  r->dst_host = m->src_host;
  r->dst_qpn = m->src_qpn;
  r->dst_qp = m->src_qp;
  r->sq_seq = m->sq_seq;
  r->length = m->length;
  r->from = this;
  r->from_id = id_;
  r->local.swap(m->local);
  r->data.resize(m->length);  // the data as it is when the responder reads it
  if (m->length) std::memcpy(r->data.data(), reinterpret_cast<const void*>(m->remote_addr), m->length);
  SimDevice* requester = m->from;
  const uint32_t requester_id = m->from_id;
  fabric_.free_message(m);
  Counters& c = hca_.counters();
  ++c.messages;
  c.packets += fabric_.packets(r->length);
  c.wire_bytes += fabric_.wire_bytes(r->length);
  r->extra_delay = fabric_.platform().hca.read_response_latency;
  transmit(r, fabric_.wire_bytes(r->length), Destination{requester, requester_id, &requester->sim_runtime()});
}

void SimDevice::responder_atomic(SimQueuePair& qp, WireMessage* m) {
  if (m->remote_addr % 8 != 0) {
    nak(m, WcStatus::RemoteInvalidRequestError);
    return;
  }
  if (check_remote(qp, m, 8, Access::RemoteAtomic) == nullptr) {
    nak(m, WcStatus::RemoteAccessError);
    return;
  }
  if (!fabric_.device_alive(m->from_id)) {
    fabric_.free_message(m);
    return;
  }
  auto* target = reinterpret_cast<std::byte*>(m->remote_addr);
  uint64_t old;
  std::memcpy(&old, target, 8);
  uint64_t updated = old;
  if (m->opcode == fabric::Opcode::AtomicCompareSwap) {
    if (old == m->compare_add) updated = m->swap;
  } else {
    updated = old + m->compare_add;
  }
  std::memcpy(target, &updated, 8);
  runtime_.note_memory_written();

  WireMessage* r = fabric_.new_message();
  r->kind = WireKind::AtomicResponse;
  r->transport = Transport::RC;
  r->src_host = hca_.index();
  r->dst_host = m->src_host;
  r->dst_qpn = m->src_qpn;
  r->dst_qp = m->src_qp;
  r->sq_seq = m->sq_seq;
  r->length = 8;
  r->from = this;
  r->from_id = id_;
  r->local.swap(m->local);
  r->data.resize(8);
  std::memcpy(r->data.data(), &old, 8);
  // The HCA's atomic unit serializes atomics from every origin: this one's response
  // leaves when the unit finished it (the value it read is this arrival order's).
  const double now = s4u::Engine::get_clock();
  r->extra_delay = hca_.book_atomic_unit(now, fabric_.platform().hca.atomic_latency) - now;
  SimDevice* requester = m->from;
  const uint32_t requester_id = m->from_id;
  fabric_.free_message(m);
  Counters& c = hca_.counters();
  ++c.messages;
  ++c.packets;
  c.wire_bytes += fabric_.wire_bytes(8);
  transmit(r, fabric_.wire_bytes(8), Destination{requester, requester_id, &requester->sim_runtime()});
}

}  // namespace twinfab::sim
