#include "mpi/channels/shm_channel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "fabric/error.hpp"
#include "fabric/log.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

// Items taken from the FIFO per progress() call: a bound, so that a rank flooded by
// its host's peers still gets back to its other work.
constexpr int kPopsPerProgress = 64;

// The blob this rank publishes: the segment name's length, the name, the identity.
std::vector<std::byte> encode_blob(std::span<const std::byte> name, std::span<const std::byte> identity) {
  std::vector<std::byte> blob(4 + name.size() + identity.size());
  const auto n = static_cast<std::uint32_t>(name.size());
  std::memcpy(blob.data(), &n, 4);
  std::memcpy(blob.data() + 4, name.data(), name.size());
  std::memcpy(blob.data() + 4 + name.size(), identity.data(), identity.size());
  return blob;
}

}  // namespace

ShmChannel::ShmChannel(fabric::SharedMemory& memory, fabric::Runtime& runtime, fabric::OobExchange& oob,
                       std::vector<int> local_ranks, std::size_t max_payload, std::uint32_t cells, PacketSink& sink)
    : memory_(memory),
      runtime_(runtime),
      oob_(oob),
      sink_(sink),
      rank_(oob.rank()),
      local_ranks_(std::move(local_ranks)),
      layout_(shm::Layout::for_payload(max_payload, cells)) {
  contiguous_ = !local_ranks_.empty() &&
                local_ranks_.back() - local_ranks_.front() == static_cast<int>(local_ranks_.size()) - 1;
  self_index_ = local_index(rank_);
  if (self_index_ < 0)
    fail_other("MPI_Init",
               fmt::format("shared memory: rank {} is not among the ranks the launcher placed on its host", rank_));
  locals_.resize(local_ranks_.size());
  caps_.max_payload = layout_.max_payload();
  const bool single_copy = memory_.single_copy();
  caps_.rdma_write = single_copy;
  caps_.rdma_write_with_imm = single_copy;
  caps_.rdma_read = single_copy;
  caps_.max_inline_write = single_copy ? 4096 : 0;  // a single copy needs no registration either way
  try {
    segment_ = memory_.create(layout_.segment_bytes());
  } catch (const fabric::Error& e) {
    // Not fatal: the network reaches every rank of the host too (the rule: one
    // warning, never a hang).
    fabric::log().warn("rank {}: no shared-memory segment ({}); the ranks of this host reach it through the network",
                       rank_, e.what());
    oob_.put({});
    return;
  }
  base_ = segment_->bytes().data();
  shm::format(segment_->bytes(), layout_, rank_);
  free_.reserve(layout_.cells);
  for (std::uint32_t i = layout_.cells; i-- > 0;) free_.push_back(i);
  oob_.put(encode_blob(segment_->name(), memory_.identity()));
}

ShmChannel::~ShmChannel() {
  if (abandoned()) return;  // no finishing handshake: the members release this rank's mapping
  try {
    shutdown();
  } catch (const std::exception& e) {
    fabric::log().error("rank {}: shared-memory channel shutdown failed: {}", rank_, e.what());
  }
}

int ShmChannel::local_index(int peer) const noexcept {
  if (contiguous_) {
    const int i = peer - local_ranks_.front();
    return i >= 0 && i < static_cast<int>(local_ranks_.size()) ? i : -1;
  }
  auto it = std::lower_bound(local_ranks_.begin(), local_ranks_.end(), peer);
  return it != local_ranks_.end() && *it == peer ? static_cast<int>(it - local_ranks_.begin()) : -1;
}

bool ShmChannel::reachable(int peer) const {
  const int index = local_index(peer);
  if (index < 0 || index == self_index_ || base_ == nullptr) return false;
  const Local& l = locals_[static_cast<std::size_t>(index)];
  if (l.reach == Reach::Unknown) {
    // The peer's blob: empty when it has no segment.
    const std::vector<std::byte> blob = oob_.get(peer);
    l.reach = blob.empty() ? Reach::No : Reach::Yes;
  }
  return l.reach == Reach::Yes;
}

ShmChannel::Local& ShmChannel::attached(int index) {
  Local& l = locals_[static_cast<std::size_t>(index)];
  if (l.base != nullptr) return l;
  const int peer = local_ranks_[static_cast<std::size_t>(index)];
  if (index == self_index_) {
    l.base = base_;
    return l;
  }
  const std::vector<std::byte> blob = oob_.get(peer);
  std::uint32_t name_bytes = 0;
  if (blob.size() >= 4) std::memcpy(&name_bytes, blob.data(), 4);
  if (blob.size() < 4 || blob.size() < 4 + std::size_t{name_bytes})
    fail_other("shared memory", fmt::format("rank {} published no usable shared-memory segment", peer));
  const std::span<const std::byte> all(blob);
  try {
    l.segment = memory_.attach(all.subspan(4, name_bytes));
    l.peer = memory_.peer(all.subspan(4 + name_bytes));
  } catch (const fabric::Error& e) {
    fail_other("shared memory",
               fmt::format("rank {} cannot map the segment of rank {} on its host: {}", rank_, peer, e.what()));
  }
  if (!shm::matches(l.segment->bytes(), layout_, peer))
    fail_other("shared memory",
               fmt::format("the segment rank {} published is not a twinfab queue of this job's shape "
                           "(TWINFAB_SHM_CELLS and TWINFAB_PACKET_SIZE must be the same on every rank)",
                           peer));
  l.reach = Reach::Yes;
  l.base = l.segment->bytes().data();
  return l;
}

shm::CellHeader& ShmChannel::cell_of(shm::Item item) {
  const std::uint32_t owner = shm::item_owner(item);
  if (owner >= locals_.size() || shm::item_cell(item) >= layout_.cells)
    fail_other("shared memory", fmt::format("rank {}: a corrupt queue item {:#x}", rank_, item));
  return shm::cell(attached(static_cast<int>(owner)).base, layout_, shm::item_cell(item));
}

void ShmChannel::put_cell(int peer, shm::CellKind kind, const PacketHeader& header, std::uint32_t immediate,
                          std::size_t payload_bytes, const Fill& fill) {
  const int index = local_index(peer);
  Local& l = attached(index);
  const std::uint32_t c = free_.back();
  free_.pop_back();
  shm::CellHeader& cell = shm::cell(base_, layout_, c);
  cell.kind = kind;
  cell.payload_bytes = static_cast<std::uint32_t>(payload_bytes);
  cell.source = rank_;
  cell.destination = peer;
  cell.immediate = immediate;
  cell.packet = header;
  // The copy into shared memory, and its time (in the simulator) before the peer can
  // see it.
  fill(std::span<std::byte>(shm::payload(cell), payload_bytes));
  memory_.charge_copy(payload_bytes);
  shm::push(shm::header(l.base), shm::make_item(static_cast<std::uint32_t>(self_index_), c),
            [this](shm::Item item) -> shm::CellHeader& { return cell_of(item); });
  l.peer->notify();
  if (kind == shm::CellKind::Packet) {
    ++counters_.packets_sent;
    ++counters_.shm_packets_sent;
  }
}

void ShmChannel::send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) {
  if (payload_bytes > caps_.max_payload)
    fail_other("shared memory", fmt::format("a packet of {} bytes of payload is above the channel's {}", payload_bytes,
                                            caps_.max_payload));
  if (pending_.empty() && !free_.empty()) {
    put_cell(peer, shm::CellKind::Packet, header, 0, payload_bytes, fill);
    return;
  }
  defer(Pending{peer, DeferredOperation::packet(header, payload_bytes, fill)});
}

void ShmChannel::defer(Pending entry) {
  ++locals_[static_cast<std::size_t>(local_index(entry.peer))].pending;
  pending_.push_back(std::move(entry));
  ++counters_.packets_deferred;
  counters_.pending_peak = std::max<std::uint64_t>(counters_.pending_peak, pending_.size());
  // Whoever gives a cell back now wakes this rank.
  if (base_ != nullptr) shm::header(base_).wants_cells.store(1, std::memory_order_release);
}

void ShmChannel::post_rdma(int peer, const RdmaOp& op) {
  const bool offered = op.kind == RdmaOp::Kind::Write   ? caps_.rdma_write
                       : op.kind == RdmaOp::Kind::Read  ? caps_.rdma_read
                       : op.kind == RdmaOp::Kind::WriteWithImm ? caps_.rdma_write_with_imm
                                                               : false;
  if (!offered || !reachable(peer))
    fail_other("shared memory",
               fmt::format("an RDMA operation (kind {}) to rank {} that the shared-memory channel does not "
                           "offer",
                           static_cast<int>(op.kind), peer));
  ++counters_.rdma_posted;
  if (locals_[static_cast<std::size_t>(local_index(peer))].pending > 0 ||
      (op.kind == RdmaOp::Kind::WriteWithImm && (free_.empty() || !pending_.empty()))) {
    defer(Pending{peer, DeferredOperation::operation(op)});
    return;
  }
  run_rdma(peer, op);
}

void ShmChannel::run_rdma(int peer, const RdmaOp& op) {
  Local& l = attached(local_index(peer));
  const auto local = reinterpret_cast<void*>(op.local.addr);
  const fabric::Status s = op.kind == RdmaOp::Kind::Read ? l.peer->read(local, op.remote_addr, op.local.length)
                                                         : l.peer->write(op.remote_addr, local, op.local.length);
  if (s != fabric::Status::Ok)
    fail_other("shared memory", fmt::format("rank {}: a single copy {} rank {} failed: {}", rank_,
                                            op.kind == RdmaOp::Kind::Read ? "from" : "to", peer, l.peer->last_error()));
  if (op.kind == RdmaOp::Kind::WriteWithImm) {
    put_cell(peer, shm::CellKind::Immediate, PacketHeader{}, op.imm, 0, [](std::span<std::byte>) {});
  } else if (op.kind == RdmaOp::Kind::Write) {
    // Data landed in the peer's memory, as an RDMA write's does: a peer that polls its
    // memory for it (one-sided synchronisation flags) must look again.
    l.peer->notify();
  }
  ++counters_.shm_single_copies;
  done_.push_back({op.cookie, fabric::WcStatus::Success});
}

std::size_t ShmChannel::drive_pending() {
  std::size_t sent = 0;
  while (!pending_.empty()) {
    const Pending& p = pending_.front();
    const DeferredOperation& d = p.what;
    const bool needs_cell = !d.rdma || d.op.kind == RdmaOp::Kind::WriteWithImm;
    if (needs_cell && free_.empty()) break;
    if (d.rdma) {
      run_rdma(p.peer, d.op);
    } else {
      put_cell(p.peer, shm::CellKind::Packet, d.header, 0, d.payload.size(),
               [&d](std::span<std::byte> out) { d.fill(out); });
    }
    --locals_[static_cast<std::size_t>(local_index(p.peer))].pending;
    pending_.pop_front();
    ++sent;
  }
  if (pending_.empty() && base_ != nullptr && stage_ == Stage::Running)
    shm::header(base_).wants_cells.store(0, std::memory_order_relaxed);
  return sent;
}

void ShmChannel::take(shm::Item item) {
  const std::uint32_t owner = shm::item_owner(item);
  if (owner == static_cast<std::uint32_t>(self_index_)) {
    free_.push_back(shm::item_cell(item));  // one of ours, back
    return;
  }
  shm::CellHeader& cell = cell_of(item);
  const int source = cell.source;
  switch (cell.kind) {
    case shm::CellKind::Packet: {
      ++counters_.packets_received;
      ++counters_.shm_packets_received;
      // The copy out of shared memory is the sink's (into the user's buffer or the
      // unexpected queue); its time is charged here.
      memory_.charge_copy(cell.payload_bytes);
      sink_.on_packet(source, cell.packet, std::span<const std::byte>(shm::payload(cell), cell.payload_bytes));
      break;
    }
    case shm::CellKind::Immediate:
      sink_.on_write_immediate(source, cell.immediate);
      break;
    default:
      fail_other("shared memory", fmt::format("rank {}: a cell of unknown kind {} from rank {}", rank_,
                                              static_cast<unsigned>(cell.kind), source));
  }
  // Back to its owner, which is woken only if it waits for cells.
  Local& o = locals_[owner];
  shm::SegmentHeader& owner_header = shm::header(o.base);
  shm::push(owner_header, item, [this](shm::Item i) -> shm::CellHeader& { return cell_of(i); });
  if (owner_header.wants_cells.load(std::memory_order_acquire) != 0) o.peer->notify();
}

std::size_t ShmChannel::progress() {
  std::size_t events = 0;
  if (!done_.empty()) {
    // Swapped out first: a completion handler may post more.
    std::vector<Done> done;
    done.swap(done_);
    for (const Done& d : done) sink_.on_rdma_done(d.cookie, d.status);
    events += done.size();
  }
  if (base_ == nullptr) return events;
  shm::SegmentHeader& self = shm::header(base_);
  for (int i = 0; i < kPopsPerProgress; ++i) {
    const shm::Item item = shm::pop(self, [this](shm::Item it) -> shm::CellHeader& { return cell_of(it); });
    if (item == shm::kNone) break;
    take(item);
    ++events;
  }
  if (!pending_.empty()) events += drive_pending();
  return events;
}

Channel::WaitSet ShmChannel::wait_set() const {
  WaitSet w;
  w.memory = true;
  return w;
}

bool ShmChannel::finish_step() {
  if (base_ == nullptr || stage_ == Stage::Done) return true;
  if (stage_ == Stage::Running) {
    // This rank now waits for its cells to come back: whoever returns one must wake it.
    shm::header(base_).wants_cells.store(1, std::memory_order_release);
    stage_ = Stage::Draining;
  }
  if (stage_ == Stage::Draining) {
    // 1. Everything this rank sent has been taken: nothing of it is left in a FIFO.
    if (!pending_.empty() || free_.size() != layout_.cells) return false;
    // 2. The host's count of ranks that got there, in the first segment's header (the
    //    lowest rank of the host with a segment: the same for all). Who completes it
    //    wakes the others.
    int first = -1;
    std::vector<int> members;
    for (std::size_t i = 0; i < local_ranks_.size(); ++i) {
      const int r = local_ranks_[i];
      if (r != rank_ && !reachable(r)) continue;
      if (first < 0) first = static_cast<int>(i);
      members.push_back(static_cast<int>(i));
    }
    count_ = &shm::header(attached(first).base);
    count_total_ = static_cast<std::uint32_t>(members.size());
    if (count_->departed.fetch_add(1, std::memory_order_acq_rel) + 1 == count_total_) {
      for (int i : members)
        if (i != self_index_) attached(i).peer->notify();
    }
    stage_ = Stage::Counted;
  }
  // 3. Until every rank of the host got there, this one keeps taking what arrives and
  //    giving cells back (a peer still waits for its own). Then no cell is in flight
  //    anywhere, and none will be: every rank has stopped sending.
  if (count_->departed.load(std::memory_order_acquire) != count_total_) return false;
  if (!pending_.empty() || free_.size() != layout_.cells)
    fabric::log().error("rank {}: shared memory: packets were sent during the channel's shutdown; they may be lost",
                        rank_);
  stage_ = Stage::Done;
  return true;
}

void ShmChannel::shutdown() {
  while (!finish_step()) {
    if (progress() == 0) runtime_.wait({}, fabric::Runtime::kForever);
  }
}

}  // namespace twinfab::mpi
