// twinfab MPI core: message matching, the posted-receive queue and the
// unexpected-message queue of one rank.
//
// MPI matches a message to a receive on (context id, source, tag); a receive may use
// kAnySource and/or kAnyTag. Two rules shape the design:
//  - non-overtaking: messages from one sender on one communicator match receives in
//    the order they were sent, and receives match in the order they were posted;
//  - the common case (no wildcard) must not pay for the rare one.
//
// Design (the MPICH/Open MPI idea: per-source buckets plus an order stamp):
//
// PostedQueue: per context id, a FIFO bucket per source for receives naming their
// source, and one FIFO for kAnySource receives. Every posted receive gets a sequence
// number from a per-queue counter. A message (concrete source and tag) can only match
// a receive in its source's bucket or in the wildcard FIFO; the earliest matching
// receive overall is the one with the smaller sequence number among the first match
// of each. So a message with no wildcard receives around costs O(1) (the bucket's
// head) and tag mismatches cost a scan of that source's receives only.
//
// UnexpectedQueue: per context id, one list of all messages in arrival order, and per
// source an index (list of positions in the arrival list). A receive naming its
// source scans only that source's index; a kAnySource receive scans the arrival list.
// Removal is O(1) from the arrival list; from the source index it is a scan that
// stops at the first entry, since the message removed is always that source's first
// one with a matching tag.
//
// What the queues assume of their caller: messages of one (sender, context) are
// pushed/matched in the order they were sent (the channel's in-order delivery and
// the protocol's sequence numbers provide that); incoming messages have a concrete
// source >= 0 and tag >= 0. Empty per-source buckets are dropped, so memory is
// proportional to what is queued, not to the number of peers (16K simulated ranks
// share one process) - except the last bucket that became empty, and a few list
// nodes kept for reuse: a receive posted and matched per message (a ping-pong, a
// ring) then costs no allocation.
//
// PostedQueue remembers the context and the source bucket it used last: a rank that
// receives from one peer over and over (a ring, a ping-pong) then skips both hash
// lookups, which at thousands of simulated ranks are cache misses on every message.
//
// Pure data structures: no I/O, threads, clocks or globals. Each rank owns its own
// queues; they are not thread-safe (the rank's progress engine serializes access).
// T is what an entry carries (a request pointer, a packet descriptor); it must be
// movable.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace twinfab::mpi {

/// The wildcards, with MPICH's values (the C API maps MPI_ANY_SOURCE/MPI_ANY_TAG).
inline constexpr int kAnySource = -2;
inline constexpr int kAnyTag = -1;

/// Identifies a communicator's matching space (a communicator has separate context
/// ids for point-to-point and for collective traffic).
using ContextId = std::uint32_t;

/// A message's envelope (concrete source and tag), or what a receive asks for
/// (source may be kAnySource, tag may be kAnyTag).
struct Envelope {
  ContextId context_id = 0;
  int source = 0;
  int tag = 0;
  bool operator==(const Envelope&) const = default;
};

/// Whether a receive asking for `wanted` accepts a message with envelope `message`.
inline bool matches(const Envelope& wanted, const Envelope& message) noexcept {
  return wanted.context_id == message.context_id &&
         (wanted.source == kAnySource || wanted.source == message.source) &&
         (wanted.tag == kAnyTag || wanted.tag == message.tag);
}

/// "context 3, source 1, tag MPI_ANY_TAG": for error messages and traces.
std::string to_string(const Envelope& envelope);

/// Receives posted before their message arrived. See the file comment for the design.
template <class T>
class PostedQueue {
 public:
  /// Identifies one posted receive, for cancel().
  struct Handle {
    ContextId context_id;
    int source;
    std::uint64_t sequence;
  };

  PostedQueue() = default;
  // The lookup caches point into contexts_.
  PostedQueue(const PostedQueue&) = delete;
  PostedQueue& operator=(const PostedQueue&) = delete;

  /// Queues a receive asking for `wanted` (wildcards allowed) behind all earlier ones.
  Handle post(const Envelope& wanted, T value) {
    Context& context = context_for(wanted.context_id);
    const std::uint64_t sequence = next_sequence_++;
    List& list = wanted.source == kAnySource ? context.any_source : bucket_for(context, wanted.source);
    if (wanted.source != kAnySource && context.empty_source == wanted.source) context.empty_source = kNoSource;
    if (spare_.empty()) {
      list.push_back(Entry{sequence, wanted.tag, std::move(value)});
    } else {
      list.splice(list.end(), spare_, spare_.begin());
      list.back() = Entry{sequence, wanted.tag, std::move(value)};
    }
    ++size_;
    return Handle{wanted.context_id, wanted.source, sequence};
  }

  /// For an arriving message (concrete source and tag): removes and returns the
  /// earliest-posted receive that accepts it, or nothing (the message is unexpected).
  std::optional<T> match(const Envelope& message) {
    Context* found = find_context(message.context_id);
    if (found == nullptr) return std::nullopt;
    Context& context = *found;
    List* specific = find_bucket(context, message.source);
    auto a = specific ? first_with_tag(*specific, message.tag) : typename List::iterator{};
    auto b = first_with_tag(context.any_source, message.tag);
    const bool have_a = specific && a != specific->end();
    const bool have_b = b != context.any_source.end();
    if (!have_a && !have_b) return std::nullopt;
    if (have_a && (!have_b || a->sequence < b->sequence)) {
      T value = std::move(a->value);
      recycle(*specific, a);
      if (specific->empty()) emptied(context, message.source);
      --size_;
      return value;
    }
    T value = std::move(b->value);
    recycle(context.any_source, b);
    --size_;
    return value;
  }

  /// Removes a still-posted receive (MPI_Cancel) and returns its value; nothing when
  /// it already matched or was cancelled.
  std::optional<T> cancel(const Handle& handle) {
    Context* found = find_context(handle.context_id);
    if (found == nullptr) return std::nullopt;
    Context& context = *found;
    List* list = &context.any_source;
    if (handle.source != kAnySource) {
      list = find_bucket(context, handle.source);
      if (list == nullptr) return std::nullopt;
    }
    auto it = std::find_if(list->begin(), list->end(),
                           [&](const Entry& e) { return e.sequence == handle.sequence; });
    if (it == list->end()) return std::nullopt;
    T value = std::move(it->value);
    recycle(*list, it);
    if (handle.source != kAnySource && list->empty()) emptied(context, handle.source);
    --size_;
    return value;
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

 private:
  struct Entry {
    std::uint64_t sequence;  // posting order across both lists of a context
    int tag;                 // may be kAnyTag
    T value;
  };
  using List = std::list<Entry>;
  static constexpr int kNoSource = -1;
  /// List nodes kept for reuse, at most this many.
  static constexpr std::size_t kMaxSpare = 16;
  struct Context {
    std::unordered_map<int, List> by_source;
    List any_source;
    int empty_source = kNoSource;  ///< the one empty bucket kept, if any
    int cached_source = kNoSource;  ///< the bucket used last (nodes of by_source do not move)
    List* cached_bucket = nullptr;
  };

  /// The context `id`, or null if nothing was ever posted on it.
  Context* find_context(ContextId id) {
    if (cached_context_ == nullptr || cached_context_id_ != id) {
      auto it = contexts_.find(id);
      if (it == contexts_.end()) return nullptr;
      cached_context_id_ = id;
      cached_context_ = &it->second;  // contexts are never erased: the pointer stays valid
    }
    return cached_context_;
  }
  /// The context `id`, created if needed.
  Context& context_for(ContextId id) {
    if (Context* context = find_context(id)) return *context;
    cached_context_id_ = id;
    cached_context_ = &contexts_[id];
    return *cached_context_;
  }
  /// `source`'s bucket in `context`, or null.
  static List* find_bucket(Context& context, int source) {
    if (context.cached_bucket == nullptr || context.cached_source != source) {
      auto it = context.by_source.find(source);
      if (it == context.by_source.end()) return nullptr;
      context.cached_source = source;
      context.cached_bucket = &it->second;  // forgotten by emptied() when it erases it
    }
    return context.cached_bucket;
  }
  /// `source`'s bucket in `context`, created if needed.
  static List& bucket_for(Context& context, int source) {
    if (List* bucket = find_bucket(context, source)) return *bucket;
    context.cached_source = source;
    context.cached_bucket = &context.by_source[source];
    return *context.cached_bucket;
  }

  /// Takes `it` out of `list`, keeping its node for a later post().
  void recycle(List& list, typename List::iterator it) {
    if (spare_.size() < kMaxSpare) {
      spare_.splice(spare_.end(), list, it);
    } else {
      list.erase(it);
    }
  }
  /// `source`'s bucket has just become empty: it is kept (the next receive from that
  /// source reuses it) and the bucket kept before, if still empty, goes.
  static void emptied(Context& context, int source) {
    if (context.empty_source != kNoSource && context.empty_source != source) {
      auto old = context.by_source.find(context.empty_source);
      if (old != context.by_source.end() && old->second.empty()) {
        if (context.cached_source == context.empty_source) context.cached_bucket = nullptr;
        context.by_source.erase(old);
      }
    }
    context.empty_source = source;
  }

  static typename List::iterator first_with_tag(List& list, int tag) {
    return std::find_if(list.begin(), list.end(),
                        [tag](const Entry& e) { return e.tag == kAnyTag || e.tag == tag; });
  }

  std::unordered_map<ContextId, Context> contexts_;
  ContextId cached_context_id_ = 0;
  Context* cached_context_ = nullptr;  ///< the context used last, or null
  List spare_;
  std::uint64_t next_sequence_ = 0;
  std::size_t size_ = 0;
};

/// Messages (or their headers) that arrived before a matching receive was posted,
/// in arrival order (seed 000 §III.D: the unexpected queue is a FIFO). See the file
/// comment for the design.
template <class T>
class UnexpectedQueue {
 public:
  struct Message {
    Envelope envelope;
    T value;
  };

  /// Queues an arriving message (concrete source >= 0 and tag >= 0).
  void push(const Envelope& message, T value) {
    Context& context = contexts_[message.context_id];
    context.arrival.push_back(Message{message, std::move(value)});
    context.by_source[message.source].push_back(std::prev(context.arrival.end()));
    ++size_;
  }

  /// Removes and returns the earliest-arrived message a receive asking for `wanted`
  /// (wildcards allowed) accepts, or nothing (the receive is posted instead).
  std::optional<Message> match(const Envelope& wanted) {
    if (size_ == 0) return std::nullopt;  // the common case of a progress hook's poll: no lookup
    auto context_it = contexts_.find(wanted.context_id);
    if (context_it == contexts_.end()) return std::nullopt;
    Context& context = context_it->second;
    auto found = find(context, wanted);
    if (!found) return std::nullopt;
    auto arrival_it = *found;
    auto bucket_it = context.by_source.find(arrival_it->envelope.source);
    Index& index = bucket_it->second;
    index.erase(std::find(index.begin(), index.end(), arrival_it));
    if (index.empty()) context.by_source.erase(bucket_it);
    Message message = std::move(*arrival_it);
    context.arrival.erase(arrival_it);
    --size_;
    return message;
  }

  /// The message match() would return, left in the queue (MPI_Probe/MPI_Iprobe), or
  /// null. The pointer stays valid until that message is removed.
  const Message* probe(const Envelope& wanted) const {
    if (size_ == 0) return nullptr;
    auto context_it = contexts_.find(wanted.context_id);
    if (context_it == contexts_.end()) return nullptr;
    // find() does not modify; the const_cast only lets it share the iterator types.
    auto found = find(const_cast<Context&>(context_it->second), wanted);
    return found ? &**found : nullptr;
  }
  Message* probe(const Envelope& wanted) {
    return const_cast<Message*>(std::as_const(*this).probe(wanted));
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

 private:
  using Arrival = std::list<Message>;
  using Index = std::list<typename Arrival::iterator>;
  struct Context {
    Arrival arrival;                          // every message, arrival order
    std::unordered_map<int, Index> by_source;  // per source, arrival order
  };

  static bool tag_ok(int wanted, int tag) noexcept { return wanted == kAnyTag || wanted == tag; }

  static std::optional<typename Arrival::iterator> find(Context& context, const Envelope& wanted) {
    if (wanted.source == kAnySource) {
      auto it = std::find_if(context.arrival.begin(), context.arrival.end(),
                             [&](const Message& m) { return tag_ok(wanted.tag, m.envelope.tag); });
      if (it == context.arrival.end()) return std::nullopt;
      return it;
    }
    auto bucket_it = context.by_source.find(wanted.source);
    if (bucket_it == context.by_source.end()) return std::nullopt;
    for (auto arrival_it : bucket_it->second) {
      if (tag_ok(wanted.tag, arrival_it->envelope.tag)) return arrival_it;
    }
    return std::nullopt;
  }

  std::unordered_map<ContextId, Context> contexts_;
  std::size_t size_ = 0;
};

}  // namespace twinfab::mpi
