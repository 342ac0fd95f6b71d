// twinfab MPI channels: on-demand RC connection set-up over one UD queue pair per rank
// (the approach of MVAPICH2's UD-based connection manager, seed 004 §2 for the UD side).
//
// Connecting every pair of ranks at start-up costs N-1 RC QPs, their receive buffers
// and an all-to-all address exchange per rank: fine for tens of ranks, hopeless for
// thousands. Instead each rank publishes only the address of its UD "connector" QP
// (one OOB put/fence at start-up) and RC connections are made when a rank first has
// something for a peer:
//
//   requester A                                   responder B
//   create RC QP, Request{A, rc addr}  -- UD -->  create RC QP, connect to A's,
//                                                 post receives, Reply{B, rc addr}
//   connect to B's, post receives      <-- UD --  (sends nothing until A has spoken)
//   send pending packets (or a hello)  -- RC -->  may send from now on
//
// UD is unreliable, so a Request is re-sent with exponential backoff until its Reply
// arrives; Requests and Replies are idempotent (a duplicate Request is answered with
// the same Reply). When both ranks request at once, the lower rank's Request wins:
// the higher rank answers it with the QP it had created for its own request, and the
// lower rank ignores the higher rank's Request.
//
// This class only moves Request/Reply messages and keeps the re-send timers; the RC
// channel owns the connection states. Timers use the fabric runtime's clock, so in the
// simulator they run in simulated time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "fabric/address.hpp"
#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"
#include "mpi/channels/buffer_storage.hpp"

namespace twinfab::mpi {

/// A Request or Reply that arrived.
struct ConnectMessage {
  enum class Kind : std::uint8_t { Request = 1, Reply = 2 };
  Kind kind = Kind::Request;
  int peer = -1;              ///< the sender's rank
  fabric::Address rc_address;  ///< the sender's RC QP for this rank
};

class UdConnector {
 public:
  /// Creates the UD QP and publishes its address (OOB put + fence: collective).
  /// Throws fabric::Error(Unsupported) when the device has no UD.
  UdConnector(fabric::Device& device, fabric::OobExchange& oob);
  ~UdConnector();
  UdConnector(const UdConnector&) = delete;
  UdConnector& operator=(const UdConnector&) = delete;

  /// Sends a Request carrying `rc_address` to `peer` and re-sends it until
  /// reply_received(peer).
  void request(int peer, const fabric::Address& rc_address);
  /// The Reply to `peer`'s Request arrived (or the Request was superseded): stop
  /// re-sending it.
  void reply_received(int peer);
  /// Sends a Reply (unreliably: a lost Reply is answered by the re-sent Request).
  void reply(int peer, const fabric::Address& rc_address);

  /// Polls the UD CQ and re-sends due Requests; appends what arrived to `out`.
  /// Returns the events handled. Throws mpi::Error when a peer never answered.
  std::size_t progress(std::vector<ConnectMessage>& out);
  /// The runtime deadline by which progress() must run again (kForever: no timer).
  double next_deadline() const noexcept;
  /// The CQ that receives Requests and Replies (for Runtime::wait).
  fabric::CompletionQueue& completion_queue() noexcept { return *cq_; }
  bool requests_outstanding() const noexcept { return !pending_.empty(); }

  /// Every Request and Reply sent, re-sends included.
  std::uint64_t messages_sent() const noexcept { return messages_sent_; }
  std::uint64_t requests_resent() const noexcept { return requests_resent_; }

 private:
  struct Pending {
    std::vector<std::byte> message;  ///< the Request as sent
    double first = 0;     ///< when it was first sent
    double due = 0;       ///< when it is re-sent next
    double interval = 0;
    unsigned attempts = 0;
  };
  void send(int peer, std::span<const std::byte> message);
  const fabric::AddressHandle& handle_for(int peer);
  void post_receive(std::uint32_t slot);
  void reap_sends();

  fabric::Device& device_;
  fabric::OobExchange& oob_;
  const int rank_;
  std::unique_ptr<fabric::CompletionQueue> cq_;       ///< receives: what a waiter waits on
  std::unique_ptr<fabric::CompletionQueue> send_cq_;  ///< send completions, reaped lazily
  std::unique_ptr<fabric::QueuePair> qp_;
  BufferStorage storage_;  ///< receive slots, then send slots
  std::unique_ptr<fabric::MemoryRegion> region_;
  std::size_t recv_base_ = 0;  ///< offsets of the two slot arrays in storage_
  std::size_t send_base_ = 0;
  std::vector<std::uint32_t> free_send_slots_;
  /// Address handles of the peers this rank has talked to (a few, not N).
  std::unordered_map<int, std::unique_ptr<fabric::AddressHandle>> handles_;
  /// Requests awaiting their Reply, by peer (ordered: deterministic re-sends).
  std::map<int, Pending> pending_;
  std::uint64_t messages_sent_ = 0;
  std::uint64_t requests_resent_ = 0;
};

}  // namespace twinfab::mpi
