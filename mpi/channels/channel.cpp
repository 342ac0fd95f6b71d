#include "mpi/channels/channel.hpp"

#include <algorithm>

namespace twinfab::mpi {

ChannelCounters& ChannelCounters::operator+=(const ChannelCounters& c) noexcept {
  ChannelCounters& sum = *this;
  sum.packets_sent += c.packets_sent;
  sum.packets_received += c.packets_received;
  sum.credit_updates_sent += c.credit_updates_sent;
  sum.controls_as_immediates += c.controls_as_immediates;
  sum.packets_deferred += c.packets_deferred;
  sum.pending_peak = std::max(sum.pending_peak, c.pending_peak);
  sum.rdma_posted += c.rdma_posted;
  sum.connections += c.connections;
  sum.connect_messages += c.connect_messages;
  sum.retransmissions += c.retransmissions;
  sum.nack_retransmissions += c.nack_retransmissions;
  sum.acks_sent += c.acks_sent;
  sum.nacks_sent += c.nacks_sent;
  sum.probes_sent += c.probes_sent;
  sum.duplicates_received += c.duplicates_received;
  sum.held_out_of_order += c.held_out_of_order;
  sum.datagrams_dropped += c.datagrams_dropped;
  sum.agent_wakeups += c.agent_wakeups;
  sum.agent_packets += c.agent_packets;
  sum.shm_packets_sent += c.shm_packets_sent;
  sum.shm_packets_received += c.shm_packets_received;
  sum.shm_single_copies += c.shm_single_copies;
  sum.srq_growths += c.srq_growths;
  sum.ud_receive_growths += c.ud_receive_growths;
  sum.ud_receive_overruns += c.ud_receive_overruns;
  sum.fastpath_rings += c.fastpath_rings;
  sum.fastpath_packets_sent += c.fastpath_packets_sent;
  sum.fastpath_packets_received += c.fastpath_packets_received;
  return *this;
}

}  // namespace twinfab::mpi
