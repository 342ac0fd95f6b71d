#include "mpi/channels/ud_connector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "fabric/error.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

using fabric::Status;

// Wire format of a Request/Reply: this header, then the RC address blob.
struct MessageHeader {
  std::uint8_t kind = 0;
  std::uint8_t reserved[3] = {};
  std::int32_t rank = 0;
  std::uint32_t address_bytes = 0;
};
constexpr std::uint32_t kSlotBytes = 256;  // header + an address blob, well under any MTU
constexpr std::uint32_t kRecvSlotBytes = fabric::kUdGrhBytes + kSlotBytes;
constexpr std::uint32_t kRecvSlots = 32;
constexpr std::uint32_t kSendSlots = 32;
constexpr std::uint64_t kRecvTag = 1ull << 63;

// Re-sending a Request: the first after 100 us (a few round trips, also on software
// RDMA), doubling to 50 ms; a peer that stays silent for 60 s is reported (it may
// compute for long without entering MPI, so this must be generous).
constexpr double kFirstResend = 100e-6;
constexpr double kMaxResendInterval = 50e-3;
constexpr double kGiveUpAfter = 60.0;

}  // namespace

UdConnector::UdConnector(fabric::Device& device, fabric::OobExchange& oob)
    : device_(device), oob_(oob), rank_(oob.rank()) {
  const auto& caps = device_.capabilities();
  if (!caps.ud) throw fabric::Error(Status::Unsupported, "on-demand connections need a device with UD queue pairs");
  cq_ = device_.create_cq(kRecvSlots);
  send_cq_ = device_.create_cq(kSendSlots);
  qp_ = device_.create_qp(fabric::ud_qp_config(send_cq_.get(), cq_.get(), kSendSlots, kRecvSlots));
  const Status s = qp_->connect(nullptr);
  if (s != Status::Ok)
    throw fabric::Error(s, fmt::format("on-demand connections: the UD queue pair did not start: {}",
                                       qp_->last_error()));
  // One block, not initialised: receive slots, then send slots. Only the slots that
  // are used get touched (memory per rank; buffer_storage.hpp), and the first to be
  // used are next to each other: receives are posted from the last slot down and
  // the send free list hands out slot 0 first, so a rank that exchanges a few
  // connection messages (two in a ring) touches one page.
  constexpr std::size_t kRecvBytes = static_cast<std::size_t>(kRecvSlots) * kRecvSlotBytes;
  constexpr std::size_t kStorageBytes = kRecvBytes + static_cast<std::size_t>(kSendSlots) * kSlotBytes;
  storage_ = BufferStorage(kStorageBytes);
  region_ = device_.register_memory(storage_.get(), kStorageBytes, fabric::Access::LocalWrite);
  recv_base_ = 0;
  send_base_ = kRecvBytes;
  for (std::uint32_t i = kRecvSlots; i-- > 0;) post_receive(i);
  for (std::uint32_t i = kSendSlots; i-- > 0;) free_send_slots_.push_back(i);
  const fabric::Address address = qp_->local_address();
  oob_.put(address.bytes());
  oob_.fence();
}

UdConnector::~UdConnector() = default;

void UdConnector::post_receive(std::uint32_t slot) {
  const fabric::Sge sge = region_->sge(recv_base_ + static_cast<std::size_t>(slot) * kRecvSlotBytes, kRecvSlotBytes);
  const fabric::RecvWr wr{kRecvTag | slot, std::span(&sge, 1)};
  const Status s = qp_->post_recv(wr);
  if (s != Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, "connect",
                fmt::format("posting a connection-manager receive failed: {} ({})", fabric::to_string(s),
                            qp_->last_error()));
}

const fabric::AddressHandle& UdConnector::handle_for(int peer) {
  auto it = handles_.find(peer);
  if (it == handles_.end()) {
    const std::vector<std::byte> blob = oob_.get(peer);
    it = handles_.emplace(peer, device_.create_address_handle(fabric::Address::from_bytes(blob))).first;
  }
  return *it->second;
}

void UdConnector::reap_sends() {
  std::array<fabric::WorkCompletion, 16> wcs;
  for (;;) {
    const std::size_t n = send_cq_->poll(wcs);
    for (std::size_t i = 0; i < n; ++i) free_send_slots_.push_back(static_cast<std::uint32_t>(wcs[i].wr_id));
    if (n < wcs.size()) break;
  }
}

void UdConnector::send(int peer, std::span<const std::byte> message) {
  reap_sends();
  // No buffer free: drop it, as a full UD path would. A lost Request is re-sent, a
  // lost Reply is asked for again by the re-sent Request.
  if (free_send_slots_.empty()) return;
  const std::uint32_t slot = free_send_slots_.back();
  const std::size_t offset = send_base_ + static_cast<std::size_t>(slot) * kSlotBytes;
  std::memcpy(storage_.get() + offset, message.data(), message.size());
  const fabric::Sge sge = region_->sge(offset, static_cast<std::uint32_t>(message.size()));
  fabric::SendWr wr;
  wr.wr_id = slot;
  wr.opcode = fabric::Opcode::Send;
  wr.sg_list = std::span(&sge, 1);
  wr.ah = &handle_for(peer);
  const Status s = qp_->post_send(wr);
  if (s == Status::NoResource) return;
  if (s != Status::Ok)
    throw Error(ErrorClass::MPI_ERR_OTHER, "connect",
                fmt::format("sending a connection message to rank {} failed: {} ({})", peer, fabric::to_string(s),
                            qp_->last_error()));
  free_send_slots_.pop_back();
  ++messages_sent_;
}

namespace {
std::vector<std::byte> encode(ConnectMessage::Kind kind, int rank, const fabric::Address& address) {
  const auto bytes = address.bytes();
  if (sizeof(MessageHeader) + bytes.size() > kSlotBytes)
    throw Error(ErrorClass::MPI_ERR_INTERN, "connect",
                fmt::format("an RC address of {} bytes does not fit a connection message", bytes.size()));
  MessageHeader header;
  header.kind = static_cast<std::uint8_t>(kind);
  header.rank = rank;
  header.address_bytes = static_cast<std::uint32_t>(bytes.size());
  std::vector<std::byte> message(sizeof header + bytes.size());
  std::memcpy(message.data(), &header, sizeof header);
  std::memcpy(message.data() + sizeof header, bytes.data(), bytes.size());
  return message;
}
}  // namespace

void UdConnector::request(int peer, const fabric::Address& rc_address) {
  Pending& p = pending_[peer];
  p.message = encode(ConnectMessage::Kind::Request, rank_, rc_address);
  p.interval = kFirstResend;
  p.attempts = 1;
  p.first = device_.runtime().now();
  p.due = p.first + p.interval;
  send(peer, p.message);
}

void UdConnector::reply_received(int peer) { pending_.erase(peer); }

void UdConnector::reply(int peer, const fabric::Address& rc_address) {
  send(peer, encode(ConnectMessage::Kind::Reply, rank_, rc_address));
}

std::size_t UdConnector::progress(std::vector<ConnectMessage>& out) {
  std::size_t events = 0;
  // One completion per poll: connection messages are rare, and this runs on every
  // progress pass, where an array of completions would be initialised each time (a
  // dozen cache lines of stack, cold at scale).
  fabric::WorkCompletion wc;
  while (cq_->poll({&wc, 1}) == 1) {
    ++events;
    const auto slot = static_cast<std::uint32_t>(wc.wr_id & ~kRecvTag);
    if (wc.status == fabric::WcStatus::Success && wc.byte_len >= fabric::kUdGrhBytes + sizeof(MessageHeader)) {
      const std::byte* at = storage_.get() + recv_base_ + static_cast<std::size_t>(slot) * kRecvSlotBytes + fabric::kUdGrhBytes;
      MessageHeader header;
      std::memcpy(&header, at, sizeof header);
      const std::size_t length = wc.byte_len - fabric::kUdGrhBytes;
      const bool well_formed =
          (header.kind == 1 || header.kind == 2) && header.rank >= 0 && header.rank < oob_.size() &&
          sizeof header + header.address_bytes <= length;
      // Anything else is not ours (or corrupted): UD delivers whatever reaches the
      // QP, so it is dropped, not trusted.
      if (well_formed) {
        ConnectMessage m;
        m.kind = static_cast<ConnectMessage::Kind>(header.kind);
        m.peer = header.rank;
        m.rc_address = fabric::Address::from_bytes({at + sizeof header, header.address_bytes});
        out.push_back(std::move(m));
      }
    }
    post_receive(slot);
  }
  if (!pending_.empty()) {
    const double now = device_.runtime().now();
    for (auto& [peer, p] : pending_) {
      if (now < p.due) continue;
      if (now - p.first > kGiveUpAfter)
        throw Error(ErrorClass::MPI_ERR_OTHER, "connect",
                    fmt::format("rank {}: rank {} has not answered a connection request for {:.0f} s ({} attempts); "
                                "is it still running MPI?",
                                rank_, peer, now - p.first, p.attempts));
      send(peer, p.message);
      ++p.attempts;
      ++requests_resent_;
      p.interval = std::min(p.interval * 2, kMaxResendInterval);
      p.due = now + p.interval;
      ++events;
    }
  }
  return events;
}

double UdConnector::next_deadline() const noexcept {
  double deadline = fabric::Runtime::kForever;
  for (const auto& [peer, p] : pending_) deadline = std::min(deadline, p.due);
  return deadline;
}

}  // namespace twinfab::mpi
