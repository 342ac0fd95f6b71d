#include "mpi/core/async_progress.hpp"

#include <algorithm>
#include <utility>

#include "fabric/log.hpp"
#include "mpi/channels/channel.hpp"
#include "mpi/core/context.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {
/// Progress passes the agent makes in a row before it lets the rank in: a stream of
/// arrivals must not keep a rank that wants to call MPI waiting.
constexpr int kPassesPerHold = 64;
}  // namespace

AsyncProgressAgent::AsyncProgressAgent(Context& context, Channel& channel, fabric::Runtime& runtime,
                                       AsyncProgress mode, double interval_seconds)
    : context_(context), channel_(channel), runtime_(runtime), mode_(mode), interval_(interval_seconds),
      hold_(runtime) {
  hold_.lock();  // for the caller, inside MPI_Init
  agent_ = runtime_.spawn("async-progress", [this] { run(); });
}

AsyncProgressAgent::~AsyncProgressAgent() {
  fabric::log().debug("asynchronous progress agent: {} passes", passes_);
  stop_.store(true, std::memory_order_release);
  try {
    agent_->join();
  } catch (const std::exception& e) {
    fabric::log().error("asynchronous progress agent: {}", e.what());
  }
}

void AsyncProgressAgent::rethrow_error() {
  if (error_) [[unlikely]]
    std::rethrow_exception(std::exchange(error_, nullptr));
}

bool AsyncProgressAgent::pass(bool& found_work) {
  if (!hold_.try_lock()) return false;
  found_work = false;
  const char* const rank_call = call_slot_ != nullptr ? *call_slot_ : nullptr;
  if (call_slot_ != nullptr) *call_slot_ = "(asynchronous progress)";
  try {
    for (int i = 0; i < kPassesPerHold && context_.progress() > 0; ++i) {
      found_work = true;
      ++passes_;
    }
    // A copy: the channel's span is valid only until the rank's next call into it.
    const Channel::WaitSet w = channel_.wait_set();
    sources_.assign(w.sources.begin(), w.sources.end());
    deadline_ = w.deadline;
    memory_ = w.memory;
  } catch (...) {
    // The rank's next wait raises it (Context::progress_or_wait); the agent is done.
    error_ = std::current_exception();
    stop_.store(true, std::memory_order_release);
  }
  if (call_slot_ != nullptr) *call_slot_ = rank_call;
  hold_.unlock();
  return true;
}

void AsyncProgressAgent::run() {
  while (!stop_.load(std::memory_order_acquire)) {
    bool found_work = false;
    if (!pass(found_work)) {
      // The rank is in MPI and progresses itself: look again later. Idle, not a wait
      // on the CQs (which would return at once for a completion the rank is about to
      // poll, and spin) nor sleep_for() (CPU time: in the simulator it took a share of
      // the rank's core, and its memory registrations ran at half speed).
      runtime_.idle_for(interval_);
      continue;
    }
    if (found_work) {
      runtime_.yield();  // a rank waiting to enter goes first
      continue;
    }
    if (stop_.load(std::memory_order_acquire)) break;
    const double deadline = std::min(deadline_, runtime_.now() + interval_);
    // Packets through shared memory raise no completion event: with them, even the
    // event agent waits as a poller does (Runtime::wait, which a peer's notify ends).
    if (memory_)
      runtime_.wait(sources_, deadline);
    else if (mode_ == AsyncProgress::Event && !sources_.empty())
      runtime_.wait_for_event(sources_, deadline);
    else
      runtime_.wait_for_completion(sources_, deadline);
  }
}

}  // namespace twinfab::mpi
