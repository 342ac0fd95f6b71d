#include "fabric/hook/trace_hook.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::fabric::hook {
namespace {

uint32_t total_length(std::span<const Sge> sges) noexcept {
  uint64_t total = 0;
  for (const Sge& sge : sges) total += sge.length;
  return static_cast<uint32_t>(total);
}

TraceSink checked(TraceSink sink) {
  if (!sink) throw Error(Status::InvalidArgument, "TraceHook needs a sink: pass a callback or spdlog_trace_sink()");
  return sink;
}

}  // namespace

std::string_view to_string(TraceEvent::Kind kind) noexcept {
  switch (kind) {
    case TraceEvent::Kind::PostSend: return "post_send";
    case TraceEvent::Kind::PostRecv: return "post_recv";
    case TraceEvent::Kind::PostSrqRecv: return "post_srq_recv";
    case TraceEvent::Kind::Completion: return "completion";
  }
  return "?";
}

std::string format_trace_event(const TraceEvent& e) {
  std::string line = fmt::format("{:.9f} {} qp {} {} ", e.time, e.device, e.qp_num, to_string(e.kind));
  switch (e.kind) {
    case TraceEvent::Kind::PostSend:
      line += fmt::format("{} wr_id {} bytes {}{}{} -> {}", to_string(e.opcode), e.wr_id, e.bytes,
                          e.signaled ? "" : " unsignaled", e.has_imm ? fmt::format(" imm {:#x}", e.imm_data) : "",
                          to_string(e.post_status));
      break;
    case TraceEvent::Kind::PostRecv:
    case TraceEvent::Kind::PostSrqRecv:
      line += fmt::format("wr_id {} bytes {} -> {}", e.wr_id, e.bytes, to_string(e.post_status));
      break;
    case TraceEvent::Kind::Completion:
      line += fmt::format("{} wr_id {} bytes {}{}{} {}", to_string(e.wc_opcode), e.wr_id, e.bytes,
                          e.has_imm ? fmt::format(" imm {:#x}", e.imm_data) : "",
                          e.src_qp != 0 ? fmt::format(" src_qp {}", e.src_qp) : "", to_string(e.wc_status));
      break;
  }
  return line;
}

TraceSink spdlog_trace_sink(std::shared_ptr<spdlog::logger> logger) {
  return [logger = std::move(logger)](const TraceEvent& event) {
    spdlog::logger& out = logger ? *logger : log();
    out.info("trace {}", format_trace_event(event));
  };
}

TraceHook::TraceHook(std::unique_ptr<Device> inner, TraceSink sink)
    : DeviceDecorator(std::move(inner)), sink_(checked(std::move(sink))) {}

TraceHook::TraceHook(Device& inner, TraceSink sink) : DeviceDecorator(inner), sink_(checked(std::move(sink))) {}

TraceEvent TraceHook::base_event(TraceEvent::Kind kind, uint32_t qp_num) {
  TraceEvent e;
  e.kind = kind;
  e.time = runtime().now();
  e.device = capabilities().device_name;
  e.qp_num = qp_num;
  return e;
}

Status TraceHook::on_post_send(QueuePairDecorator& qp, const SendWr& wr) {
  // Timestamped before forwarding: a simulated post may spend (simulated) CPU time.
  TraceEvent e = base_event(TraceEvent::Kind::PostSend, qp.qp_num());
  e.wr_id = wr.wr_id;
  e.opcode = wr.opcode;
  e.bytes = total_length(wr.sg_list);
  e.signaled = has(wr.flags, SendFlags::Signaled);
  e.has_imm = wr.opcode == Opcode::SendWithImm || wr.opcode == Opcode::RdmaWriteWithImm;
  e.imm_data = e.has_imm ? wr.imm_data : 0;
  e.post_status = DeviceDecorator::on_post_send(qp, wr);
  sink_(e);
  return e.post_status;
}

Status TraceHook::on_post_recv(QueuePairDecorator& qp, const RecvWr& wr) {
  TraceEvent e = base_event(TraceEvent::Kind::PostRecv, qp.qp_num());
  e.wr_id = wr.wr_id;
  e.bytes = total_length(wr.sg_list);
  e.post_status = DeviceDecorator::on_post_recv(qp, wr);
  sink_(e);
  return e.post_status;
}

Status TraceHook::on_srq_post_recv(SharedReceiveQueueDecorator& srq, const RecvWr& wr) {
  TraceEvent e = base_event(TraceEvent::Kind::PostSrqRecv, 0);
  e.wr_id = wr.wr_id;
  e.bytes = total_length(wr.sg_list);
  e.post_status = DeviceDecorator::on_srq_post_recv(srq, wr);
  sink_(e);
  return e.post_status;
}

CompletionVerdict TraceHook::on_poll_completion(CompletionQueueDecorator&, const WorkCompletion& wc) {
  TraceEvent e = base_event(TraceEvent::Kind::Completion, wc.qp_num);
  e.wr_id = wc.wr_id;
  e.wc_opcode = wc.opcode;
  e.bytes = wc.byte_len;
  e.wc_status = wc.status;
  e.has_imm = wc.has_imm;
  e.imm_data = wc.imm_data;
  e.src_qp = wc.src_qp;
  sink_(e);
  return CompletionVerdict::Keep;
}

}  // namespace twinfab::fabric::hook
