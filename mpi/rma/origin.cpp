// twinfab MPI one-sided: the origin side of put, get and the accumulates (MPI-3.1
// §11.3), by RDMA or as messages (rma_engine.hpp says which when).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

namespace {

/// The largest piece one RDMA work request moves (verbs allows 2^31 bytes).
constexpr std::uint64_t kRdmaChunk = 1ull << 30;

/// The single basic kind all of `type`'s elements have, if they have one.
std::optional<BasicKind> single_basic_kind(const Datatype& type) {
  if (type.basic_kind()) return type.basic_kind();
  std::optional<BasicKind> kind;
  bool mixed = false;
  type.for_each_basic_run(1, [&](BasicKind k, std::int64_t) {
    if (kind && *kind != k) mixed = true;
    kind = k;
  });
  return mixed ? std::nullopt : kind;
}

/// Where the bytes of `count` elements of contiguous `type` at `buffer` start.
const std::byte* contiguous_start(const void* buffer, const Datatype& type) {
  const std::int64_t offset = type.blocks().empty() ? 0 : type.blocks().front().offset;
  return static_cast<const std::byte*>(buffer) + offset;
}

/// Whether (count, type) is one run of bytes.
bool is_one_run(std::int64_t count, const Datatype& type) {
  return type.is_contiguous() && (count <= 1 || type.extent() == type.size());
}

std::vector<std::byte> packed(const void* buffer, std::int64_t count, const Datatype& type, const char* where) {
  std::vector<std::byte> out(static_cast<std::size_t>(count * type.size()));
  if (!out.empty()) pack(buffer, count, type, 0, out, where);
  return out;
}

/// Lends the engine's block vector to one call, its capacity kept between calls: a put
/// or a get allocated a vector for its target layout every time. A nested call (none
/// today) would find it lent out and start from an empty one.
class ScratchBlocks {
 public:
  explicit ScratchBlocks(std::vector<Block>& home) : home_(home) { blocks.swap(home_); }
  ~ScratchBlocks() {
    blocks.clear();
    home_.swap(blocks);
  }
  ScratchBlocks(const ScratchBlocks&) = delete;
  ScratchBlocks& operator=(const ScratchBlocks&) = delete;
  std::vector<Block> blocks;

 private:
  std::vector<Block>& home_;
};

}  // namespace

void RmaEngine::check_access(Window& window, int target, const char* where) {
  const int n = window.comm->size();
  if (target < 0 || target >= n)
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(target_rank={})", where, target),
                fmt::format("invalid rank; the window's group has {} ranks", n));
  const EpochState& e = window.epoch;
  if (e.fence || e.lock_all) return;
  if (e.started && std::binary_search(e.start_group.begin(), e.start_group.end(), target)) return;
  const TargetState* state = window.find_target(target);
  if (state != nullptr && state->lock != TargetState::Lock::None) return;
  throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(target_rank={})", where, target),
              e.started ? "the target is not in the group of MPI_Win_start"
                        : "no access epoch is open to this target (MPI_Win_fence, MPI_Win_start, MPI_Win_lock or "
                          "MPI_Win_lock_all first)");
}

std::uint64_t RmaEngine::target_range(Window& window, int target, std::int64_t disp, std::int64_t count,
                                      const Datatype& type, std::vector<Block>& blocks, const char* where) {
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(target)];
  const bool dynamic = window.flavor == Flavor::Dynamic;
  if (!dynamic && disp < 0)
    throw Error(ErrorClass::MPI_ERR_DISP, fmt::format("{}(target_disp={})", where, disp),
                "the displacement must not be negative");
  const std::uint64_t offset =
      dynamic ? static_cast<std::uint64_t>(disp) : static_cast<std::uint64_t>(disp) * static_cast<std::uint64_t>(peer.disp_unit);
  blocks.clear();
  if (count > 0 && type.size() > 0 && is_one_run(count, type)) {
    // One run of bytes, whatever the count (a 2 MiB put of MPI_BYTE is one block, not
    // two million merged ones).
    blocks.push_back(Block{type.blocks().front().offset, count * type.size()});
  } else {
    for (std::int64_t i = 0; i < count; ++i) {
      for (const Block& b : type.blocks()) {
        const std::int64_t start = i * type.extent() + b.offset;
        if (!blocks.empty() && blocks.back().offset + blocks.back().length == start)
          blocks.back().length += b.length;
        else
          blocks.push_back(Block{start, b.length});
      }
    }
  }
  if (blocks.empty()) return offset;
  std::int64_t low = blocks.front().offset, high = low;
  for (const Block& b : blocks) {
    low = std::min(low, b.offset);
    high = std::max(high, b.offset + b.length);
  }
  const auto fail = [&](const std::string& why) {
    throw Error(ErrorClass::MPI_ERR_RMA_RANGE,
                fmt::format("{}(target_rank={}, target_disp={}, target_count={})", where, target, disp, count), why);
  };
  if (!dynamic) {
    const std::int64_t first = static_cast<std::int64_t>(offset) + low;
    const std::int64_t end = static_cast<std::int64_t>(offset) + high;
    if (first < 0 || static_cast<std::uint64_t>(end) > peer.size)
      fail(fmt::format("bytes [{}, {}) are outside the target's window of {} bytes", first, end, peer.size));
  } else if (target == window.rank()) {
    const std::uint64_t first = offset + static_cast<std::uint64_t>(low);
    const std::uint64_t end = offset + static_cast<std::uint64_t>(high);
    if (!window.attached_covers(first, end)) fail("the target memory is not attached to the window");
  }
  return offset;
}

bool RmaEngine::uses_rdma(const Window& window, int target) const {
  return window.design == RmaDesign::Rdma && window.flavor != Flavor::Dynamic && target != window.rank();
}

std::byte* RmaEngine::local_target(Window& window, std::uint64_t offset) {
  if (window.flavor == Flavor::Dynamic) return reinterpret_cast<std::byte*>(offset);
  return static_cast<std::byte*>(window.base) + offset;
}

std::uint32_t RmaEngine::reply_tag(Window& window) {
  const std::uint32_t tag = kTagReplyBase + window.next_reply_tag;
  window.next_reply_tag = (window.next_reply_tag + 1) % kReplyTagCycle;
  return tag;
}

void RmaEngine::link_request(RequestId* user, const std::vector<RequestId>& internal) {
  if (user == nullptr) return;
  *user = context_.start_generalized();
  if (internal.empty()) {
    context_.complete_generalized(*user, "MPI_Rput");
    return;
  }
  auto remaining = std::make_shared<std::uint32_t>(static_cast<std::uint32_t>(internal.size()));
  for (RequestId id : internal) user_requests_[id] = UserRequest{*user, remaining};
}

void RmaEngine::internal_done(RequestId internal) {
  auto it = user_requests_.find(internal);
  if (it == user_requests_.end()) return;
  if (--*it->second.remaining == 0) context_.complete_generalized(it->second.user, "MPI_Rput");
  user_requests_.erase(it);
}

std::uint64_t RmaEngine::message_inline_limit() const {
  const Config& config = context_.config();
  const std::uint64_t limit = config.packet_size - kPacketHeaderBytes;
  return config.tiny_threshold != 0 ? std::min(limit, config.tiny_threshold) : limit;
}

std::shared_ptr<std::vector<std::byte>> RmaEngine::operation_message(ControlHeader& header,
                                                                     const std::vector<Block>& blocks, const void* data,
                                                                     std::int64_t data_count,
                                                                     const DatatypePtr& data_type) {
  const std::uint64_t data_bytes = data_type ? static_cast<std::uint64_t>(data_count * data_type->size()) : 0;
  header.block_count = static_cast<std::uint32_t>(blocks.size());
  if (data_type) header.data_bytes = data_bytes;  // a get says the size of its reply itself
  const std::size_t head = sizeof(ControlHeader) + blocks.size() * sizeof(Block);
  header.data_inline = head + data_bytes <= message_inline_limit() ? 1 : 0;
  auto message = std::make_shared<std::vector<std::byte>>(head + (header.data_inline ? data_bytes : 0));
  std::memcpy(message->data(), &header, sizeof header);
  if (!blocks.empty()) std::memcpy(message->data() + sizeof header, blocks.data(), blocks.size() * sizeof(Block));
  if (header.data_inline && data_bytes > 0)
    pack(data, data_count, *data_type, 0, std::span(message->data() + head, data_bytes), "MPI_Put");
  return message;
}

std::vector<RequestId> RmaEngine::send_operation(Window& window, int target, ControlHeader header,
                                                 const std::vector<Block>& blocks, const void* data,
                                                 std::int64_t data_count, const DatatypePtr& data_type) {
  const std::shared_ptr<std::vector<std::byte>> message =
      operation_message(header, blocks, data, data_count, data_type);
  TargetState& state = window.target(target);
  const DatatypePtr& bytes = context_.datatype(BasicKind::Byte);
  std::vector<RequestId> ids;
  ids.push_back(context_.isend(message->data(), static_cast<std::int64_t>(message->size()), bytes, target,
                               kTagControl, *window.comm));
  state.requests.push_back(InFlightMessage{ids.back(), message});
  ++counters_.messages;
  if (!header.data_inline && header.data_bytes > 0 && data_type) {
    ids.push_back(context_.isend(data, data_count, data_type, target, kTagData, *window.comm));
    state.requests.push_back(InFlightMessage{ids.back(), nullptr});
  }
  ++state.unflushed_messages;
  return ids;
}

bool RmaEngine::hold_put(Window& window, int target, std::uint64_t offset, const std::vector<Block>& blocks,
                         const void* origin, std::int64_t count, const DatatypePtr& type, RequestId* request) {
  // Only in an access epoch of MPI_Win_start (whose end can ride on the put), only
  // without a request (MPI_Rput's completes when sent), only small puts to another rank.
  const std::uint64_t bytes = static_cast<std::uint64_t>(count * type->size());
  if (!window.epoch.started || request != nullptr || target == window.rank() ||
      bytes > context_.config().rma_piggyback_bytes)
    return false;
  // The data would go apart: not one message (checked before anything is packed).
  if (sizeof(ControlHeader) + blocks.size() * sizeof(Block) + bytes > message_inline_limit()) return false;
  ControlHeader header;
  header.kind = MessageKind::Put;
  header.target_offset = offset;
  window.target(target).held_put = operation_message(header, blocks, origin, count, type);
  return true;
}

void RmaEngine::send_held_put(Window& window, int target, bool ends_epoch) {
  // Off (the default), nothing is ever held: no lookup on every operation's path.
  if (context_.config().rma_piggyback_bytes == 0) return;
  TargetState& state = window.target(target);
  if (!state.held_put) return;
  std::shared_ptr<std::vector<std::byte>> message = std::move(state.held_put);
  state.held_put.reset();
  if (ends_epoch) {
    ControlHeader header;
    std::memcpy(&header, message->data(), sizeof header);
    header.op = kPutEndsEpoch;
    std::memcpy(message->data(), &header, sizeof header);
  }
  const RequestId id = context_.isend(message->data(), static_cast<std::int64_t>(message->size()),
                                      context_.datatype(BasicKind::Byte), target, kTagControl, *window.comm);
  state.requests.push_back(InFlightMessage{id, std::move(message)});
  ++counters_.messages;
  // Applied in order behind what went before; one that ends the epoch needs no flush.
  if (!ends_epoch) ++state.unflushed_messages;
}

std::uint32_t RmaEngine::post_pieces(Window& window, int target, RdmaOp::Kind kind, RdmaInFlight base,
                                     const fabric::MemoryRegion* region, std::byte* local, std::uint64_t offset,
                                     const std::vector<Block>& blocks, RequestId* request) {
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(target)];
  std::uint32_t pieces = 0;
  for (const Block& b : blocks) pieces += static_cast<std::uint32_t>((b.length + kRdmaChunk - 1) / kRdmaChunk);
  if (base.unpack) base.unpack->remaining = pieces;
  if (request != nullptr) {
    *request = context_.start_generalized();
    base.user_request = *request;
    base.user_remaining = std::make_shared<std::uint32_t>(pieces);
  }
  const std::uint32_t inline_limit = context_.max_inline_write();
  TargetState& state = window.target(target);
  std::uint64_t position = 0;
  std::uint32_t posted = 0;
  for (const Block& b : blocks) {
    for (std::uint64_t done = 0; done < static_cast<std::uint64_t>(b.length); done += kRdmaChunk) {
      const std::uint64_t n = std::min<std::uint64_t>(kRdmaChunk, static_cast<std::uint64_t>(b.length) - done);
      RdmaOp op;
      op.kind = kind;
      if (region != nullptr)
        op.local =
            region->sge(static_cast<std::size_t>(local + position - static_cast<const std::byte*>(region->addr())),
                        static_cast<std::uint32_t>(n));
      else  // an inline write: copied at post, no key needed
        op.local = fabric::Sge{reinterpret_cast<std::uint64_t>(local + position), static_cast<std::uint32_t>(n), 0};
      op.inline_data = kind == RdmaOp::Kind::Write && n <= inline_limit;
      op.remote_addr = peer.base + offset + static_cast<std::uint64_t>(b.offset) + done;
      op.rkey = peer.rkey;
      base.inline_data = op.inline_data;
      // Each piece keeps what the operation needs alive; the last one takes it over.
      op.cookie = ++posted == pieces ? new_cookie(std::move(base)) : new_cookie(base);
      ++state.rdma_in_flight;
      if (op.inline_data) ++state.rdma_inline_in_flight;
      if (kind != RdmaOp::Kind::Read) ++state.writes_unconfirmed;
      ++(kind == RdmaOp::Kind::Read ? counters_.rdma_reads : counters_.rdma_writes);
      context_.post_rdma(window.comm->world_rank(target), op);
      position += n;
    }
  }
  return pieces;
}

void RmaEngine::rdma_put(Window& window, int target, const void* origin, std::int64_t count,
                         const DatatypePtr& type, std::uint64_t offset, const std::vector<Block>& blocks,
                         RequestId* request) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(count * type->size());
  RdmaInFlight base;
  base.window = window.id;
  base.target = target;
  std::byte* source;
  // Small enough to go inline: copied at post, so no registration, and the operation is
  // complete at the origin at once (MPI_Win_complete need not wait for it).
  const std::uint32_t inline_limit = context_.max_inline_write();
  const bool all_inline = std::all_of(blocks.begin(), blocks.end(), [&](const Block& b) {
    return static_cast<std::uint64_t>(b.length) <= inline_limit;
  });
  if (is_one_run(count, *type)) {
    source = const_cast<std::byte*>(contiguous_start(origin, *type));
    if (!all_inline) base.region = context_.registration().acquire(source, bytes);
  } else {
    base.staging = std::make_shared<std::vector<std::byte>>(packed(origin, count, *type, "MPI_Put"));
    source = base.staging->data();
    base.region = context_.device().register_memory(source, bytes, fabric::Access::LocalWrite);
  }
  const fabric::MemoryRegion* region = base.region.get();
  post_pieces(window, target, RdmaOp::Kind::Write, std::move(base), region, source, offset, blocks, request);
}

void RmaEngine::rdma_get(Window& window, int target, void* origin, std::int64_t count, const DatatypePtr& type,
                         std::uint64_t offset, const std::vector<Block>& blocks, RequestId* request) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(count * type->size());
  RdmaInFlight base;
  base.window = window.id;
  base.target = target;
  std::byte* sink;
  if (is_one_run(count, *type)) {
    sink = const_cast<std::byte*>(contiguous_start(origin, *type));
    // Small, from one piece of the target: into a bounce slot, copied to `sink` when
    // the read completes (on_rdma_done); with every slot in use, as a large get.
    if (bytes <= BounceSlots::kSlotBytes && blocks.size() == 1) {
      if (!bounce_) bounce_ = std::make_unique<BounceSlots>(context_.device());
      if (const std::optional<std::uint32_t> slot = bounce_->take()) {
        base.copy_to = sink;
        base.bounce_slot = *slot;
        base.copy_bytes = static_cast<std::uint32_t>(bytes);
        post_pieces(window, target, RdmaOp::Kind::Read, std::move(base), &bounce_->region(), bounce_->data(*slot),
                    offset, blocks, request);
        return;
      }
    }
    base.region = context_.registration().acquire(sink, bytes);
  } else {
    // Read into a staging buffer, unpacked into the origin's layout when the last piece
    // arrived (post_pieces sets how many).
    base.staging = std::make_shared<std::vector<std::byte>>(bytes);
    sink = base.staging->data();
    base.region = context_.device().register_memory(sink, bytes, fabric::Access::LocalWrite);
    base.unpack = std::make_shared<RdmaInFlight::Unpack>(RdmaInFlight::Unpack{origin, count, type, 0});
  }
  const fabric::MemoryRegion* region = base.region.get();
  post_pieces(window, target, RdmaOp::Kind::Read, std::move(base), region, sink, offset, blocks, request);
}

void RmaEngine::on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) {
  RdmaInFlight entry;
  if (!rdma_.take(cookie, entry)) return;
  if (entry.copy_to != nullptr) {  // a small get, read into a bounce slot
    if (status == fabric::WcStatus::Success) {
      std::memcpy(entry.copy_to, bounce_->data(entry.bounce_slot), entry.copy_bytes);
      work_.copied(entry.copy_bytes);
    }
    bounce_->give_back(entry.bounce_slot);
  }
  for (auto& w : windows_) {
    if (w->id != entry.window) continue;
    TargetState& state = w->target(entry.target);
    --state.rdma_in_flight;
    if (entry.inline_data) --state.rdma_inline_in_flight;
    if (status != fabric::WcStatus::Success && state.error == ErrorClass::MPI_SUCCESS)
      state.error = ErrorClass::MPI_ERR_OTHER;
  }
  if (entry.unpack && --entry.unpack->remaining == 0 && status == fabric::WcStatus::Success)
    unpack(std::span<const std::byte>(*entry.staging), entry.unpack->buffer, entry.unpack->count,
           *entry.unpack->type, 0, "MPI_Get");
  if (entry.user_remaining && --*entry.user_remaining == 0)
    context_.complete_generalized(entry.user_request, "MPI_Rget");
}

// ---------------------------------------------------------------- the calls

std::optional<std::uint64_t> RmaEngine::begin_transfer(Window& window, std::int64_t origin_count,
                                                       const DatatypePtr& origin_type, int target,
                                                       std::int64_t target_disp, std::int64_t target_count,
                                                       const DatatypePtr& target_type, std::vector<Block>& blocks,
                                                       const char* where, RequestId* request) {
  check_buffer_type(origin_count, origin_type.get(), where);
  check_buffer_type(target_count, target_type.get(), where);
  if (target == kProcNull) {
    link_request(request, {});
    return std::nullopt;
  }
  check_access(window, target, where);
  send_held_put(window, target, false);  // operations to a target go in the order issued
  if (origin_count * origin_type->size() != target_count * target_type->size())
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(origin_count={}, target_count={})", where, origin_count,
                                                     target_count),
                fmt::format("the origin buffer holds {} bytes, the target layout {}",
                            origin_count * origin_type->size(), target_count * target_type->size()));
  const std::uint64_t offset = target_range(window, target, target_disp, target_count, *target_type, blocks, where);
  window.epoch.fence_had_ops = true;
  if (blocks.empty()) {  // zero bytes: nothing moves (and nothing is registered)
    link_request(request, {});
    return std::nullopt;
  }
  return offset;
}

void RmaEngine::put(Window& window, const void* origin, std::int64_t origin_count, const DatatypePtr& origin_type,
                    int target, std::int64_t target_disp, std::int64_t target_count, const DatatypePtr& target_type,
                    const char* where, RequestId* request) {
  ScratchBlocks scratch(blocks_scratch_);
  std::vector<Block>& blocks = scratch.blocks;
  const std::optional<std::uint64_t> at = begin_transfer(window, origin_count, origin_type, target, target_disp,
                                                         target_count, target_type, blocks, where, request);
  if (!at) return;
  const std::uint64_t offset = *at;
  ++counters_.puts;
  if (target == window.rank()) {
    scatter_blocks(local_target(window, offset), blocks, packed(origin, origin_count, *origin_type, where).data());
    link_request(request, {});
    return;
  }
  if (hold_put(window, target, offset, blocks, origin, origin_count, origin_type, request)) return;
  if (uses_rdma(window, target)) {
    rdma_put(window, target, origin, origin_count, origin_type, offset, blocks, request);
    return;
  }
  ControlHeader header;
  header.kind = MessageKind::Put;
  header.target_offset = offset;
  link_request(request, send_operation(window, target, header, blocks, origin, origin_count, origin_type));
}

void RmaEngine::get(Window& window, void* origin, std::int64_t origin_count, const DatatypePtr& origin_type,
                    int target, std::int64_t target_disp, std::int64_t target_count, const DatatypePtr& target_type,
                    const char* where, RequestId* request) {
  ScratchBlocks scratch(blocks_scratch_);
  std::vector<Block>& blocks = scratch.blocks;
  const std::optional<std::uint64_t> at = begin_transfer(window, origin_count, origin_type, target, target_disp,
                                                         target_count, target_type, blocks, where, request);
  if (!at) return;
  const std::uint64_t offset = *at;
  ++counters_.gets;
  if (target == window.rank()) {
    unpack(gather_blocks(local_target(window, offset), blocks), origin, origin_count, *origin_type, 0, where);
    link_request(request, {});
    return;
  }
  if (uses_rdma(window, target)) {
    rdma_get(window, target, origin, origin_count, origin_type, offset, blocks, request);
    return;
  }
  ControlHeader header;
  header.kind = MessageKind::Get;
  header.target_offset = offset;
  header.reply_tag = reply_tag(window);
  TargetState& state = window.target(target);
  std::vector<RequestId> ids{context_.irecv(origin, origin_count, origin_type, target,
                                            static_cast<int>(header.reply_tag), *window.comm, where)};
  state.requests.push_back(InFlightMessage{ids.back(), nullptr});
  // The reply's size is the origin's; the header says so for the target's check.
  header.data_bytes = static_cast<std::uint64_t>(origin_count * origin_type->size());
  auto sent = send_operation(window, target, header, blocks, nullptr, 0, nullptr);
  ids.insert(ids.end(), sent.begin(), sent.end());
  link_request(request, ids);
}

namespace {

/// The basic kind an accumulate combines: the origin's and the target's must agree
/// (MPI-3.1 §11.3.4), every element of each being that one predefined type.
BasicKind accumulate_kind(const DatatypePtr& origin_type, const DatatypePtr& target_type, Op op, const char* where) {
  const std::optional<BasicKind> target_kind = single_basic_kind(*target_type);
  if (!target_kind)
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(target_datatype)", where),
                "an accumulate's target type must consist of one predefined type");
  if (origin_type) {
    const std::optional<BasicKind> origin_kind = single_basic_kind(*origin_type);
    if (!origin_kind || *origin_kind != *target_kind)
      throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(origin_datatype)", where),
                  fmt::format("the origin's elements must be of the target's predefined type ({})",
                              Datatype::predefined(*target_kind)->get_name()));
  }
  if (op != Op::Replace && op != Op::NoOp && !is_defined(op, *target_kind))
    throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op={})", where, to_string(op)),
                fmt::format("the op is not defined on {}", Datatype::predefined(*target_kind)->get_name()));
  return *target_kind;
}

}  // namespace

void RmaEngine::accumulate(Window& window, const void* origin, std::int64_t origin_count,
                           const DatatypePtr& origin_type, int target, std::int64_t target_disp,
                           std::int64_t target_count, const DatatypePtr& target_type, Op op, const char* where,
                           RequestId* request) {
  check_buffer_type(origin_count, origin_type.get(), where);
  check_buffer_type(target_count, target_type.get(), where);
  if (op == Op::NoOp)
    throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op=MPI_NO_OP)", where),
                "MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op");
  // Nothing to combine (MPICH's badrma: zero counts or zero-size types): no element
  // type to check either.
  if (target == kProcNull || (origin_count * origin_type->size() == 0 && target_count * target_type->size() == 0)) {
    if (target != kProcNull) check_access(window, target, where);
    link_request(request, {});
    return;
  }
  const BasicKind basic = accumulate_kind(origin_type, target_type, op, where);
  check_access(window, target, where);
  send_held_put(window, target, false);
  if (origin_count * origin_type->size() != target_count * target_type->size())
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(origin_count={}, target_count={})", where, origin_count,
                                                     target_count),
                "the origin and target layouts hold different amounts of data");
  std::vector<Block> blocks;
  const std::uint64_t offset = target_range(window, target, target_disp, target_count, *target_type, blocks, where);
  window.epoch.fence_had_ops = true;
  ++counters_.accumulates;
  if (blocks.empty()) {
    link_request(request, {});
    return;
  }
  if (by_hca_atomics(window, basic)) {  // the target's own included (accumulate_atomic.cpp)
    const std::vector<std::byte> data = packed(origin, origin_count, *origin_type, where);
    hca_accumulate(window, target, offset, blocks, data.data(), op, basic, where);
    link_request(request, {});
    return;
  }
  if (target == window.rank()) {
    const std::vector<std::byte> data = packed(origin, origin_count, *origin_type, where);
    accumulate_into(local_target(window, offset), blocks, data.data(), data.size(), op, basic);
    link_request(request, {});
    return;
  }
  ControlHeader header;
  header.kind = MessageKind::Accumulate;
  header.op = static_cast<std::uint8_t>(op);
  header.basic_kind = static_cast<std::uint8_t>(basic);
  header.target_offset = offset;
  link_request(request, send_operation(window, target, header, blocks, origin, origin_count, origin_type));
}

void RmaEngine::get_accumulate(Window& window, const void* origin, std::int64_t origin_count,
                               const DatatypePtr& origin_type, void* result, std::int64_t result_count,
                               const DatatypePtr& result_type, int target, std::int64_t target_disp,
                               std::int64_t target_count, const DatatypePtr& target_type, Op op, const char* where,
                               RequestId* request) {
  if (op != Op::NoOp) check_buffer_type(origin_count, origin_type.get(), where);
  check_buffer_type(result_count, result_type.get(), where);
  check_buffer_type(target_count, target_type.get(), where);
  if (target == kProcNull || (target_count * target_type->size() == 0 && result_count * result_type->size() == 0 &&
                              (op == Op::NoOp || origin_count * origin_type->size() == 0))) {
    if (target != kProcNull) check_access(window, target, where);
    link_request(request, {});
    return;
  }
  const BasicKind basic = accumulate_kind(op == Op::NoOp ? nullptr : origin_type, target_type, op, where);
  if (single_basic_kind(*result_type) != basic && result_count * result_type->size() > 0)
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(result_datatype)", where),
                "the result's elements must be of the target's predefined type");
  check_access(window, target, where);
  send_held_put(window, target, false);
  const std::int64_t target_bytes = target_count * target_type->size();
  if ((op != Op::NoOp && origin_count * origin_type->size() != target_bytes) ||
      result_count * result_type->size() != target_bytes)
    throw Error(ErrorClass::MPI_ERR_ARG,
                fmt::format("{}(origin_count={}, result_count={}, target_count={})", where, origin_count,
                            result_count, target_count),
                "the origin, result and target layouts hold different amounts of data");
  std::vector<Block> blocks;
  const std::uint64_t offset = target_range(window, target, target_disp, target_count, *target_type, blocks, where);
  window.epoch.fence_had_ops = true;
  ++counters_.accumulates;
  if (blocks.empty()) {
    link_request(request, {});
    return;
  }
  if (by_hca_atomics(window, basic)) {  // the target's own included (accumulate_atomic.cpp)
    std::vector<std::byte> data;
    if (op != Op::NoOp) data = packed(origin, origin_count, *origin_type, where);
    const std::vector<std::byte> old = hca_accumulate(window, target, offset, blocks, data.data(), op, basic, where);
    if (!old.empty()) unpack(old, result, result_count, *result_type, 0, where);
    link_request(request, {});
    return;
  }
  if (target == window.rank()) {
    std::byte* base = local_target(window, offset);
    const std::vector<std::byte> old = gather_blocks(base, blocks);
    if (op != Op::NoOp) {
      const std::vector<std::byte> data = packed(origin, origin_count, *origin_type, where);
      accumulate_into(base, blocks, data.data(), data.size(), op, basic);
    }
    if (!old.empty()) unpack(old, result, result_count, *result_type, 0, where);
    link_request(request, {});
    return;
  }
  ControlHeader header;
  header.kind = MessageKind::GetAccumulate;
  header.op = static_cast<std::uint8_t>(op);
  header.basic_kind = static_cast<std::uint8_t>(basic);
  header.target_offset = offset;
  header.reply_tag = reply_tag(window);
  TargetState& state = window.target(target);
  std::vector<RequestId> ids{context_.irecv(result, result_count, result_type, target,
                                            static_cast<int>(header.reply_tag), *window.comm, where)};
  state.requests.push_back(InFlightMessage{ids.back(), nullptr});
  auto sent = op == Op::NoOp ? send_operation(window, target, header, blocks, nullptr, 0, nullptr)
                             : send_operation(window, target, header, blocks, origin, origin_count, origin_type);
  ids.insert(ids.end(), sent.begin(), sent.end());
  link_request(request, ids);
}

void RmaEngine::compare_and_swap(Window& window, const void* origin, const void* compare, void* result,
                                 const DatatypePtr& type, int target, std::int64_t target_disp, const char* where) {
  check_buffer_type(1, type.get(), where);
  const std::optional<BasicKind> kind = type->basic_kind();
  if (!kind || !(is_defined(Op::Band, *kind) || *kind == BasicKind::CBool))
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype={})", where, type->get_name()),
                "MPI_Compare_and_swap takes one element of a predefined C integer, logical or byte type");
  if (origin == nullptr || compare == nullptr || result == nullptr)
    throw Error(ErrorClass::MPI_ERR_BUFFER, where, "the origin, compare and result buffers must not be NULL");
  if (target == kProcNull) return;
  check_access(window, target, where);
  send_held_put(window, target, false);
  std::vector<Block> blocks;
  const std::uint64_t offset = target_range(window, target, target_disp, 1, *type, blocks, where);
  window.epoch.fence_had_ops = true;
  ++counters_.accumulates;
  const auto size = static_cast<std::size_t>(type->size());
  if (by_hca_atomics(window, *kind)) {  // the target's own included (accumulate_atomic.cpp)
    std::uint64_t swap = 0, expected = 0;
    std::memcpy(&swap, origin, size);
    std::memcpy(&expected, compare, size);
    const std::uint64_t old = hca_compare_and_swap(window, target, offset, expected, swap, where);
    std::memcpy(result, &old, size);
    return;
  }
  if (target == window.rank()) {
    std::byte* at = local_target(window, offset);
    std::memcpy(result, at, size);
    if (std::memcmp(at, compare, size) == 0) std::memcpy(at, origin, size);
    return;
  }
  ControlHeader header;
  header.kind = MessageKind::CompareSwap;
  header.basic_kind = static_cast<std::uint8_t>(*kind);
  header.target_offset = offset;
  header.reply_tag = reply_tag(window);
  TargetState& state = window.target(target);
  state.requests.push_back(InFlightMessage{
      context_.irecv(result, 1, type, target, static_cast<int>(header.reply_tag), *window.comm, where), nullptr});
  std::vector<std::byte> data(2 * size);
  std::memcpy(data.data(), origin, size);
  std::memcpy(data.data() + size, compare, size);
  send_operation(window, target, header, blocks, data.data(), static_cast<std::int64_t>(data.size()),
                 context_.datatype(BasicKind::Byte));
}

}  // namespace twinfab::mpi::rma
