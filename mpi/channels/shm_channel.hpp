// twinfab MPI channels: the shared-memory channel, between the ranks of one host
// (docs/shm.md). It serves only those peers; NodeChannel (node_channel.hpp) puts it
// beside a network channel and routes each peer to one of them.
//
// Packets go through queues in shared memory (shm_queue.hpp): each rank owns a
// segment with its receive FIFO and a pool of cells of one packet each; a packet to a
// peer is written into a free cell of the sender's and appended to the peer's FIFO,
// and the peer appends the cell to the sender's FIFO once it has handed the packet on.
// Two copies per packet (into the cell, out of it), each charged by the fabric
// (fabric::SharedMemory::copy; in the simulator host.shm_message_cost +
// bytes / host.memcpy_bandwidth). With no free cell, packets wait in the channel, in
// order, until cells come back.
//
// RDMA, where the kernel allows single copies between processes
// (SharedMemory::single_copy(), CMA on hardware): writes and reads are one copy
// between the two processes' memory (process_vm_writev/readv), done when posted and
// reported at the next progress(); a write with immediate is the write, then a cell
// carrying the immediate, in order with the packets. So a long message to a rank of
// the same host is a rendezvous with one copy, as MVAPICH2's LiMIC/CMA and Open MPI's
// vader do. No remote atomics: they stay with the network channel (the HCA serves
// its own host as any other).
//
// Segments: each rank makes its own at construction and publishes its name and the
// rank's identity through the OOB exchange, without a fence of its own (the network
// channel made after it fences for both: NodeChannel). A peer's segment is attached
// when this rank first sends to it or receives from it. A segment that cannot be made
// (a full /dev/shm, no permission) leaves this rank out: it publishes nothing, warns
// once, and every rank reaches it through the network (reachable()).
//
// Waiting: nothing completes on a CQ; a peer's notify() ends this rank's
// Runtime::wait() (WaitSet::memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "fabric/oob_exchange.hpp"
#include "fabric/runtime.hpp"
#include "fabric/shared_memory.hpp"
#include "mpi/channels/channel.hpp"
#include "mpi/channels/shm_queue.hpp"

namespace twinfab::mpi {

class ShmChannel final : public Channel {
 public:
  /// `local_ranks`: the world ranks of this host, ascending, this rank among them.
  /// Makes and publishes (oob.put, no fence) this rank's segment of `cells` cells of
  /// `max_payload` bytes of payload. The segment is usable by the others after the
  /// next fence of `oob`.
  ShmChannel(fabric::SharedMemory& memory, fabric::Runtime& runtime, fabric::OobExchange& oob,
             std::vector<int> local_ranks, std::size_t max_payload, std::uint32_t cells, PacketSink& sink);
  /// Collective among the ranks of the host (those with a segment): each waits until
  /// every cell of its own has come back, counts itself in the host's count (in the
  /// first segment), and goes on taking what arrives until all are counted. Then no
  /// cell is in flight and no rank sends: the segments can go.
  ~ShmChannel() override;
  ShmChannel(const ShmChannel&) = delete;
  ShmChannel& operator=(const ShmChannel&) = delete;

  /// Whether packets to `peer` may go through this channel: `peer` is another rank of
  /// this host and both ranks made their segments. Reads the peer's published blob
  /// the first time (after the fence).
  bool reachable(int peer) const;
  /// Whether `peer` is one of this host's ranks (whatever its segment).
  bool on_this_host(int peer) const noexcept { return local_index(peer) >= 0; }

  /// The shutdown's next step, without waiting (the destructor runs them; a channel
  /// made of channels runs them itself while it progresses all of its parts, since a
  /// peer may be waiting for this rank's network traffic meanwhile). True once done:
  /// the destructor then has nothing left to do. Call progress() between calls.
  bool finish_step();

  const ChannelCapabilities& capabilities() const noexcept override { return caps_; }
  /// Only to a reachable() peer (the caller routes by it; not checked again here, on
  /// every packet).
  void send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) override;
  using Channel::send_packet;
  /// Write, WriteWithImm and Read (when capabilities() offers them), to a reachable()
  /// peer; a failed copy ends the job with mpi::Error naming the peer and the cause.
  void post_rdma(int peer, const RdmaOp& op) override;
  std::size_t progress() override;
  WaitSet wait_set() const override;
  const ChannelCounters& counters() const noexcept override { return counters_; }

 private:
  enum class Reach : std::uint8_t { Unknown, Yes, No };
  struct Local {
    mutable Reach reach = Reach::Unknown;  ///< cached by reachable()
    std::uint32_t pending = 0;  ///< entries of pending_ for this peer
    std::byte* base = nullptr;  ///< the peer's segment, once attached
    std::unique_ptr<fabric::SharedSegment> segment;
    std::unique_ptr<fabric::SharedPeer> peer;
  };
  /// What waits for a free cell (or behind what waits, for its peer's order).
  struct Pending {
    int peer = 0;
    DeferredOperation what;
  };

  /// The index of `peer` among this host's ranks, or -1.
  int local_index(int peer) const noexcept;
  /// The peer's state with its segment attached (throws mpi::Error when it cannot be).
  Local& attached(int index);
  shm::CellHeader& cell_of(shm::Item item);
  /// Puts a cell of `kind` to `peer` now (a free cell must exist); the payload is
  /// written by `fill`.
  void put_cell(int peer, shm::CellKind kind, const PacketHeader& header, std::uint32_t immediate,
                std::size_t payload_bytes, const Fill& fill);
  /// Runs an RDMA operation now; its completion goes out at the next progress().
  void run_rdma(int peer, const RdmaOp& op);
  void defer(Pending entry);
  /// Sends what waited, in order, while cells last; returns how many went.
  std::size_t drive_pending();
  /// Hands one popped item on (a packet, an immediate, or a cell of ours back).
  void take(shm::Item item);
  void shutdown();

  fabric::SharedMemory& memory_;
  fabric::Runtime& runtime_;
  fabric::OobExchange& oob_;
  PacketSink& sink_;
  const int rank_;
  const std::vector<int> local_ranks_;
  int self_index_ = -1;
  /// Past Running, every returned cell wakes this rank (wants_cells stays set).
  enum class Stage : std::uint8_t { Running, Draining, Counted, Done };
  Stage stage_ = Stage::Running;
  shm::SegmentHeader* count_ = nullptr;  ///< the host's shutdown count (finish_step)
  std::uint32_t count_total_ = 0;
  bool contiguous_ = false;  ///< local_ranks_ is first, first + 1, ...: the index is a subtraction
  shm::Layout layout_;
  ChannelCapabilities caps_;
  std::unique_ptr<fabric::SharedSegment> segment_;  ///< this rank's (null: none could be made)
  std::byte* base_ = nullptr;
  std::vector<Local> locals_;          ///< by local index
  std::vector<std::uint32_t> free_;    ///< this rank's free cells (a stack: warm ones first)
  std::deque<Pending> pending_;
  struct Done {
    std::uint32_t cookie;
    fabric::WcStatus status;
  };
  std::vector<Done> done_;  ///< RDMA completions to report
  ChannelCounters counters_;
};

}  // namespace twinfab::mpi
