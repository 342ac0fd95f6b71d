#include "backends/verbs/verbs_shared_receive_queue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "backends/verbs/host_runtime.hpp"
#include "backends/verbs/verbs_errno.hpp"
#include "backends/verbs/verbs_work_request.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::verbs {

VerbsSharedReceiveQueue::VerbsSharedReceiveQueue(ibv_pd* pd, uint32_t capacity, uint32_t max_sge,
                                                 const ibv_device_attr& limits) {
  using fabric::Error;
  using fabric::Status;
  if (capacity == 0) throw Error(Status::InvalidArgument, "create_srq: capacity is 0");
  if (capacity > static_cast<uint32_t>(limits.max_srq_wr)) {
    throw Error(Status::InvalidArgument,
                fmt::format("create_srq: capacity {} is more than the device's max_srq_wr {}", capacity,
                            limits.max_srq_wr));
  }
  if (max_sge == 0 || max_sge > static_cast<uint32_t>(limits.max_srq_sge)) {
    throw Error(Status::InvalidArgument,
                fmt::format("create_srq: max_sge {} is outside 1..{} (the device's max_srq_sge)", max_sge,
                            limits.max_srq_sge));
  }
  ibv_srq_init_attr attr{};
  attr.attr.max_wr = capacity;
  attr.attr.max_sge = max_sge;
  srq_ = ibv_create_srq(pd, &attr);
  if (srq_ == nullptr) throw_errno(fmt::format("ibv_create_srq({}, {})", capacity, max_sge), errno);
  // Providers round the queue up (rxe to a power of two minus one) without always
  // saying so at creation; the query reports what the queue really holds, which is
  // when posting starts to fail with NoResource.
  capacity_ = std::max(capacity, attr.attr.max_wr);
  ibv_srq_attr actual{};
  if (ibv_query_srq(srq_, &actual) == 0) capacity_ = std::max(capacity_, actual.max_wr);
  max_sge_ = max_sge;  // WRs are checked against what was asked, like QPs
}

VerbsSharedReceiveQueue::~VerbsSharedReceiveQueue() {
  if (int rc = ibv_destroy_srq(srq_); rc != 0) {
    fabric::log().warn(
        "verbs: {} (a QP still uses this SRQ: destroy QPs before their SRQs; the SRQ is kept until the "
        "device closes)",
        errno_message("ibv_destroy_srq", rc));
  }
}

fabric::Status VerbsSharedReceiveQueue::post_recv(const fabric::RecvWr& wr) {
  if (wr.sg_list.size() > max_sge_) {
    last_error_ = fmt::format("post_recv: {} SGEs exceed the SRQ's max_sge of {}", wr.sg_list.size(), max_sge_);
    return fabric::Status::InvalidArgument;
  }
  const int rc = post_one_srq_recv(srq_, wr);
  note_device_activity();
  if (rc == 0) return fabric::Status::Ok;
  const fabric::Status status = errno_status(rc);
  last_error_ = status == fabric::Status::NoResource
                    ? fmt::format("post_recv: the SRQ is full ({} receives posted); post again after some are consumed",
                                  capacity_)
                    : errno_message("ibv_post_srq_recv", rc);
  return status;
}

}  // namespace twinfab::verbs
