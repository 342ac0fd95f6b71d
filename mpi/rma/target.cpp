// twinfab MPI one-sided: the target side, run by the rank's progress engine. It takes
// the control messages that arrived for each window in arrival order, receives the
// data sent apart, applies operations in order (MPI's default accumulate ordering per
// origin follows), answers flush and lock requests, and sends replies.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

namespace {

constexpr const char* kTargetWhere = "MPI one-sided (target side)";

struct ParsedHeader {
  ControlHeader header;
  std::vector<Block> blocks;
  std::span<const std::byte> inline_data;
};

ParsedHeader read_header(const std::vector<std::byte>& message) {
  ParsedHeader p;
  if (message.size() < sizeof(ControlHeader))
    throw Error(ErrorClass::MPI_ERR_INTERN, kTargetWhere, fmt::format("a control message of {} bytes", message.size()));
  std::memcpy(&p.header, message.data(), sizeof(ControlHeader));
  const std::size_t blocks_bytes = std::size_t{p.header.block_count} * sizeof(Block);
  if (message.size() < sizeof(ControlHeader) + blocks_bytes)
    throw Error(ErrorClass::MPI_ERR_INTERN, kTargetWhere, "a control message shorter than its blocks");
  p.blocks.resize(p.header.block_count);
  if (blocks_bytes > 0) std::memcpy(p.blocks.data(), message.data() + sizeof(ControlHeader), blocks_bytes);
  p.inline_data = std::span(message).subspan(sizeof(ControlHeader) + blocks_bytes);
  return p;
}

/// The bytes the blocks span: [low, high) relative to their origin.
std::pair<std::int64_t, std::int64_t> extent_of(const std::vector<Block>& blocks) {
  if (blocks.empty()) return {0, 0};
  std::int64_t low = blocks.front().offset, high = low;
  for (const Block& b : blocks) {
    low = std::min(low, b.offset);
    high = std::max(high, b.offset + b.length);
  }
  return {low, high};
}

}  // namespace

std::size_t RmaEngine::progress(Context&) {
  std::size_t events = 0;
  // By index: serving never creates or frees windows, but stay safe against it.
  for (std::size_t i = 0; i < windows_.size(); ++i) events += serve(*windows_[i]);
  return events;
}

std::size_t RmaEngine::serve(Window& window) {
  std::size_t events = 0;
  for (;;) {
    // One control message at a time is taken until it is parsed: parsing posts the
    // receive of data sent apart, and those must be posted in arrival order.
    if (!window.incoming.empty() && !window.incoming.back().parsed) {
      IncomingOperation& last = window.incoming.back();
      if (!context_.is_done(last.header_request)) break;
      parse(window, last);
      ++events;
      continue;
    }
    MessageStatus status;
    std::optional<MessageId> message = context_.take_message(kAnySource, kTagControl, *window.comm, &status);
    if (!message) break;
    IncomingOperation op;
    op.source = status.source;
    op.header.resize(static_cast<std::size_t>(status.count_bytes));
    op.header_request = context_.imrecv(op.header.data(), status.count_bytes, context_.datatype(BasicKind::Byte),
                                        *message, kTargetWhere);
    window.incoming.push_back(std::move(op));
    ++events;
  }
  while (!window.incoming.empty() && window.incoming.front().parsed) {
    if (!apply(window, window.incoming.front())) break;
    window.incoming.pop_front();
    ++events;
  }
  return events + reap(window);
}

void RmaEngine::parse(Window& window, IncomingOperation& op) {
  context_.test(op.header_request);
  op.parsed = true;
  const ParsedHeader p = read_header(op.header);
  const ControlHeader& h = p.header;
  if (h.data_inline || h.data_bytes == 0) return;
  if (h.kind != MessageKind::Put && h.kind != MessageKind::Accumulate && h.kind != MessageKind::GetAccumulate &&
      h.kind != MessageKind::CompareSwap)
    return;
  const DatatypePtr& bytes = context_.datatype(BasicKind::Byte);
  const auto [low, high] = extent_of(p.blocks);
  bool valid = true;
  if (window.flavor == Flavor::Dynamic) {
    valid = window.attached_covers(h.target_offset + static_cast<std::uint64_t>(low),
                                   h.target_offset + static_cast<std::uint64_t>(high));
  }
  if (h.kind == MessageKind::Put && valid) {
    // Straight into the window with the target layout: a large put lands by the
    // rendezvous protocol's RDMA, without a copy.
    std::vector<std::int64_t> lengths, displacements;
    for (const Block& b : p.blocks) {
      lengths.push_back(b.length);
      displacements.push_back(b.offset);
    }
    op.data_type = Datatype::hindexed(lengths, displacements, bytes);
    op.data_type->commit();
    op.data_request =
        context_.irecv(local_target(window, h.target_offset), 1, op.data_type, op.source, kTagData, *window.comm,
                       kTargetWhere);
    return;
  }
  op.data.resize(h.data_bytes);
  op.data_request = context_.irecv(op.data.data(), static_cast<std::int64_t>(h.data_bytes), bytes, op.source,
                                   kTagData, *window.comm, kTargetWhere);
}

bool RmaEngine::apply(Window& window, IncomingOperation& op) {
  if (op.data_request != kRequestNull) {
    if (!context_.is_done(op.data_request)) return false;
    context_.test(op.data_request);
  }
  const ParsedHeader p = read_header(op.header);
  const ControlHeader& h = p.header;
  const int origin = op.source;
  // Where the operation's data is: inline, or received apart (a put's is in place).
  const std::span<const std::byte> data =
      h.data_inline ? p.inline_data : std::span<const std::byte>(op.data.data(), op.data.size());
  bool valid = true;
  if (window.flavor == Flavor::Dynamic && !p.blocks.empty()) {
    const auto [low, high] = extent_of(p.blocks);
    valid = window.attached_covers(h.target_offset + static_cast<std::uint64_t>(low),
                                   h.target_offset + static_cast<std::uint64_t>(high));
    if (!valid && (h.kind == MessageKind::Put || h.kind == MessageKind::Get || h.kind == MessageKind::Accumulate ||
                   h.kind == MessageKind::GetAccumulate || h.kind == MessageKind::CompareSwap))
      window.origin_errors.emplace(origin, ErrorClass::MPI_ERR_RMA_RANGE);
  }
  std::byte* base = valid ? local_target(window, h.target_offset) : nullptr;
  switch (h.kind) {
    case MessageKind::Put:
      if (valid && h.data_inline) scatter_blocks(base, p.blocks, data.data());
      ++counters_.operations_applied;
      if (h.op == kPutEndsEpoch) ++window.completes_received[origin];  // as a Completed behind it
      break;
    case MessageKind::Get:
      // A copy of the window's data as it is now, not a send straight out of the
      // window: a reply long enough for a rendezvous would read the window only once
      // the origin answers, and the operations applied behind this get (a Completed
      // that ends the target's MPI_Win_wait, an unlock that lets another origin's put
      // in) would let the window change first. MPICH's rma/at_complete over the hybrid
      // channel found it (a get returned what the target wrote after MPI_Win_wait);
      // over RC the put's own rendezvous behind the get had hidden it.
      reply(window, origin, h.reply_tag,
            valid ? gather_blocks(base, p.blocks) : std::vector<std::byte>(h.data_bytes));
      ++counters_.operations_applied;
      break;
    case MessageKind::Accumulate:
      if (valid)
        accumulate_into(base, p.blocks, data.data(), data.size(), static_cast<Op>(h.op),
                        static_cast<BasicKind>(h.basic_kind));
      ++counters_.operations_applied;
      break;
    case MessageKind::GetAccumulate: {
      std::vector<std::byte> old;
      if (valid) {
        old = gather_blocks(base, p.blocks);
        if (static_cast<Op>(h.op) != Op::NoOp)
          accumulate_into(base, p.blocks, data.data(), data.size(), static_cast<Op>(h.op),
                          static_cast<BasicKind>(h.basic_kind));
      } else {
        std::uint64_t total = 0;
        for (const Block& b : p.blocks) total += static_cast<std::uint64_t>(b.length);
        old.resize(total);
      }
      reply(window, origin, h.reply_tag, std::move(old));
      ++counters_.operations_applied;
      break;
    }
    case MessageKind::CompareSwap: {
      const std::size_t size = data.size() / 2;
      std::vector<std::byte> old(size);
      if (valid) {
        std::memcpy(old.data(), base, size);
        if (std::memcmp(base, data.data() + size, size) == 0) std::memcpy(base, data.data(), size);
      }
      reply(window, origin, h.reply_tag, std::move(old));
      ++counters_.operations_applied;
      break;
    }
    case MessageKind::FlushRequest:
      send_ack(window, origin, MessageKind::FlushAck, h.sequence);
      break;
    case MessageKind::FlushAck:
    case MessageKind::UnlockAck: {
      TargetState& state = window.target(origin);
      if (h.kind == MessageKind::FlushAck)
        state.flushes_acked = std::max(state.flushes_acked, h.sequence);
      else
        state.unlocks_acked = std::max(state.unlocks_acked, h.sequence);
      if (h.error != 0 && state.error == ErrorClass::MPI_SUCCESS) state.error = static_cast<ErrorClass>(h.error);
      break;
    }
    case MessageKind::LockRequest:
      handle_lock_request(window, origin, static_cast<LockType>(h.op));
      break;
    case MessageKind::LockGranted:
      window.target(origin).lock = TargetState::Lock::Held;
      break;
    case MessageKind::Posted:
      ++window.posts_received[origin];
      break;
    case MessageKind::Completed:
      ++window.completes_received[origin];
      break;
    case MessageKind::Unlock:
      release_lock(window, origin);
      send_ack(window, origin, MessageKind::UnlockAck, h.sequence);
      break;
    default:
      throw Error(ErrorClass::MPI_ERR_INTERN, kTargetWhere,
                  fmt::format("unknown control message kind {}", static_cast<int>(h.kind)));
  }
  return true;
}

void RmaEngine::reply(Window& window, int origin, std::uint32_t tag, std::vector<std::byte> data) {
  OutgoingReply r;
  r.data = std::move(data);
  r.request = context_.isend(r.data.data(), static_cast<std::int64_t>(r.data.size()),
                             context_.datatype(BasicKind::Byte), origin, static_cast<int>(tag), *window.comm,
                             SendMode::Standard, kTargetWhere);
  window.replies.push_back(std::move(r));
}

void RmaEngine::send_ack(Window& window, int origin, MessageKind kind, std::uint64_t sequence) {
  ControlHeader h;
  h.kind = kind;
  h.sequence = sequence;
  auto it = window.origin_errors.find(origin);
  if (it != window.origin_errors.end()) {
    h.error = static_cast<std::int32_t>(it->second);
    window.origin_errors.erase(it);
  }
  std::vector<std::byte> bytes(sizeof h);
  std::memcpy(bytes.data(), &h, sizeof h);
  reply(window, origin, kTagControl, std::move(bytes));
  ++counters_.messages;
}

void RmaEngine::send_control(Window& window, int target, const ControlHeader& header, bool tracked) {
  auto bytes = std::make_shared<std::vector<std::byte>>(sizeof header);
  std::memcpy(bytes->data(), &header, sizeof header);
  const RequestId id = context_.isend(bytes->data(), static_cast<std::int64_t>(bytes->size()),
                                      context_.datatype(BasicKind::Byte), target, kTagControl, *window.comm);
  ++counters_.messages;
  if (tracked) {
    window.target(target).requests.push_back(InFlightMessage{id, bytes});
  } else {
    OutgoingReply r;
    r.request = id;
    r.data = std::move(*bytes);  // the send reads bytes->data(): keep that storage
    // Moving a vector keeps its heap buffer, so the pointer handed to isend stays valid.
    window.replies.push_back(std::move(r));
  }
}

// ---------------------------------------------------------------- progress lock design

void RmaEngine::handle_lock_request(Window& window, int origin, LockType type) {
  window.waiting_locks.push_back(WaitingLock{origin, type});
  grant_waiting(window);
}

void RmaEngine::grant_waiting(Window& window) {
  // First come, first served: a waiting exclusive request holds back later shared ones.
  while (!window.waiting_locks.empty()) {
    const WaitingLock next = window.waiting_locks.front();
    const bool grantable = next.type == LockType::Exclusive ? !window.exclusive_held && window.shared_holders == 0
                                                            : !window.exclusive_held;
    if (!grantable) return;
    window.waiting_locks.pop_front();
    if (next.type == LockType::Exclusive) {
      window.exclusive_held = true;
      window.exclusive_holder = next.origin;
    } else {
      ++window.shared_holders;
    }
    if (next.origin == window.rank()) {
      window.target(next.origin).lock = TargetState::Lock::Held;
    } else {
      ControlHeader h;
      h.kind = MessageKind::LockGranted;
      send_control(window, next.origin, h, false);
    }
  }
}

void RmaEngine::release_lock(Window& window, int origin) {
  if (window.exclusive_held && window.exclusive_holder == origin) {
    window.exclusive_held = false;
    window.exclusive_holder = -1;
  } else if (window.shared_holders > 0) {
    --window.shared_holders;
  }
  grant_waiting(window);
}

// ---------------------------------------------------------------- reaping

std::size_t RmaEngine::reap_target(TargetState& state, bool wait) {
  // Oldest first, from the front. Messages to one target leave in order, so without
  // `wait` the oldest not done ends the pass: scanning every request on every progress
  // pass (and erasing from the middle of a vector) was quadratic when thousands waited
  // behind a slow channel (MPICH's rma/manyget over UD took 173 s instead of seconds).
  // A wait runs progress, whose hooks may reap the same queue: the front is read again
  // after it.
  std::size_t released = 0;
  while (!state.requests.empty()) {
    const RequestId id = state.requests.front().request;
    RequestId handle = id;  // wait and test release it
    if (wait) {
      context_.wait(handle);
    } else if (context_.is_done(handle)) {
      context_.test(handle);
    } else {
      break;
    }
    if (state.requests.empty() || state.requests.front().request != id) continue;  // reaped meanwhile
    internal_done(id);
    state.requests.pop_front();
    ++released;
  }
  return released;
}

std::size_t RmaEngine::reap(Window& window) {
  std::size_t events = 0;
  // Oldest first, up to the first not done (see reap_target): replies complete in about
  // the order they were sent, and a later pass takes the rest.
  while (!window.replies.empty() && context_.is_done(window.replies.front().request)) {
    RequestId handle = window.replies.front().request;
    context_.test(handle);
    window.replies.pop_front();
    ++events;
  }
  for (auto& [rank, state] : window.targets)
    if (!state.requests.empty()) events += reap_target(state, false);
  return events;
}

void RmaEngine::accumulate_into(std::byte* base, const std::vector<Block>& blocks, const std::byte* data,
                                std::uint64_t bytes, Op op, BasicKind basic) {
  if (op == Op::NoOp) return;
  const DatatypePtr element_type = Datatype::predefined(basic);
  const auto packed_element = static_cast<std::uint64_t>(element_type->size());
  if (!element_type->is_contiguous()) {
    // A pair type with padding (MPI_DOUBLE_INT, ...): its packed form (the stream and
    // the blocks) leaves the padding out, the op works on the C layout. Unpack both
    // operands, combine, pack the result back.
    const std::uint64_t n = bytes / packed_element;
    std::vector<std::byte> target_packed = gather_blocks(base, blocks);
    const auto extent = static_cast<std::size_t>(element_type->extent());
    std::vector<std::byte> in(n * extent), inout(n * extent);
    unpack(std::span(data, n * packed_element), in.data(), static_cast<std::int64_t>(n), *element_type, 0);
    unpack(std::span(target_packed.data(), n * packed_element), inout.data(), static_cast<std::int64_t>(n),
           *element_type, 0);
    mpi::apply(op, basic, in.data(), inout.data(), n);
    pack(inout.data(), static_cast<std::int64_t>(n), *element_type, 0, target_packed);
    scatter_blocks(base, blocks, target_packed.data());
    return;
  }
  std::uint64_t position = 0;
  for (const Block& b : blocks) {
    const auto length = static_cast<std::uint64_t>(b.length);
    if (position + length > bytes) break;
    if (op == Op::Replace)
      std::memcpy(base + b.offset, data + position, length);
    else
      // The blocks hold whole elements: MPI's type rules keep a basic element in one
      // block of a layout made of that basic type.
      mpi::apply(op, basic, data + position, base + b.offset, length / packed_element);
    position += length;
  }
}

}  // namespace twinfab::mpi::rma
