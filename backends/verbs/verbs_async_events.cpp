#include "backends/verbs/verbs_async_events.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "backends/verbs/verbs_completion_queue.hpp"
#include "fabric/log.hpp"

namespace twinfab::verbs {

AsyncEvents::AsyncEvents(ibv_context* context, std::string device_name)
    : context_(context), device_name_(std::move(device_name)) {
  const int flags = fcntl(context_->async_fd, F_GETFL);
  if (flags >= 0 && fcntl(context_->async_fd, F_SETFL, flags | O_NONBLOCK) == 0) {
    nonblocking_ = true;
  } else {
    fabric::log().warn(
        "verbs: {}: cannot make the asynchronous event descriptor non-blocking ({}); CQ overruns will not "
        "be reported",
        device_name_, std::strerror(errno));
  }
}

void AsyncEvents::drain() {
  if (!nonblocking_) return;
  std::lock_guard lock(mutex_);
  ibv_async_event event{};
  while (ibv_get_async_event(context_, &event) == 0) {
    const char* what = ibv_event_type_str(event.event_type);
    switch (event.event_type) {
      case IBV_EVENT_CQ_ERR:
        // cq_context is the VerbsCompletionQueue (set at ibv_create_cq; null once that
        // was destroyed while the ibv_cq could not be).
        // One warning per CQ: the device raises the event for every completion lost.
        if (auto* cq = static_cast<VerbsCompletionQueue*>(event.element.cq->cq_context); cq && !cq->noted_overrun()) {
          cq->note_overrun();
          fabric::log().warn("verbs: {}: {} (a CQ of {} entries overran: completions were lost)", device_name_, what,
                             event.element.cq->cqe);
        }
        break;
      case IBV_EVENT_QP_FATAL:
      case IBV_EVENT_QP_REQ_ERR:
      case IBV_EVENT_QP_ACCESS_ERR:
      case IBV_EVENT_PATH_MIG_ERR:
        fabric::log().warn("verbs: {}: {} on QP {}", device_name_, what, event.element.qp->qp_num);
        break;
      case IBV_EVENT_SRQ_ERR:
      case IBV_EVENT_PORT_ERR:
        fabric::log().warn("verbs: {}: {}", device_name_, what);
        break;
      case IBV_EVENT_DEVICE_FATAL:
        fabric::log().error("verbs: {}: {}: the device stopped working; every QP and CQ on it is lost", device_name_,
                            what);
        break;
      default:  // port active, LID/GID/P_Key change, SRQ limit, last WQE reached, ...
        fabric::log().debug("verbs: {}: {}", device_name_, what);
        break;
    }
    ibv_ack_async_event(&event);
  }
}

}  // namespace twinfab::verbs
