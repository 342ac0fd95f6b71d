#include "backends/sim/sim_agent.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include <exception>
#include <utility>

#include "backends/sim/actor_wake.hpp"
#include "backends/sim/sim_fabric.hpp"
#include "backends/sim/sim_runtime.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"

namespace twinfab::sim {
namespace s4u = simgrid::s4u;

namespace {

/// What the agent's actor and its handle share: the handle may go first (a leaked
/// agent), or the actor (a joined one).
struct AgentState {
  std::string name;
  aid_t actor = -1;
  bool done = false;
  std::exception_ptr error;  ///< what escaped the body, until join() reports it
  std::shared_ptr<ActorWake> joiner;  ///< set while someone blocks in join()
};

class SimAgent final : public fabric::Agent {
 public:
  SimAgent(SimFabric& fabric, std::shared_ptr<SimRuntime> runtime, std::shared_ptr<AgentState> state)
      : fabric_(fabric), runtime_(std::move(runtime)), state_(std::move(state)) {}

  ~SimAgent() override {
    if (joined_) return;
    // A rank unwinding because SimGrid killed it (a deadlock) must not block again.
    if (fabric_.was_killed(s4u::this_actor::get_pid())) return;
    try {
      join();
    } catch (const simgrid::ForcefulKillException&) {
      // Killed while joining: the unwinding continues without this destructor's help.
    } catch (const std::exception& e) {
      fabric::log().error("agent '{}' was destroyed without join() and it had thrown: {}", state_->name, e.what());
    } catch (...) {
      fabric::log().error("agent '{}' was destroyed without join() and it had thrown a non-standard exception",
                          state_->name);
    }
  }

  void join() override {
    if (joined_) return;
    runtime_->wait_for_agent(state_->done, state_->joiner, state_->actor, state_->name);
    joined_ = true;
    if (state_->error) std::rethrow_exception(std::exchange(state_->error, nullptr));
  }

  const std::string& name() const override { return state_->name; }

 private:
  SimFabric& fabric_;
  std::shared_ptr<SimRuntime> runtime_;
  std::shared_ptr<AgentState> state_;
  bool joined_ = false;
};

}  // namespace

std::unique_ptr<fabric::Agent> spawn_sim_agent(SimFabric& fabric, std::shared_ptr<SimRuntime> runtime,
                                               s4u::Host* host, const std::string& name, std::function<void()> body) {
  auto state = std::make_shared<AgentState>();
  state->name = name;
  SimFabric* f = &fabric;
  // Registered before it starts: SimGrid may run a new actor before its creator
  // continues, and its first runtime call must find it an agent of `runtime`.
  s4u::ActorPtr actor = s4u::Actor::init(name, host);
  // An agent is part of its rank: what the launcher keeps per rank (the actor's data:
  // the MPI library's rank state, the program's services) is the spawner's, so a
  // library call made on the agent (a user callback run by an asynchronous progress
  // agent) finds its rank, as an agent thread does on hardware.
  actor->set_data(s4u::Actor::self()->get_data<void>());
  state->actor = actor->get_pid();
  runtime->add_agent(state->actor, host);
  fabric.adopt(state->actor, runtime);
  actor->start([f, runtime, state, host, body = std::move(body)]() {
    {
      // Leaves the runtime and the host's accounting however the body ends.
      struct Leave {
        SimFabric* fabric;
        SimRuntime* runtime;
        s4u::Host* host;
        ~Leave() {
          const aid_t self = s4u::this_actor::get_pid();
          runtime->remove_agent(self);
          fabric->forget_runtime(self);
          fabric->agent_ended(host);
        }
      } leave{f, runtime.get(), host};
      try {
        body();
      } catch (const simgrid::ForcefulKillException&) {
        throw;  // SimGrid unwinding an agent it kills (a deadlock): nobody will join it
      } catch (...) {
        state->error = std::current_exception();
      }
    }
    state->done = true;
    if (state->joiner) state->joiner->wake();
  });
  // Counted once it is on the host (SimGrid counts started actors): if it already ran
  // and blocked, agent_started() wakes it too, to block again as an execution.
  fabric.agent_started(host);
  return std::make_unique<SimAgent>(fabric, std::move(runtime), std::move(state));
}

}  // namespace twinfab::sim
