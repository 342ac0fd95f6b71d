// twinfab MPI core: MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10).
//
// A nonblocking send-receive is a receive and a send started together whose one
// request completes when both have. It is built on the progress engine's background
// operations (background_operation.hpp), as the nonblocking collectives are: the
// operation holds the two sub-requests and collects them as they finish, and the
// context completes its request with the receive's status. Nothing here waits, so a
// rank can start several (a ring exchange in every direction) and complete them in
// any order.
#include <fmt/format.h>

#include <vector>

#include "mpi/core/context.hpp"

namespace twinfab::mpi {

namespace {

class SendrecvOperation final : public BackgroundOperation {
 public:
  /// `outgoing`: MPI_Isendrecv_replace's packed copy of the message, which must live
  /// until the send has taken it (empty for MPI_Isendrecv).
  explicit SendrecvOperation(std::vector<std::byte> outgoing = {}) : outgoing_(std::move(outgoing)) {}

  const std::vector<std::byte>& outgoing() const noexcept { return outgoing_; }
  void hold(RequestId recv, RequestId send) {
    recv_ = recv;
    send_ = send;
  }

  std::size_t advance(Context& context) override {
    // wait() of a request that is done returns at once and never progresses.
    std::size_t steps = 0;
    if (recv_ != kRequestNull && context.is_done(recv_)) {
      status_ = context.wait(recv_);
      ++steps;
    }
    if (send_ != kRequestNull && context.is_done(send_)) {
      context.wait(send_);
      ++steps;
    }
    return steps;
  }
  bool done() const noexcept override { return recv_ == kRequestNull && send_ == kRequestNull; }
  MessageStatus status() const override { return status_; }

 private:
  std::vector<std::byte> outgoing_;
  RequestId recv_ = kRequestNull;
  RequestId send_ = kRequestNull;
  MessageStatus status_;
};

}  // namespace

RequestId Context::start_posted_send(RequestId& recv, const void* buffer, std::int64_t count,
                                     const DatatypePtr& type, int dest, int tag, const Communicator& comm,
                                     const char* where) {
  try {
    return isend(buffer, count, type, dest, tag, comm, SendMode::Standard, where);
  } catch (...) {
    // Not expected (the send's arguments were checked): leave no receive behind.
    cancel(recv);
    wait(recv);
    throw;
  }
}

RequestId Context::isendrecv(const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype, int dest,
                             int sendtag, void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype,
                             int source, int recvtag, const Communicator& comm, const char* where) {
  check_send(where, sendbuf, sendcount, sendtype, dest, sendtag, comm);
  auto operation = std::make_unique<SendrecvOperation>();
  // The receive first, as MPI_Sendrecv: it checks its own arguments before it posts.
  RequestId recv = irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, where);
  operation->hold(recv, start_posted_send(recv, sendbuf, sendcount, sendtype, dest, sendtag, comm, where));
  return start_operation(std::move(operation), Request::Kind::Exchange);
}

RequestId Context::isendrecv_replace(void* buffer, std::int64_t count, const DatatypePtr& type, int dest,
                                     int sendtag, int source, int recvtag, const Communicator& comm,
                                     const char* where) {
  check_send(where, buffer, count, type, dest, sendtag, comm);
  // The outgoing elements leave as bytes (messages match by bytes, not by type
  // signature), packed now: the receive may land in `buffer` before the send has
  // read it (a rendezvous send reads at the peer's pace).
  std::vector<std::byte> packed(dest == kProcNull ? 0 : static_cast<std::size_t>(packed_size(count, *type)));
  if (!packed.empty()) pack(buffer, count, *type, 0, packed, where);
  auto operation = std::make_unique<SendrecvOperation>(std::move(packed));
  const std::vector<std::byte>& outgoing = operation->outgoing();
  // irecv checks the receive's arguments before it posts; the send's were checked.
  RequestId recv = irecv(buffer, count, type, source, recvtag, comm, where);
  operation->hold(recv, start_posted_send(recv, outgoing.data(), static_cast<std::int64_t>(outgoing.size()),
                                          datatype(BasicKind::Byte), dest, sendtag, comm, where));
  return start_operation(std::move(operation), Request::Kind::Exchange);
}

}  // namespace twinfab::mpi
