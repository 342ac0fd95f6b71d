// twinfab hooks: a trace of every work request posted and every completion polled.
//
// TraceHook wraps any device (or another hook) and hands one TraceEvent per posted
// WR (with the status the post returned) and per polled completion to a sink, a plain
// callback. Time is the device runtime's now(): simulated seconds in the simulator,
// steady-clock seconds on hardware. `spdlog_trace_sink` writes one line per event
// through spdlog; a test collects events into a vector.
//
// Where a TraceHook sits in a stack decides what it sees: above a DropHook it sees
// only the completions that survived; below it, every completion, and the DropHook's
// re-posts of dropped receives as ordinary receive posts.
//
// The sink is called on the thread (actor) that posted or polled, with no lock held;
// a sink shared by several threads must synchronise itself.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "fabric/hook/device_decorator.hpp"

namespace spdlog {
class logger;
}

namespace twinfab::fabric::hook {

struct TraceEvent {
  enum class Kind : uint8_t {
    PostSend,     ///< QueuePair::post_send
    PostRecv,     ///< QueuePair::post_recv
    PostSrqRecv,  ///< SharedReceiveQueue::post_recv (qp_num is 0)
    Completion,   ///< a completion returned by CompletionQueue::poll
  };
  Kind kind = Kind::PostSend;
  double time = 0;              ///< runtime().now() at the post / poll
  std::string_view device;      ///< capabilities().device_name; valid while the device lives
  uint32_t qp_num = 0;          ///< QP posted to, or the completion's local QP
  uint64_t wr_id = 0;
  Opcode opcode = Opcode::Send;           ///< PostSend only
  WcOpcode wc_opcode = WcOpcode::Recv;    ///< Completion only
  uint32_t bytes = 0;                     ///< posts: sum of SGE lengths; completions: byte_len
  Status post_status = Status::Ok;        ///< posts: what post_* returned
  WcStatus wc_status = WcStatus::Success; ///< Completion only
  bool signaled = false;                  ///< PostSend only
  bool has_imm = false;                   ///< PostSend (with-imm opcodes) and Completion
  uint32_t imm_data = 0;
  uint32_t src_qp = 0;                    ///< Completion: UD source QP
};

std::string_view to_string(TraceEvent::Kind kind) noexcept;
/// One line, e.g. "0.000012480 sim-hca0 qp 3 post_send RDMA_WRITE wr_id 7 bytes 1001 -> Ok".
std::string format_trace_event(const TraceEvent& event);

using TraceSink = std::function<void(const TraceEvent&)>;

/// A sink writing format_trace_event lines at info level to `logger`, or to twinfab's
/// logger (fabric::log(): standard error, TWINFAB_LOG_LEVEL) when `logger` is null.
TraceSink spdlog_trace_sink(std::shared_ptr<spdlog::logger> logger = nullptr);

class TraceHook : public DeviceDecorator {
 public:
  /// Throws Error(InvalidArgument) for an empty sink.
  TraceHook(std::unique_ptr<Device> inner, TraceSink sink);
  TraceHook(Device& inner, TraceSink sink);

 protected:
  Status on_post_send(QueuePairDecorator& qp, const SendWr& wr) override;
  Status on_post_recv(QueuePairDecorator& qp, const RecvWr& wr) override;
  Status on_srq_post_recv(SharedReceiveQueueDecorator& srq, const RecvWr& wr) override;
  CompletionVerdict on_poll_completion(CompletionQueueDecorator& cq, const WorkCompletion& wc) override;

 private:
  TraceEvent base_event(TraceEvent::Kind kind, uint32_t qp_num);
  TraceSink sink_;
};

}  // namespace twinfab::fabric::hook
