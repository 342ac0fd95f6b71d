#include "backends/sim/sim_fabric.hpp"

#include "backends/sim/model_size.hpp"
#include "backends/sim/sim_queue_pair.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <xbt/log.h>

#include <malloc.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <unordered_set>

#include "backends/sim/sim_device.hpp"
#include "backends/sim/wire.hpp"
#include "backends/sim/sim_runtime.hpp"
#include "backends/sim/sim_shared_memory.hpp"
#include "fabric/error.hpp"

namespace twinfab::sim {

namespace s4u = simgrid::s4u;
using fabric::Error;
using fabric::Status;

// ---------------------------------------------------------------- SimHca

SimHca::SimHca(SimFabric& fabric, uint32_t index, s4u::Host* host)
    : fabric_(fabric), index_(index), host_(host), icm_(fabric.platform().hca.icm_cache_entries) {}

uint32_t SimHca::add_qp(SimQueuePair* qp) {
  uint32_t qpn = next_qpn_++;  // never reused, so a late packet cannot reach a new QP
  qps_.add(qpn, qp);
  return qpn;
}

void SimHca::remove_qp(SimQueuePair& qp) {
  qps_.remove(qp.qp_num());
  icm_.erase(qp.icm_entry());
}

SimQueuePair* SimHca::find_qp(uint32_t qpn) const { return qps_.find(qpn); }

uint32_t SimHca::add_mr(SimMemoryRegion* mr) {
  uint32_t key = next_key_++;
  mrs_.add(key, mr);
  return key;
}

void SimHca::remove_mr(uint32_t key) {
  if (last_mr_ != nullptr && last_mr_->lkey() == key) last_mr_ = nullptr;
  mrs_.remove(key);
}

SimMemoryRegion* SimHca::find_mr(uint32_t key) const {
  // The caller reads the region it gets anyway: checking the key there costs nothing.
  if (last_mr_ != nullptr && last_mr_->lkey() == key) return last_mr_;
  SimMemoryRegion* mr = mrs_.find(key);
  if (mr != nullptr) last_mr_ = mr;
  return mr;
}

double SimHca::book_wqe(double now, double wqe_time) {
  double start = std::max(now, wqe_free_at_);
  wqe_free_at_ = start + wqe_time;
  return start;
}

double SimHca::book_receive(double now, double wqe_time) {
  const double start = std::max(now, receive_free_at_);
  receive_free_at_ = start + wqe_time;
  return start;
}

double SimHca::book_ingress(double now, double serialise) {
  ingress_free_at_ = std::max(now, ingress_free_at_ + serialise);
  return ingress_free_at_;
}

double SimHca::book_atomic_unit(double now, double atomic_time) {
  atomic_free_at_ = std::max(now, atomic_free_at_) + atomic_time;
  return atomic_free_at_;
}

// ---------------------------------------------------------------- engine

namespace {

/// Fixed one-way cost of a message outside the wire: the CPU's post and doorbell, the
/// HCA fetching the WQE and payload over PCIe, its processing, and the DMA write at the
/// target. Split over the two PCIe "limiter" links of the route, so SimGrid's route
/// latency carries it and a message needs no extra timer in the common case.
double fixed_one_way_cost(const Platform& p) {
  return p.hca.post_overhead + p.hca.wqe_processing + p.hca.pipeline_latency + 3 * p.hca.pcie_latency;
}

/// The latency of a route through `cables` cables and so `cables - 1` switches, the
/// fixed HCA cost included. SimGrid's fat tree has one latency for every cable; twinfab
/// gives each link_latency + switch_latency / 2, right for a route through one switch
/// and short by (switches - 1) / 2 switch crossings on longer ones, which the
/// latency-factor hook and compute_route() make up with this.
double route_latency(double link_latency, double switch_latency, double fixed, std::size_t cables) {
  return static_cast<double>(cables) * link_latency + static_cast<double>(cables - 1) * switch_latency + fixed;
}

std::string network_fingerprint(const Platform& p) {
  std::string shape;
  for (auto v : p.fat_tree.down) shape += fmt::format("d{}", v);
  for (auto v : p.fat_tree.up) shape += fmt::format("u{}", v);
  for (auto v : p.fat_tree.count) shape += fmt::format("c{}", v);
  return fmt::format("{}|{}|{}|{}|{:a}|{:a}|{:a}|{:a}|{}|{:a}|{}", p.name, p.hosts, static_cast<int>(p.topology), shape,
                     p.link_bandwidth, p.link_latency, p.switch_latency, p.hca.pcie_bandwidth, p.hca.pcie_full_duplex,
                     fixed_one_way_cost(p), p.cores_per_host());
}

}  // namespace

const std::vector<s4u::Host*>& ensure_engine(const Platform& p) {
  static s4u::Engine* engine = nullptr;
  static std::string fingerprint;
  static std::vector<s4u::Host*> hosts;

  std::string fp = network_fingerprint(p);
  if (engine != nullptr) {
    if (fp != fingerprint)
      throw Error(Status::InvalidState,
                  fmt::format("this process already simulates platform '{}'; SimGrid builds one platform per process, "
                              "so platform '{}' needs a new process (ctest runs each test in its own process)",
                              fingerprint.substr(0, fingerprint.find('|')), p.name));
    return hosts;
  }

  // The context factory is chosen when the engine starts, so it goes on the command
  // line. SimGrid's default "raw" contexts are the fastest; sanitizer builds need
  // "thread" (AddressSanitizer cannot follow raw stack switches).
  static std::vector<std::string> args = {"twinfab"};
  if (const char* factory = std::getenv("TWINFAB_SIM_CONTEXTS")) {
    // Checked here: SimGrid aborts on an unknown factory, and the value goes on its
    // command line, where a blank would start another option.
    const std::string_view name = factory;
    if (name != "raw" && name != "ucontext" && name != "boost" && name != "thread")
      throw Error(Status::InvalidArgument,
                  fmt::format("TWINFAB_SIM_CONTEXTS='{}' is not one of raw, ucontext, boost, thread (SimGrid's "
                              "context factories; default raw, thread in sanitizer builds)",
                              factory));
    args.push_back(std::string("--cfg=contexts/factory:") + factory);
  } else {
#ifdef TWINFAB_SANITIZE
    args.push_back("--cfg=contexts/factory:thread");
#endif
  }
  static std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  static int argc = static_cast<int>(args.size());
  // SimGrid's own chatter (actor start/stop, platform notes) is not our output.
  xbt_log_control_set("root.thresh:warning");
  engine = new s4u::Engine(&argc, argv.data());  // lives until exit, as SimGrid expects
  // CM02 without correction factors or TCP window: a message of s bytes over a route
  // of latency L and bottleneck bandwidth B takes exactly L + s/B when alone, and
  // shares bandwidth max-min fairly otherwise. The calibration lives in the platform.
  s4u::Engine::set_config("network/model:CM02");
  s4u::Engine::set_config("network/TCP-gamma:0");
  s4u::Engine::set_config("network/crosstraffic:0");
  // (CM02's latency and bandwidth factors default to 1; the latency factor is set
  // through a callback below.)
  s4u::Engine::set_config("network/weight-S:0");
  long stack_kib = 1024;
  if (const char* stack_env = std::getenv("TWINFAB_SIM_STACK_KIB")) {
    // Digits only, 16 KiB to 1 GiB (every rank reserves that much address space).
    char* end = nullptr;
    errno = 0;
    const bool digits = stack_env[0] >= '0' && stack_env[0] <= '9';
    stack_kib = digits ? std::strtol(stack_env, &end, 10) : 0;
    if (!digits || errno != 0 || *end != '\0' || stack_kib < 16 || stack_kib > (1l << 20))
      throw fabric::Error(fabric::Status::InvalidArgument,
                          fmt::format("TWINFAB_SIM_STACK_KIB={}: expected the stack size of a simulated rank in KiB "
                                      "(an integer from 16 to 1048576; default 1024)",
                                      stack_env));
  }
  s4u::Engine::set_config("contexts/stack-size:" + std::to_string(stack_kib));
  // Actors must run one at a time: the running actor queues events and sets the event
  // queue's SimGrid timer without a simcall (event_queue.hpp), which parallel contexts
  // would race.
  s4u::Engine::set_config("contexts/nthreads:1");
  // Each rank's stack is a page-aligned block of stack-size bytes (SimGrid:
  // posix_memalign, then a guard page). Above glibc's mmap threshold every stack is
  // its own mapping whose chunk header dirties a page of its own: 4 KB per rank of
  // the ~40 KB a rank may cost. Below it, stacks come from the heap and the header
  // shares a page with its neighbour; only the pages a rank's stack reaches are
  // resident either way. Fixing the threshold also stops glibc from moving it.
  if (stack_kib < 16 * 1024) mallopt(M_MMAP_THRESHOLD, static_cast<int>((stack_kib + 64) * 1024));

  const double fixed = fixed_one_way_cost(p);
  std::vector<unsigned> down, up, count;
  unsigned levels;
  if (p.topology == Topology::SingleSwitch) {
    levels = 1;
    down = {p.hosts};
    up = {1};
    count = {1};
  } else {
    levels = p.fat_tree.levels;
    down = p.fat_tree.down;
    up = p.fat_tree.up;
    count = p.fat_tree.count;
  }
  hosts.assign(p.hosts, nullptr);
  auto set_netpoint = [&](s4u::NetZone* zone, const std::vector<unsigned long>& /*coord*/, unsigned long id) {
    // kHostSpeed flops per second per core: Runtime::sleep_for(s) on a contended host
    // is an execution of s * kHostSpeed flops (sim_runtime.cpp).
    s4u::Host* h = zone->create_host(fmt::format("host{}", id), kHostSpeed)
                       ->set_core_count(static_cast<int>(p.cores_per_host()))
                       ->seal();
    if (id < hosts.size()) hosts[id] = h;
    return std::make_pair(h->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
  // Same-host traffic goes through the HCA's loopback: PCIe both ways, no wire.
  auto set_loopback = [&](s4u::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    return zone->create_link(fmt::format("loopback{}", id), p.hca.pcie_bandwidth)->set_latency(fixed)->seal();
  };
  // SimGrid offers every fat-tree node (switches too) a limiter link. A host's limiter
  // is its PCIe bus, shared by all its ranks' traffic. Switches get none: a limiter
  // crossed by every flow would make each flow's start and end cost O(flows) in
  // SimGrid's max-min solver (the 4096-host runs became quadratic). A node's first
  // coordinate is its level, 0 for hosts: SimGrid 3.32 numbers switches in a range
  // that may overlap the hosts' ids (levels = 3, down = [2, 2, 2], up = [1, 2, 2]
  // gives switches 15 down to 4 besides hosts 0-7), so the id cannot tell them apart.
  //
  // A full-duplex bus (PCI Express) carries its bandwidth each way at once, which one
  // limiter (crossed by the host's traffic in both directions) cannot express. Under
  // one switch every link is a host's cable, split per direction: there the bus's
  // limit goes into the cables (the bottleneck of bus and cable) and hosts get no
  // limiter. A multi-level tree's switch-to-switch links must keep the link's own
  // bandwidth, so there the limiter stays and the bus is shared both ways.
  const bool duplex_in_cables = p.hca.pcie_full_duplex && levels == 1;
  auto set_limiter = [&](s4u::NetZone* zone, const std::vector<unsigned long>& coord,
                         unsigned long id) -> s4u::Link* {
    if (coord.empty() || coord[0] != 0) return nullptr;
    return zone->create_link(fmt::format("pcie{}", id), p.hca.pcie_bandwidth)->seal();
  };
  s4u::ClusterCallbacks callbacks(set_netpoint, set_loopback, set_limiter);
  // (SimGrid refuses a host without a limiter when the callback exists: none at all.)
  if (duplex_in_cables) callbacks.limiter = {};
  // Each cable carries its own latency plus half a switch crossing, so a path through
  // one switch (two cables) costs 2 * link_latency + switch_latency; longer paths get
  // the rest from the latency-factor hook below (route_latency()).
  const double cable_bandwidth = duplex_in_cables ? std::min(p.link_bandwidth, p.hca.pcie_bandwidth) : p.link_bandwidth;
  auto* zone = s4u::create_fatTree_zone("twinfab", nullptr, s4u::FatTreeParams(levels, down, up, count), callbacks,
                                        cable_bandwidth, p.link_latency + p.switch_latency / 2,
                                        s4u::Link::SharingPolicy::SPLITDUPLEX);
  zone->seal();
  // The fixed HCA/PCIe cost of a message is added to the route's latency through
  // SimGrid's latency-factor hook (limiter links carry bandwidth but no latency), so
  // SimGrid's own timing includes it and no extra timer is needed per message.
  // The factor also makes a route's switch crossings whole (route_latency()).
  zone->get_network_model()->set_lat_factor_cb(
      [fixed, link = p.link_latency, sw = p.switch_latency](double, const s4u::Host* src, const s4u::Host* dst,
                                                            const std::vector<s4u::Link*>& links,
                                                            const std::unordered_set<s4u::NetZone*>&) {
        if (src == dst) return 1.0;  // the loopback link's latency is the fixed cost
        double latency = 0;
        std::size_t cables = 0;  // limiters carry no latency
        for (const auto* l : links) {
          latency += l->get_latency();
          if (l->get_latency() > 0) ++cables;
        }
        return latency > 0 ? route_latency(link, sw, fixed, cables) / latency : 1.0;
      });
  for (size_t i = 0; i < hosts.size(); ++i)
    if (hosts[i] == nullptr) throw Error(Status::InvalidArgument, fmt::format("platform '{}': host {} missing", p.name, i));
  fingerprint = fp;
  return hosts;
}

// ---------------------------------------------------------------- SimFabric

SimFabric::SimFabric(const Platform& platform)
    : platform_(platform),
      loss_(platform.loss.seed),
      events_(std::make_unique<EventQueue>(arrival_handler())),
      segments_(std::make_unique<SimSegmentTable>()) {
  check_model_fits(platform_);  // before SimGrid builds it: refused with the estimate
  const auto& hosts = ensure_engine(platform_);
  hosts_ = &hosts;
  wire_ = std::make_unique<Wire>(*events_, arrival_handler(), hosts);
  hcas_.reserve(hosts.size());
  for (uint32_t i = 0; i < hosts.size(); ++i) hcas_.push_back(std::make_unique<SimHca>(*this, i, hosts[i]));
  loss_by_host_.assign(hosts.size(), platform_.loss.probability);
  for (auto [host, prob] : platform_.loss.per_host)
    if (host < loss_by_host_.size()) loss_by_host_[host] = prob;

  const auto& f = platform_.features;
  host_costs_.send_overhead = platform_.mpi_send_overhead;
  host_costs_.receive_overhead = platform_.mpi_receive_overhead;
  host_costs_.receive_queue_overhead = platform_.mpi_receive_queue_overhead;
  host_costs_.copy_bandwidth = platform_.memcpy_bandwidth;
  caps_.backend = "sim";
  caps_.device_name = "sim-hca";
  caps_.link = fabric::LinkKind::Simulated;
  caps_.rc = true;
  caps_.uc = f.uc;
  caps_.ud = f.ud;
  caps_.srq = f.srq;
  caps_.atomics = f.atomics;
  caps_.send_with_imm = f.send_with_imm;
  caps_.write_with_imm = f.write_with_imm;
  caps_.in_order_placement = f.in_order_placement;
  // hca.rnr_retry = 0 is how a platform says a missing receive is fatal (iWARP).
  caps_.receiver_not_ready_retry = platform_.hca.rnr_retry > 0;
  caps_.requires_connection_manager = f.requires_connection_manager;
  caps_.active_side_sends_first = f.active_side_sends_first;
  caps_.mtu = platform_.mtu;
  caps_.max_inline = f.max_inline;
  caps_.max_rd_atomic = f.max_rd_atomic;
}

SimFabric::~SimFabric() = default;

void SimFabric::send(SimDevice& from, const Destination& to, WireMessage* m, uint64_t wire_bytes) {
  // By host index: the destination's context and HCA stay untouched until the packet
  // arrives (at thousands of ranks, each would be a cache miss here and again then).
  const uint32_t src_host = from.hca().index();
  assert(m->src_host == src_host);  // every sender sets it (Wire::carry relies on it)
  const Route& r = route(src_host, m->dst_host);
  m->to_id = to.id;
  m->to_runtime = to.runtime;
  wire_->carry(to.device, m, r, wire_bytes);
}

void SimFabric::arrive(SimDevice* to, WireMessage* m) {
  if (!device_alive(m->to_id)) {
    free_message(m);  // the context closed: a packet into the void, as on hardware
    return;
  }
  m->to_runtime->deliver(to, m);
}

double SimFabric::fixed_one_way_cost() const noexcept { return sim::fixed_one_way_cost(platform_); }

double SimFabric::loss_probability(uint32_t dst_host) const { return loss_by_host_[dst_host]; }

const Route& SimFabric::route(uint32_t src_host, uint32_t dst_host) {
  SimHca::RouteSlot& slot = hcas_[src_host]->route_slot(dst_host);
  if (slot.dst_host == dst_host) return *slot.route;
  const uint64_t key = (static_cast<uint64_t>(src_host) << 32) | dst_host;
  auto it = routes_.find(key);
  if (it == routes_.end()) {
    // SimGrid's routing is the deepest call a rank makes: on the side stack
    // (side_stack.hpp).
    Route computed;
    route_stack_.run([&] { computed = compute_route(src_host, dst_host); });
    it = routes_.emplace(key, computed).first;
  }
  slot = {dst_host, &it->second};  // the map's nodes never move
  return it->second;
}

Route SimFabric::compute_route(uint32_t src_host, uint32_t dst_host) const {
  std::vector<s4u::Link*> links;
  double latency = 0;
  hcas_[src_host]->host()->route_to(hcas_[dst_host]->host(), links, &latency);
  Route r;
  // What SimGrid charges a message on this route: the cables and switches plus the
  // fixed HCA cost, as the latency-factor hook makes it (the loopback link already
  // holds it).
  std::size_t cables = 0;
  for (const auto* l : links)
    if (l->get_latency() > 0) ++cables;
  r.latency = src_host == dst_host ? latency
              : cables > 0         ? route_latency(platform_.link_latency, platform_.switch_latency,
                                                   fixed_one_way_cost(), cables)
                                   : latency + fixed_one_way_cost();
  r.bottleneck_bw = std::numeric_limits<double>::infinity();
  for (auto* l : links) r.bottleneck_bw = std::min(r.bottleneck_bw, l->get_bandwidth());
  r.window = Wire::window(r.latency, r.bottleneck_bw, platform_.hca.wqe_interval());
  return r;
}

uint64_t SimFabric::packets(uint64_t payload) const noexcept {
  return payload == 0 ? 1 : (payload + platform_.mtu - 1) / platform_.mtu;
}

uint64_t SimFabric::wire_bytes(uint64_t payload) const noexcept {
  return payload + packets(payload) * platform_.hca.header_bytes;
}

WireMessage* SimFabric::new_message() {
  if (free_messages_.empty()) {
    message_storage_.push_back(std::make_unique<WireMessage>());
    return message_storage_.back().get();
  }
  WireMessage* m = free_messages_.back();
  free_messages_.pop_back();
  return m;
}

void SimFabric::free_message(WireMessage* m) {
  // Keep the vectors' capacity: steady-state messages allocate nothing.
  auto source = std::move(m->source);
  auto local = std::move(m->local);
  auto data = std::move(m->data);
  *m = WireMessage{};
  source.clear();
  local.clear();
  data.clear();
  m->source = std::move(source);
  m->local = std::move(local);
  m->data = std::move(data);
  free_messages_.push_back(m);
}

SimRuntime& SimFabric::runtime_of_self() {
  aid_t self = s4u::this_actor::get_pid();
  auto& slot = runtimes_[self];
  if (!slot) slot = std::make_shared<SimRuntime>(*this, self, s4u::this_actor::get_host());
  return *slot;
}

std::shared_ptr<SimRuntime> SimFabric::shared_runtime_of_self() {
  runtime_of_self();
  return runtimes_.at(s4u::this_actor::get_pid());
}

void SimFabric::adopt(aid_t agent, std::shared_ptr<SimRuntime> runtime) { runtimes_[agent] = std::move(runtime); }

void SimFabric::agent_started(s4u::Host* host) {
  ++agents_;
  ++agents_on_[host];
  // Actors of this host that wait or compute without an execution (the host was not
  // contended when they blocked) now share its cores: woken, they block again as
  // executions (sim_runtime.cpp). Each runtime once: agents map to their rank's.
  if (!contended(host)) return;
  // Chosen first, woken after: a wake-up is a simcall, during which other actors run
  // and may end or spawn (forget_runtime() and adopt() change runtimes_). Only the
  // actors of this host: each spawn scanning every rank's runtime made a run whose
  // ranks each start an agent (UD's shutdown) quadratic in the ranks.
  std::vector<std::shared_ptr<SimRuntime>> ranks;
  for (const s4u::ActorPtr& actor : host->get_all_actors()) {
    const auto it = runtimes_.find(actor->get_pid());
    if (it != runtimes_.end() && it->second->owner() == it->first) ranks.push_back(it->second);
  }
  // In actor order, as the scan of runtimes_ woke them (the same simulation).
  std::sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) { return a->owner() < b->owner(); });
  for (auto& rt : ranks) rt->wake_cpu_users(host);
}

void SimFabric::agent_ended(s4u::Host* host) {
  --agents_;
  if (--agents_on_[host] == 0) agents_on_.erase(host);
}

bool SimFabric::runs_agents_beyond_cores(const s4u::Host* host) const {
  auto it = agents_on_.find(host);
  return it != agents_on_.end() && host->get_actor_count() > static_cast<size_t>(host->get_core_count());
}

SimRuntime* SimFabric::runtime_of(aid_t actor) {
  auto it = runtimes_.find(actor);
  return it == runtimes_.end() ? nullptr : it->second.get();
}

std::shared_ptr<SimRuntime> SimFabric::shared_runtime_of(aid_t actor) {
  auto it = runtimes_.find(actor);
  return it == runtimes_.end() ? nullptr : it->second;
}

void SimFabric::forget_runtime(aid_t actor) { runtimes_.erase(actor); }

}  // namespace twinfab::sim
