#include "mpi/channels/node_channel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "fabric/log.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

NodeChannel::NodeChannel(fabric::SharedMemory& memory, fabric::Runtime& runtime, fabric::OobKeys& keys,
                         std::vector<int> local_ranks, std::uint32_t shm_cells, PacketSink& sink,
                         const NetworkFactory& network)
    : runtime_(runtime), sink_(sink), network_side_(*this) {
  network_ = network(keys.view(0), network_side_);
  caps_ = network_->capabilities();
  caps_.varies_by_peer = true;
  // Cells carry the network's packets, so that a message's segments fit either way.
  shm_ = std::make_unique<ShmChannel>(memory, runtime, keys.view(1), std::move(local_ranks), caps_.max_payload,
                                      shm_cells, sink_);
  local_caps_ = caps_;
  const ChannelCapabilities& shm = shm_->capabilities();
  local_caps_.rdma_write = caps_.rdma_write || shm.rdma_write;
  local_caps_.rdma_write_with_imm = caps_.rdma_write_with_imm || shm.rdma_write_with_imm;
  local_caps_.rdma_read = caps_.rdma_read || shm.rdma_read;
  local_caps_.max_inline_write = std::max(caps_.max_inline_write, shm.max_inline_write);
}

NodeChannel::~NodeChannel() {
  if (abandoned()) {
    shm_.reset();
    network_.reset();
    return;
  }
  try {
    // What is held waits for network completions, and the shared-memory channel's
    // shutdown for every rank of the host, some of which may wait for this rank's
    // network traffic (packets held for credits): both channels go on until both are
    // done.
    while (!fences_.empty() || !shm_->finish_step()) {
      if (progress() == 0) {
        const WaitSet w = wait_set();
        runtime_.wait(w.sources, w.deadline);
      }
    }
  } catch (const std::exception& e) {
    fabric::log().error("node channel shutdown failed: {}", e.what());
  }
  shm_.reset();
  network_.reset();
}

void NodeChannel::abandon() noexcept {
  Channel::abandon();
  if (network_) network_->abandon();
  if (shm_) shm_->abandon();
}

const ChannelCapabilities& NodeChannel::capabilities(int peer) const noexcept {
  return local(peer) ? local_caps_ : network_->capabilities(peer);
}

NodeChannel::Fence* NodeChannel::fence_of(int peer) {
  for (Fence& f : fences_)
    if (f.peer == peer) return &f;
  return nullptr;
}

void NodeChannel::send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) {
  if (!local(peer)) {
    network_->send_packet(peer, header, payload_bytes, fill);
    return;
  }
  if (Fence* f = fence_of(peer); f != nullptr) [[unlikely]] {
    f->held.push_back(DeferredOperation::packet(header, payload_bytes, fill));
    return;
  }
  shm_->send_packet(peer, header, payload_bytes, fill);
}

void NodeChannel::post_rdma(int peer, const RdmaOp& op) {
  if (!local(peer)) {
    network_->post_rdma(peer, op);
    return;
  }
  const ChannelCapabilities& shm = shm_->capabilities();
  const bool by_shm = op.kind == RdmaOp::Kind::Write          ? shm.rdma_write
                      : op.kind == RdmaOp::Kind::WriteWithImm ? shm.rdma_write_with_imm
                      : op.kind == RdmaOp::Kind::Read         ? shm.rdma_read
                                                              : false;
  Fence* f = fence_of(peer);
  if (by_shm) {
    if (f == nullptr) {
      shm_->post_rdma(peer, op);
      return;
    }
    f->held.push_back(DeferredOperation::operation(op));
    return;
  }
  // Through the network (the HCA loops it back to this host): what follows waits for it.
  if (f == nullptr) {
    fences_.push_back(Fence{peer, {}});
    f = &fences_.back();
  }
  fenced_cookies_.emplace_back(op.cookie, peer);
  network_->post_rdma(peer, op);
}

void NodeChannel::release(Fence& fence) {
  // Held packets and operations go in order until the next network one (none is held:
  // network operations are posted at once), so all of them go now.
  const int peer = fence.peer;
  std::deque<DeferredOperation> held = std::move(fence.held);
  fences_.erase(fences_.begin() + (&fence - fences_.data()));
  for (const DeferredOperation& h : held) {
    if (h.rdma) {
      post_rdma(peer, h.op);
    } else {
      send_packet(peer, h.header, std::span<const std::byte>(h.payload));
    }
  }
}

void NodeChannel::NetworkSide::on_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) {
  owner_.sink_.on_packet(peer, header, payload);
}

void NodeChannel::NetworkSide::on_write_immediate(int peer, std::uint32_t imm) {
  owner_.sink_.on_write_immediate(peer, imm);
}

void NodeChannel::NetworkSide::on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) {
  auto& cookies = owner_.fenced_cookies_;
  if (!cookies.empty()) [[unlikely]] {
    auto it = std::find_if(cookies.begin(), cookies.end(), [cookie](const auto& c) { return c.first == cookie; });
    if (it != cookies.end()) {
      const int peer = it->second;
      cookies.erase(it);
      // The completion first (an atomic's old value is the caller's before what follows),
      // then what it held; the handler may have posted another network operation.
      owner_.sink_.on_rdma_done(cookie, status);
      const bool more = std::any_of(cookies.begin(), cookies.end(), [peer](const auto& c) { return c.second == peer; });
      if (Fence* f = owner_.fence_of(peer); f != nullptr && !more) owner_.release(*f);
      return;
    }
  }
  owner_.sink_.on_rdma_done(cookie, status);
}

std::size_t NodeChannel::progress() { return shm_->progress() + network_->progress(); }

Channel::WaitSet NodeChannel::wait_set() const {
  const WaitSet net = network_->wait_set();
  sources_.assign(net.sources.begin(), net.sources.end());
  return {std::span<fabric::CompletionQueue* const>(sources_), net.deadline, /*memory=*/true};
}

const ChannelCounters& NodeChannel::counters() const noexcept {
  counters_ = network_->counters();
  counters_ += shm_->counters();
  return counters_;
}

}  // namespace twinfab::mpi
