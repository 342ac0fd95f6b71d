// Internal: a device context's asynchronous events (ibv_get_async_event).
//
// The kernel reports what happens outside any work request on the context's async_fd:
// a CQ overrun (IBV_EVENT_CQ_ERR), a QP that hit a fatal error, a port going down, a
// fatal device error. Nothing here blocks: the descriptor is made non-blocking and the
// events that arrived are read when someone asks (CompletionQueue::overrun()), so no
// thread is needed. Every event read is acknowledged at once, as ibv_destroy_cq/qp
// wait for the acknowledgement of the events they were named in.
#pragma once

#include <infiniband/verbs.h>

#include <mutex>
#include <string>

namespace twinfab::verbs {

class AsyncEvents {
 public:
  /// Makes `context`'s async_fd non-blocking. `device_name` is for messages.
  AsyncEvents(ibv_context* context, std::string device_name);

  /// Reads and handles every event that arrived: IBV_EVENT_CQ_ERR marks its CQ
  /// (VerbsCompletionQueue::note_overrun, found through cq_context); the others are
  /// logged (warnings for QP, port and device errors). Thread-safe.
  void drain();

 private:
  ibv_context* context_;
  std::string device_name_;
  std::mutex mutex_;
  bool nonblocking_ = false;  // set when fcntl succeeded; drain() reads nothing otherwise
};

}  // namespace twinfab::verbs
