#include "mpi/rma/loopback.hpp"

#include <fmt/format.h>

#include "fabric/completion_queue.hpp"
#include "fabric/queue_pair.hpp"
#include "fabric/runtime.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi::rma {

namespace {

constexpr const char* kWhere = "MPI one-sided (loopback atomics)";
constexpr int kConnectAttempts = 100000;

}  // namespace

LoopbackAtomics::LoopbackAtomics(fabric::Device& device) : device_(device) {
  cq_ = device_.create_cq(16);
  fabric::QpConfig config;
  config.transport = fabric::Transport::RC;
  config.send_cq = config.recv_cq = cq_.get();
  config.max_send_wr = 4;
  config.max_recv_wr = 1;
  config.max_send_sge = config.max_recv_sge = 1;
  origin_ = device_.create_qp(config);
  responder_ = device_.create_qp(config);
  const fabric::Address to_responder = responder_->local_address();
  const fabric::Address to_origin = origin_->local_address();
  fabric::Status a = fabric::Status::InProgress, b = fabric::Status::InProgress;
  for (int i = 0; i < kConnectAttempts && (a == fabric::Status::InProgress || b == fabric::Status::InProgress); ++i) {
    if (a == fabric::Status::InProgress) a = origin_->connect(&to_responder);
    if (b == fabric::Status::InProgress) b = responder_->connect(&to_origin);
    if (a == fabric::Status::InProgress || b == fabric::Status::InProgress)
      device_.runtime().wait({}, device_.runtime().now() + fabric::kConnectPollSeconds);
  }
  if (a != fabric::Status::Ok || b != fabric::Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, kWhere,
                fmt::format("could not connect a QP to another on this rank's device: {} / {} ({})",
                            fabric::to_string(a), fabric::to_string(b), origin_->last_error()));
  result_region_ = device_.register_memory(&result_, sizeof result_, fabric::Access::LocalWrite);
}

LoopbackAtomics::~LoopbackAtomics() = default;

std::uint64_t LoopbackAtomics::execute(RdmaOp::Kind kind, std::uint64_t remote_addr, std::uint32_t rkey,
                                       std::uint64_t compare_add, std::uint64_t swap) {
  const fabric::Sge sge = result_region_->sge(0, sizeof result_);
  fabric::SendWr wr;
  wr.wr_id = 1;
  wr.opcode = kind == RdmaOp::Kind::CompareSwap ? fabric::Opcode::AtomicCompareSwap : fabric::Opcode::AtomicFetchAdd;
  wr.sg_list = {&sge, 1};
  wr.remote_addr = remote_addr;
  wr.rkey = rkey;
  wr.compare_add = compare_add;
  wr.swap = swap;
  if (const fabric::Status s = origin_->post_send(wr); s != fabric::Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, kWhere,
                fmt::format("posting an atomic failed: {} ({})", fabric::to_string(s), origin_->last_error()));
  fabric::CompletionQueue* sources[] = {cq_.get()};
  fabric::WorkCompletion wc;
  while (cq_->poll(std::span(&wc, 1)) == 0) device_.runtime().wait_for_completion(sources, fabric::Runtime::kForever);
  if (wc.status != fabric::WcStatus::Success)
    throw Error(ErrorClass::MPI_ERR_OTHER, kWhere,
                fmt::format("an atomic on this rank's own window completed with {}", fabric::to_string(wc.status)));
  return result_;
}

}  // namespace twinfab::mpi::rma
