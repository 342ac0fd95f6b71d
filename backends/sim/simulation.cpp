#include "backends/sim/simulation.hpp"

#include <malloc.h>
#include <simgrid/Exception.hpp>
#include <xbt/config.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <optional>
#include <string_view>
#include <vector>

#include "backends/sim/memory_mappings.hpp"
#include "backends/sim/rank_stack_arena.hpp"
#include "backends/sim/sim_device.hpp"
#include "backends/sim/sim_fabric.hpp"
#include "backends/sim/sim_oob.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::sim {

namespace s4u = simgrid::s4u;
using fabric::Error;
using fabric::Status;

namespace {

/// SimGrid gives each actor's stack a guard page (mprotect), which splits the heap
/// into two more memory mappings per rank; the kernel caps a process's mappings
/// (vm.max_map_count, 65530 by default). When `nranks` ranks' guards would not fit
/// under the cap beside what is mapped already (at 16384 ranks of a program loaded by
/// twinfab sim: two mappings per rank's copy), the ranks run without guard pages: a
/// rank that overflows its stack (TWINFAB_SIM_STACK_KIB, 1 MiB by default) then
/// corrupts memory instead of faulting, which the info line says.
/// TWINFAB_SIM_STACK_GUARDS=0 drops them at any size (what a run above the cap
/// does, at a smaller scale). Returns whether the guards stay.
bool fit_stack_guards(unsigned nranks) {
  bool wanted = true;
  if (const char* value = std::getenv("TWINFAB_SIM_STACK_GUARDS")) {
    if (std::string_view(value) != "0" && std::string_view(value) != "1")
      throw Error(Status::InvalidArgument,
                  fmt::format("TWINFAB_SIM_STACK_GUARDS='{}' is not 0 or 1 (0: ranks' stacks without guard pages, "
                              "1: with them where vm.max_map_count allows, the default)",
                              value));
    wanted = std::string_view(value) == "1";
  }
  if (wanted) {
    const std::size_t limit = memory_mapping_limit();
    if (limit == 0) return true;  // no limit known
    constexpr std::size_t kGuardMappings = 2, kSlack = 1024;  // heap growth, SimGrid, libraries
    const std::size_t needed = memory_mapping_count() + kGuardMappings * nranks + kSlack;
    if (needed <= limit) return true;
    fabric::log().info(
        "sim: {} ranks with stack guard pages would need ~{} memory mappings, more than vm.max_map_count ({}): "
        "running without guard pages (a stack overflow is not caught; raise the limit with sysctl -w "
        "vm.max_map_count=N to keep them)",
        nranks, needed, limit);
  }
  s4u::Engine::set_config("contexts/guard-size:0");
  // Without a guard, SimGrid takes a stack with calloc (from RankStackArena where the
  // executable interposes calloc). From the heap, calloc clears whatever of the
  // heap's top chunk the stack reuses: with glibc's 128 KiB top pad that was ~135 KiB
  // written, so resident, per rank (a 16384-rank ring: 2.97 GB against 0.76 GB with
  // guards). Without the pad the heap grows by what is asked and the clear is a page.
  mallopt(M_TOP_PAD, 0);
  return false;
}

}  // namespace

Simulation::Simulation(const Platform& platform) : fabric_(std::make_unique<SimFabric>(platform)) {}
Simulation::~Simulation() = default;

const Platform& Simulation::platform() const noexcept { return fabric_->platform(); }
const fabric::DeviceCapabilities& Simulation::capabilities() const noexcept { return fabric_->capabilities(); }

unsigned check_placement(const Platform& p, unsigned nranks, unsigned ranks_per_host) {
  if (nranks == 0) throw Error(Status::InvalidArgument, "run: at least one rank is needed");
  if (ranks_per_host == 0) ranks_per_host = p.ranks_per_host ? p.ranks_per_host : 1;
  const unsigned hosts_needed = (nranks + ranks_per_host - 1) / ranks_per_host;
  if (hosts_needed > p.hosts)
    throw Error(Status::InvalidArgument,
                fmt::format("run: {} ranks at {} per host need {} hosts; platform '{}' has {} (set topology.hosts, or "
                            "raise ranks_per_host)",
                            nranks, ranks_per_host, hosts_needed, p.name, p.hosts));
  return ranks_per_host;
}

void Simulation::run(unsigned nranks, const std::function<void(RankEnv&)>& body, unsigned ranks_per_host) {
  const Platform& p = fabric_->platform();
  ranks_per_host = check_placement(p, nranks, ranks_per_host);
  const bool guards = fit_stack_guards(nranks);

  SimFabric* fabric = fabric_.get();
  SimOob oob_shared(nranks, fabric);
  std::vector<std::exception_ptr> errors(nranks);
  std::vector<bool> finished(nranks, false);
  bool ending_run = false;  // a rank failed and stopped the others
  // Without guard pages, the stacks SimGrid creates in this loop come from one
  // mapping (rank_stack_arena.hpp says why).
  std::optional<RankStackArena::Armed> stacks_in_arena;
  if (!guards)
    stacks_in_arena.emplace(
        nranks, std::size_t{1024} * static_cast<std::size_t>(simgrid::config::get_value<int>("contexts/stack-size")));
  for (unsigned r = 0; r < nranks; ++r) {
    const unsigned host = r / ranks_per_host;
    s4u::Actor::create(fmt::format("rank{}", r), fabric->hca(host).host(), [&, r, host, fabric]() {
      try {
        SimOobView oob(oob_shared, r, host, ranks_per_host);
        SimDevice device(*fabric, host);
        RankEnv env{r, nranks, host, device, device.runtime(), oob, *this};
        body(env);
      } catch (const simgrid::ForcefulKillException&) {
        throw;  // SimGrid unwinding a rank it kills (a deadlock, or the end of a failed run)
      } catch (...) {
        errors[r] = std::current_exception();
        // A process that dies ends an MPI job: the others are likely waiting for this
        // rank (its connection, its message, a fence) and would wait until SimGrid
        // declared a deadlock. End the run now, while its error is the only thing to report.
        if (!ending_run) {
          ending_run = true;
          fabric->forget_runtime(s4u::this_actor::get_pid());
          s4u::Actor::kill_all();
          return;
        }
      }
      finished[r] = !fabric->was_killed(s4u::this_actor::get_pid());
      fabric->forget_runtime(s4u::this_actor::get_pid());
    });
  }
  stacks_in_arena.reset();
  s4u::Engine::get_instance()->run();
  // A failed rank's error (the ranks its failure stopped report nothing).
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  std::string stuck;
  for (unsigned r = 0; r < nranks; ++r)
    if (!finished[r]) stuck += fmt::format("{}{}", stuck.empty() ? "" : ", ", r);
  if (!stuck.empty())
    throw Error(Status::InvalidState,
                fmt::format("simulation deadlocked: rank(s) {} were still waiting when nothing else could happen",
                            stuck));
}

void Simulation::run_single(const std::function<void()>& body) {
  std::exception_ptr error;
  bool finished = false;
  SimFabric* fabric = fabric_.get();
  s4u::Actor::create("driver", fabric->hca(0).host(), [&, fabric]() {
    try {
      body();
    } catch (const simgrid::ForcefulKillException&) {
      throw;  // SimGrid unwinding the driver it kills (a deadlock): it stays unfinished
    } catch (...) {
      error = std::current_exception();
    }
    finished = !fabric->was_killed(s4u::this_actor::get_pid());
    fabric->forget_runtime(s4u::this_actor::get_pid());
  });
  s4u::Engine::get_instance()->run();
  if (error) std::rethrow_exception(error);
  if (!finished) throw Error(Status::InvalidState, "simulation deadlocked: the driver was still waiting");
}

std::unique_ptr<fabric::Device> Simulation::open_device(unsigned host) {
  if (s4u::Actor::is_maestro() || s4u::Actor::self() == nullptr)
    throw Error(Status::InvalidState, "open_device: call it from inside Simulation::run()");
  if (host >= fabric_->host_count())
    throw Error(Status::InvalidArgument,
                fmt::format("open_device: host {} does not exist (platform has {})", host, fabric_->host_count()));
  return std::make_unique<SimDevice>(*fabric_, host);
}

Counters Simulation::counters() const {
  Counters total;
  for (unsigned h = 0; h < host_count(); ++h) total += hca_counters(h);
  return total;
}

Counters Simulation::hca_counters(unsigned host) const {
  if (host >= host_count())
    throw Error(Status::InvalidArgument, fmt::format("hca_counters: host {} does not exist (platform '{}' has {}: 0..{})",
                                                     host, fabric_->platform().name, host_count(), host_count() - 1));
  SimHca& hca = fabric_->hca(host);
  Counters c = hca.counters();
  // The cache's own tallies: reset with it, and the ones its tests read.
  c.icm_hits = hca.icm().hits();
  c.icm_misses = hca.icm().misses();
  return c;
}

unsigned Simulation::host_count() const { return fabric_->host_count(); }

void Simulation::reset_counters() {
  for (unsigned h = 0; h < host_count(); ++h) {
    SimHca& hca = fabric_->hca(h);
    Counters& c = hca.counters();
    // Modelled memory and pinned bytes describe live objects: they survive a reset.
    Counters kept;
    kept.registered_bytes = c.registered_bytes;
    kept.qp_context_bytes = c.qp_context_bytes;
    kept.communication_buffer_bytes = c.communication_buffer_bytes;
    kept.data_structure_bytes = c.data_structure_bytes;
    c = kept;
    hca.icm().reset_counters();
  }
}

double Simulation::now() const { return s4u::Engine::get_clock(); }

}  // namespace twinfab::sim
