// twinfab MPI channels: the node channel, shared memory to the ranks of this host and
// a network channel (RC, UD or hybrid) to the others (TWINFAB_SHM=1, the default, on a
// backend with shared memory; docs/shm.md). MPICH's CH4 (shmmod + netmod) and Open
// MPI's BTLs (vader + openib) split the same way.
//
// Routing is per peer and fixed for the job: a peer of this host that shared memory
// reaches (ShmChannel::reachable) gets its packets through it, every other peer
// through the network. RDMA to a peer of this host goes through shared memory when the
// shared-memory channel offers the operation (single-copy writes and reads), else
// through the network (remote atomics: the HCA serves its own host as any other).
//
// Capabilities: the network's for every peer (capabilities()), so one-sided
// communication plans with the network's atomics; capabilities(peer) for a peer of
// this host adds shared memory's RDMA write, write with immediate and read. Packets
// keep the network's size on both, so a message's segments fit either.
//
// Order. A network RDMA operation to a peer of this host (an atomic) and the packets
// after it travel different ways: the packets (and shared-memory RDMA) submitted after
// it are held here until it has completed, which keeps the channel contract (a packet
// submitted after an RDMA operation leaves after it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/oob_keys.hpp"
#include "mpi/channels/channel.hpp"
#include "mpi/channels/shm_channel.hpp"

namespace twinfab::mpi {

class NodeChannel final : public Channel {
 public:
  /// Makes the network channel over an OOB view for a sink (the node channel's own).
  using NetworkFactory = std::function<std::unique_ptr<Channel>(fabric::OobExchange& oob, PacketSink& sink)>;

  /// Collective (every rank of the job builds either this or, without peers on its
  /// host, the network channel alone with the same OOB keys and fences; the Context
  /// does). `local_ranks`: this host's ranks, ascending, this one among them and at
  /// least one other. The network channel uses `keys.view(0)`, the shared-memory
  /// channel puts its blob in `keys.view(1)`; the caller fences view(1) after.
  NodeChannel(fabric::SharedMemory& memory, fabric::Runtime& runtime, fabric::OobKeys& keys,
              std::vector<int> local_ranks, std::uint32_t shm_cells, PacketSink& sink, const NetworkFactory& network);
  /// Collective: drains what is held, then the shared-memory channel's shutdown (every
  /// rank of the host), then the network channel's.
  ~NodeChannel() override;
  void abandon() noexcept override;
  NodeChannel(const NodeChannel&) = delete;
  NodeChannel& operator=(const NodeChannel&) = delete;

  const ChannelCapabilities& capabilities() const noexcept override { return caps_; }
  const ChannelCapabilities& capabilities(int peer) const noexcept override;
  void send_packet(int peer, const PacketHeader& header, std::size_t payload_bytes, const Fill& fill) override;
  using Channel::send_packet;
  void post_rdma(int peer, const RdmaOp& op) override;
  std::size_t progress() override;
  WaitSet wait_set() const override;
  /// Both channels' counters, summed (pending_peak: the larger).
  const ChannelCounters& counters() const noexcept override;

  /// The shared-memory channel's counters alone (tests, experiments).
  const ChannelCounters& shm_counters() const noexcept { return shm_->counters(); }

 private:
  /// The network channel delivers through this: it sees the completions of the
  /// network RDMA operations to this host's peers (the fence), and passes all on.
  class NetworkSide final : public PacketSink {
   public:
    explicit NetworkSide(NodeChannel& owner) : owner_(owner) {}
    void on_packet(int peer, const PacketHeader& header, std::span<const std::byte> payload) override;
    void on_write_immediate(int peer, std::uint32_t imm) override;
    void on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) override;

   private:
    NodeChannel& owner_;
  };
  struct Fence {
    int peer = 0;
    std::deque<DeferredOperation> held;  ///< packets and shared-memory operations behind a network one
  };

  /// Whether `peer` goes through shared memory (cached per peer by the channel).
  bool local(int peer) const { return shm_->reachable(peer); }
  Fence* fence_of(int peer);
  void release(Fence& fence);

  fabric::Runtime& runtime_;
  PacketSink& sink_;
  NetworkSide network_side_;
  std::unique_ptr<Channel> network_;
  std::unique_ptr<ShmChannel> shm_;
  ChannelCapabilities caps_;        ///< the network's, varying by peer
  ChannelCapabilities local_caps_;  ///< for a peer through shared memory
  std::vector<Fence> fences_;       ///< peers with network RDMA outstanding or packets held (few)
  /// Network RDMA operations to a local peer not yet completed (cookie, peer): a peer's
  /// fence holds while one of its own is here.
  std::vector<std::pair<std::uint32_t, int>> fenced_cookies_;
  mutable std::vector<fabric::CompletionQueue*> sources_;
  mutable ChannelCounters counters_;
};

}  // namespace twinfab::mpi
