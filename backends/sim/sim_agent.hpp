// Internal: agents in the simulator — SimGrid actors on the spawning rank's host that
// use the rank's runtime (fabric::Agent; docs/agents.md).
#pragma once

#include <simgrid/s4u/Host.hpp>

#include <functional>
#include <memory>
#include <string>

#include "fabric/runtime.hpp"

namespace twinfab::sim {

class SimFabric;
class SimRuntime;

/// Starts an actor named `name` on `host` running `body` with `runtime` (the spawning
/// rank's) as its own. The body's exception is kept for join(); the actor leaves the
/// runtime and the host's CPU accounting when the body returns.
std::unique_ptr<fabric::Agent> spawn_sim_agent(SimFabric& fabric, std::shared_ptr<SimRuntime> runtime,
                                               simgrid::s4u::Host* host, const std::string& name,
                                               std::function<void()> body);

}  // namespace twinfab::sim
