// Internal: the state the simulated fabric shares across ranks of one simulation — the
// SimGrid platform, one simulated HCA per host (each with its counters), the loss
// generator and the message pool. Not part of the public API (see simulation.hpp).
#pragma once

#include "backends/sim/event_queue.hpp"
#include "backends/sim/side_stack.hpp"
#include "backends/sim/wire.hpp"

#include <simgrid/s4u.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <unordered_map>
#include <vector>

#include "backends/sim/counters.hpp"
#include "backends/sim/icm_cache.hpp"
#include "backends/sim/id_table.hpp"
#include "backends/sim/loss_model.hpp"
#include "backends/sim/platform.hpp"
#include "backends/sim/wire_message.hpp"
#include "fabric/capabilities.hpp"
#include "fabric/device.hpp"

namespace twinfab::sim {

class SimQueuePair;
class SimMemoryRegion;
class SimDevice;
class SimRuntime;
class SimFabric;
class SimSegmentTable;
struct Route;

/// One simulated HCA: shared by every rank (device context) on its host.
class SimHca {
 public:
  SimHca(SimFabric& fabric, uint32_t index, simgrid::s4u::Host* host);

  uint32_t index() const noexcept { return index_; }
  simgrid::s4u::Host* host() const noexcept { return host_; }
  SimFabric& fabric() noexcept { return fabric_; }
  IcmCache& icm() noexcept { return icm_; }
  /// This HCA's share of the simulation's counters (counters.hpp says which HCA
  /// counts what). Its icm_hits/icm_misses are those of icm().
  Counters& counters() noexcept { return counters_; }

  uint32_t add_qp(SimQueuePair* qp);
  /// Forgets `qp` (its number and its cached context); called as it is destroyed.
  void remove_qp(SimQueuePair& qp);
  SimQueuePair* find_qp(uint32_t qpn) const;
  /// Calls f(SimQueuePair&) for every live QP, in QP-number order.
  template <class F>
  void for_each_qp(F&& f) const {
    qps_.for_each([&](SimQueuePair* qp) { f(*qp); });
  }

  /// The routes this HCA used last, by destination host (SimFabric::route): the
  /// route table is a hash map whose buckets and nodes are cold at scale, while a
  /// rank sends to few peers and this HCA is touched by every post anyway.
  struct RouteSlot {
    uint32_t dst_host = UINT32_MAX;
    const Route* route = nullptr;
  };
  RouteSlot& route_slot(uint32_t dst_host) noexcept { return route_slots_[dst_host % route_slots_.size()]; }

  /// Keys are unique per HCA; lkey == rkey as on many real HCAs.
  uint32_t add_mr(SimMemoryRegion* mr);
  void remove_mr(uint32_t key);
  SimMemoryRegion* find_mr(uint32_t key) const;

  /// HCA work-request pipeline: returns when a WR posted at `now` starts being
  /// processed, and books the HCA for `wqe_time` after that.
  double book_wqe(double now, double wqe_time);
  /// The HCA's receive pipeline, apart from the send one: returns when a request that
  /// arrived at `now` is taken in (after the ones before it), and books the pipeline
  /// for `wqe_time` from then. A message alone waits for nothing (its latency is the
  /// model's T(s)); an incast is limited to one message per `wqe_time`.
  double book_receive(double now, double wqe_time);
  /// The host's port off the network, for small packets (wire.hpp): a packet whose last
  /// byte would arrive at `now` after `serialise` seconds on the port lands then, or
  /// `serialise` after the port took the packet before it. Returns when it landed.
  double book_ingress(double now, double serialise);
  /// The HCA's atomic unit: one compare-and-swap or fetch-and-add at a time, whoever
  /// sent it. Returns when an atomic arriving at `now` finishes (it waits for the ones
  /// before it, then takes `atomic_time`), and books the unit until then. Contention
  /// among origins for one target's atomics (locks) therefore costs what it costs on
  /// hardware instead of overlapping for free.
  double book_atomic_unit(double now, double atomic_time);

 private:
  SimFabric& fabric_;
  uint32_t index_;
  simgrid::s4u::Host* host_;
  IcmCache icm_;
  Counters counters_;
  uint32_t next_qpn_ = 0x100;
  uint32_t next_key_ = 0x1000;
  double wqe_free_at_ = 0;
  double receive_free_at_ = 0;
  double ingress_free_at_ = 0;
  double atomic_free_at_ = 0;
  IdTable<SimQueuePair> qps_;      // by QP number
  IdTable<SimMemoryRegion> mrs_;   // by key (lkey == rkey)
  // The region find_mr found last (null: none; cleared when it is removed). A receive
  // checks the keys of its scatter list, which are those of one connection's buffers
  // message after message: the table's entries, cold at scale, are then not read.
  mutable SimMemoryRegion* last_mr_ = nullptr;
  std::array<RouteSlot, 4> route_slots_{};
};

/// The network path between two hosts, as the model needs it.
struct Route {
  double latency = 0;         ///< SimGrid route latency (links, switches, HCA fixed costs)
  double bottleneck_bw = 0;   ///< smallest link bandwidth on the path
  /// Most larger packets on the wire from the sender while one for this route leaves
  /// (Wire::window: enough to keep the route busy at the HCA's message rate).
  uint32_t window = 0;  ///< set by compute_route
};

/// Flops per second of a host's core (only the ratio to sleep_for's seconds matters).
inline constexpr double kHostSpeed = 1e9;

class SimFabric {
 public:
  explicit SimFabric(const Platform& platform);
  ~SimFabric();

  const Platform& platform() const noexcept { return platform_; }
  const fabric::DeviceCapabilities& capabilities() const noexcept { return caps_; }
  /// The platform's [host] costs of the MPI library's work (every device's host_costs()).
  const fabric::HostCosts& host_costs() const noexcept { return host_costs_; }
  SimHca& hca(uint32_t host) { return *hcas_.at(host); }
  uint32_t host_count() const noexcept { return static_cast<uint32_t>(hcas_.size()); }
  LossModel& loss() noexcept { return loss_; }
  double loss_probability(uint32_t dst_host) const;

  /// Fixed one-way cost of a message outside the wire (post, doorbell, PCIe, WQE).
  double fixed_one_way_cost() const noexcept;
  /// Cached per host pair (and the last few of each source HCA in the HCA).
  const Route& route(uint32_t src_host, uint32_t dst_host);
  /// Bytes on the wire for a payload: headers per MTU packet.
  uint64_t wire_bytes(uint64_t payload) const noexcept;
  uint64_t packets(uint64_t payload) const noexcept;

  /// Ranks (actors) SimGrid killed while they waited: a deadlock (Simulation::run).
  void note_killed(aid_t actor) { killed_.insert(actor); }
  bool was_killed(aid_t actor) const { return killed_.count(actor) != 0; }

  /// Puts `m` (`wire_bytes` on the wire) on the network from `from` to `to` (wire.hpp).
  void send(SimDevice& from, const Destination& to, WireMessage* m, uint64_t wire_bytes);

  /// Packets' and blocked actors' dates, in one order (event_queue.hpp).
  EventQueue& events() noexcept { return *events_; }

  WireMessage* new_message();
  void free_message(WireMessage* m);

  /// The runtime of the calling actor (created on first use); an agent's is the
  /// runtime of the rank that spawned it.
  SimRuntime& runtime_of_self();
  std::shared_ptr<SimRuntime> shared_runtime_of_self();
  SimRuntime* runtime_of(aid_t actor);
  /// The same, shared (nullptr when `actor` has none).
  std::shared_ptr<SimRuntime> shared_runtime_of(aid_t actor);
  /// The shared-memory segments of the simulation (sim_shared_memory.hpp).
  SimSegmentTable& segments() noexcept { return *segments_; }
  void forget_runtime(aid_t actor);
  /// `agent` (an actor spawned by a rank) uses `runtime`, its rank's.
  void adopt(aid_t agent, std::shared_ptr<SimRuntime> runtime);

  /// CPU contention (docs/model.md, "Agents and CPU time"): an agent started or ended
  /// on `host`. A host is contended while it runs an agent and more actors than cores:
  /// its actors' sleeps and polling waits are then SimGrid executions sharing the cores.
  void agent_started(simgrid::s4u::Host* host);
  void agent_ended(simgrid::s4u::Host* host);
  /// Inline, for the common case of a simulation without agents (every wait asks).
  bool contended(const simgrid::s4u::Host* host) const { return agents_ != 0 && runs_agents_beyond_cores(host); }

  /// Registered device contexts, so that a message to a context that was closed is
  /// dropped instead of delivered to freed memory. A context gets an id that is never
  /// reused; messages and timers keep the id next to the pointer, and the pointer is
  /// used only while the id is alive. The check reads one bit of a table that every
  /// message shares (hot in cache), not the context's own memory (cold at scale).
  uint32_t add_device() {
    live_devices_.push_back(true);
    return static_cast<uint32_t>(live_devices_.size() - 1);
  }
  void remove_device(uint32_t id) { live_devices_[id] = false; }
  bool device_alive(uint32_t id) const { return id < live_devices_.size() && live_devices_[id]; }

  /// The same for QPs (qp_ref.hpp): an id per QP, never reused.
  uint32_t add_qp_id() {
    live_qps_.push_back(true);
    return static_cast<uint32_t>(live_qps_.size() - 1);
  }
  void remove_qp_id(uint32_t id) { live_qps_[id] = false; }
  bool qp_alive(uint32_t id) const { return id < live_qps_.size() && live_qps_[id]; }
  /// The QP `ref` names, or nullptr if there is none or it was destroyed.
  SimQueuePair* resolve(const QpRef& ref) const { return qp_alive(ref.id) ? ref.qp : nullptr; }

 private:
  /// SimGrid's route from `src_host` to `dst_host` and what a message pays on it.
  Route compute_route(uint32_t src_host, uint32_t dst_host) const;

  Platform platform_;
  fabric::DeviceCapabilities caps_;
  fabric::HostCosts host_costs_;
  std::vector<std::unique_ptr<SimHca>> hcas_;
  LossModel loss_;
  std::vector<double> loss_by_host_;
  std::unordered_map<uint64_t, Route> routes_;
  SideStack route_stack_{256 * 1024};  ///< where compute_route runs (side_stack.hpp says why)
  const std::vector<simgrid::s4u::Host*>* hosts_ = nullptr;  ///< by host index (the engine's)
  std::vector<std::unique_ptr<WireMessage>> message_storage_;
  std::vector<WireMessage*> free_messages_;
  std::map<aid_t, std::shared_ptr<SimRuntime>> runtimes_;  ///< by actor; agents share their rank's
  bool runs_agents_beyond_cores(const simgrid::s4u::Host* host) const;
  unsigned agents_ = 0;                                     ///< running, on all hosts
  std::map<const simgrid::s4u::Host*, unsigned> agents_on_;
  std::vector<bool> live_devices_;  // by device id
  std::vector<bool> live_qps_;      // by QP id
  std::set<aid_t> killed_;
  /// Declared last: destroyed first, so that no delivery reaches the members above.
  std::unique_ptr<EventQueue> events_;
  std::unique_ptr<Wire> wire_;  ///< uses events_
  std::unique_ptr<SimSegmentTable> segments_;  ///< the shared-memory segments (sim_shared_memory.hpp)

  /// A packet reached `to`'s host (maestro): queued on its runtime, or dropped if the
  /// context closed meanwhile.
  void arrive(SimDevice* to, WireMessage* m);
  /// arrive() as the event queue (small packets) and the wire (SimGrid comms) call it.
  EventQueue::Arrive arrival_handler() {
    return [this](SimDevice* to, WireMessage* m) { arrive(to, m); };
  }
};

/// The SimGrid engine is one per process and its platform cannot change once built.
/// Returns the hosts of the process-wide platform built from `platform`; throws
/// fabric::Error(InvalidState) if this process already built a different one.
const std::vector<simgrid::s4u::Host*>& ensure_engine(const Platform& platform);

}  // namespace twinfab::sim
